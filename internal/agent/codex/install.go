package codex

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/jsonedit"
	"paddock/internal/hookinstall/tomlscan"
)

// Codex's hooks live in hooks.json ($CODEX_HOME or ~/.codex) in Claude
// Code's shape, and its legacy notify program in config.toml's top-level
// notify, which reports turn ends.

var hookEvents = []struct {
	name, matcher string
	timeout       int
}{
	{"SessionStart", "startup|resume|clear", hookinstall.StatusTimeout},
	{"UserPromptSubmit", "", hookinstall.StatusTimeout},
	{"PreToolUse", "*", hookinstall.DecisionTimeout},
	{"PermissionRequest", "*", hookinstall.DecisionTimeout},
	{"PostToolUse", "*", hookinstall.StatusTimeout},
	{"Stop", "", hookinstall.StatusTimeout},
	{"SessionEnd", "", hookinstall.StatusTimeout},
	{"Interrupt", "", hookinstall.StatusTimeout},
}

func install() hookinstall.Spec {
	return hookinstall.Spec{
		Dir:     func(e *hookinstall.Env) string { return e.EnvDir("CODEX_HOME", ".codex") },
		Targets: installTargets,
		Notes:   installNotes,
	}
}

func installTargets(e *hookinstall.Env, dir string, withMCP bool) []hookinstall.Target {
	s := &jsonedit.Hooks{Nested: true, Ours: e.IsOurJSONHandler}
	for _, ev := range hookEvents {
		s.Events = append(s.Events, jsonedit.Event{Name: ev.name, Matcher: ev.matcher, Handler: jsonedit.Obj(
			"type", "command", "command", e.Command(runtimeName, ev.name), "timeout", ev.timeout)})
	}
	notify := &notifyEdit{argv: append(e.RelayArgv(runtimeName), "notify"), ours: e.IsOurArgv}
	var mcp *mcpTable
	if e.MCPTargets(withMCP) {
		mcp = &mcpTable{argv: e.MCPArgv(), ours: e.IsOurMCPArgv}
	}
	return []hookinstall.Target{
		{
			Path: filepath.Join(dir, "hooks.json"),
			Base: []byte("{}\n"),
			Mode: 0o600,
			Edit: func(src []byte, _, install bool) (hookinstall.Edit, error) {
				return hookinstall.JSONEdit(s, src, install)
			},
		},
		{
			Path: filepath.Join(dir, "config.toml"),
			Base: []byte{},
			Mode: 0o600,
			Edit: func(src []byte, _, install bool) (hookinstall.Edit, error) {
				// One file, two edits, each on the other's result. An
				// uninstall takes the MCP table out first: the blank line
				// install put before it follows the notify line and must
				// go with the table, or an emptied file keeps a newline.
				if mcp != nil && !install {
					m, err := mcp.edit(src, install)
					if err != nil {
						return m, err
					}
					res, err := notify.edit(m.Out, install)
					res.Ours += m.Ours
					return res, err
				}
				res, err := notify.edit(src, install)
				if err != nil {
					return res, err
				}
				if install && hooksOff(src) {
					res.Notes = append(res.Notes, "config.toml turns hooks off ([features] hooks = false): Codex runs no hooks, paddock's included, until that is removed")
				}
				if mcp == nil {
					return res, nil
				}
				m, err := mcp.edit(res.Out, install)
				if err != nil {
					return m, err
				}
				res.Out, res.Ours, res.Notes = m.Out, res.Ours+m.Ours, append(res.Notes, m.Notes...)
				return res, nil
			},
		},
	}
}

// hooksOff reports [features] hooks = false in a config that scans.
func hooksOff(src []byte) bool {
	stmts, err := tomlscan.Scan(src)
	if err != nil {
		return false
	}
	for _, st := range stmts {
		if st.Kind == tomlscan.KeyValue && (st.Table == "features" && st.Key == "hooks" || st.Table == "" && st.Key == "features.hooks") {
			return strings.TrimSpace(string(src[st.ValStart:st.ValEnd])) == "false"
		}
	}
	return false
}

func installNotes(*hookinstall.Env) []string {
	return []string{
		"Codex runs hooks from hooks.json only after you trust them: start codex, type /hooks, review paddock's entries and trust them. " +
			"Trust is pinned to each hook's hash, so trust again after paddock's binary or data dir moves. " +
			"Until then Codex skips them (codex --dangerously-bypass-hook-trust runs them for one session).",
		"paddock's notify in config.toml (installed unless you already have a notify program) reports turn ends; Codex appends the event JSON as the last argument.",
	}
}

// notifyEdit manages the top-level `notify = [...]` of Codex's config.toml.
// A notify program that is not paddock's is never replaced: Codex has one
// notify slot, and chaining would mean paddock re-running someone else's
// program. paddock's hooks.json Stop hook reports turn ends without it.
type notifyEdit struct {
	argv []string
	ours func([]string) bool
}

const notifyComment = " # paddock hook relay (paddock hooks uninstall removes this line)"

func (n *notifyEdit) line() string {
	q := make([]string, len(n.argv))
	for i, a := range n.argv {
		q[i] = tomlscan.Quote(a)
	}
	return "notify = [" + strings.Join(q, ", ") + "]" + notifyComment + "\n"
}

func (n *notifyEdit) edit(src []byte, install bool) (hookinstall.Edit, error) {
	stmts, err := tomlscan.Scan(src)
	if err != nil {
		return hookinstall.Edit{}, err
	}
	res := hookinstall.Edit{Out: src}
	var at *tomlscan.Stmt
	lastTop, firstHeader := -1, -1
	for i := range stmts {
		st := &stmts[i]
		if st.Kind == tomlscan.Header || st.Kind == tomlscan.ArrayHeader {
			if firstHeader < 0 {
				firstHeader = i
			}
			continue
		}
		if st.Kind != tomlscan.KeyValue || st.Table != "" {
			continue
		}
		lastTop = i
		if st.Key == "notify" {
			if at != nil {
				return hookinstall.Edit{}, fmt.Errorf("line %d: notify is set twice", st.Line)
			}
			at = st
		}
	}
	if at != nil {
		raw := src[at.ValStart:at.ValEnd]
		vals, ok := tomlscan.Strings(raw)
		if !ok || !n.ours(vals) {
			res.Foreign = 1
			if install {
				res.Notes = append(res.Notes, fmt.Sprintf("config.toml already has notify = %s (kept): paddock's notify is not installed; its Stop hook reports turn ends instead", strings.TrimSpace(string(raw))))
			}
			return res, nil
		}
		res.Ours = 1
		switch {
		case install && slices.Equal(vals, n.argv):
			return res, nil
		case install:
			res.Out = tomlscan.Splice(src, at.Start, at.End, n.line())
		default:
			res.Out = tomlscan.Splice(src, at.Start, at.End, "")
		}
		return res, nil
	}
	if !install {
		return res, nil
	}
	pos := 0
	if lastTop >= 0 {
		pos = stmts[lastTop].End
	}
	line := n.line()
	if pos > 0 && src[pos-1] != '\n' {
		line = "\n" + line
	}
	res.Out = tomlscan.Splice(src, pos, pos, line)
	return res, nil
}
