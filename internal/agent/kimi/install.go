package kimi

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/tomlscan"
)

// Kimi Code's hooks are [[hooks]] tables in config.toml ($KIMI_CODE_HOME
// or ~/.kimi-code), each running the relay command.

var hookEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PermissionResult",
	"PostToolUse", "PostToolUseFailure", "Stop", "StopFailure", "Interrupt",
	"SubagentStart", "SubagentStop", "Notification", "SessionHeartbeat", "SessionEnd",
}

func install() hookinstall.Spec {
	return hookinstall.Spec{
		Dir:     func(e *hookinstall.Env) string { return e.EnvDir("KIMI_CODE_HOME", ".kimi-code") },
		Targets: installTargets,
		Notes:   installNotes,
	}
}

func installTargets(e *hookinstall.Env, dir string, install bool) []hookinstall.Target {
	k := &tomlHooks{ours: e.IsOurCommand}
	for _, ev := range hookEvents {
		k.events = append(k.events, tomlHook{event: ev, command: e.Command(runtimeName, ev), timeout: hookinstall.StatusTimeout})
	}
	ts := []hookinstall.Target{{
		Path: filepath.Join(dir, "config.toml"),
		Base: []byte{},
		Mode: 0o600,
		Edit: func(src []byte, _, install bool) (hookinstall.Edit, error) { return k.edit(src, install) },
	}}
	if e.MCPTargets(install) {
		// Kimi's user-wide MCP servers: mcp.json beside config.toml.
		ts = append(ts, e.MCPJSONTarget(filepath.Join(dir, "mcp.json"), "mcpServers", e.MCPCommand()))
	}
	return ts
}

func installNotes(*hookinstall.Env) []string {
	return []string{"Kimi reads [[hooks]] when a session starts: restart running sessions. Kimi hooks can report and deny, never approve: approvals stay in Kimi's own prompt."}
}

// tomlHooks manages paddock's [[hooks]] tables in Kimi's config.toml. They
// are appended at the end between two marker comments and removed again
// with them; paddock's tables are recognised by their command either way.
type tomlHooks struct {
	events []tomlHook
	ours   func(cmd string) bool
}

type tomlHook struct {
	event, command string
	timeout        int
}

const (
	tomlBegin = "# >>> paddock hooks: added by `paddock hooks install`, removed by `paddock hooks uninstall` >>>"
	tomlEnd   = "# <<< paddock hooks <<<"
)

func (k *tomlHooks) region() string {
	var b strings.Builder
	b.WriteString(tomlBegin + "\n")
	for i, h := range k.events {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks]]\nevent = %s\ncommand = %s\ntimeout = %d\n", tomlscan.Quote(h.event), tomlscan.Quote(h.command), h.timeout)
	}
	b.WriteString(tomlEnd + "\n")
	return b.String()
}

func (h tomlHook) signature() string {
	return "command=s:" + h.command + "\x00event=s:" + h.event + "\x00timeout=r:" + strconv.Itoa(h.timeout)
}

// tomlBlock is one [[hooks]] table.
type tomlBlock struct {
	first, last int // statement indexes: the header and its last key/value
	ours        bool
	parts       []string // key=value, for comparing meaning
}

func (b tomlBlock) sig() string {
	p := slices.Clone(b.parts)
	slices.Sort(p)
	return strings.Join(p, "\x00")
}

func (k *tomlHooks) scan(src []byte) ([]tomlscan.Stmt, []tomlBlock, error) {
	stmts, err := tomlscan.Scan(src)
	if err != nil {
		return nil, nil, err
	}
	var blocks []tomlBlock
	cur := -1
	for i, st := range stmts {
		switch st.Kind {
		case tomlscan.Header, tomlscan.ArrayHeader:
			cur = -1
			if st.Kind == tomlscan.Header && st.Key == "hooks" {
				return nil, nil, fmt.Errorf("line %d: [hooks] is a table here, not a list of [[hooks]]; paddock cannot add its entries", st.Line)
			}
			if st.Kind == tomlscan.ArrayHeader && st.Key == "hooks" {
				blocks = append(blocks, tomlBlock{first: i, last: i})
				cur = len(blocks) - 1
			}
		case tomlscan.KeyValue:
			if st.Table == "" && (st.Key == "hooks" || strings.HasPrefix(st.Key, "hooks.")) {
				return nil, nil, fmt.Errorf("line %d: hooks is set as a key, not as [[hooks]] tables; paddock cannot add its entries", st.Line)
			}
			if cur < 0 {
				continue
			}
			b := &blocks[cur]
			b.last = i
			raw := src[st.ValStart:st.ValEnd]
			v := "r:" + strings.TrimSpace(string(raw))
			if vals, ok := tomlscan.Strings(raw); ok && len(vals) == 1 && raw[0] != '[' {
				v = "s:" + vals[0]
				if st.Key == "command" && k.ours(vals[0]) {
					b.ours = true
				}
			}
			b.parts = append(b.parts, st.Key+"="+v)
		}
	}
	return stmts, blocks, nil
}

func (k *tomlHooks) remove(src []byte, stmts []tomlscan.Stmt, blocks []tomlBlock) []byte {
	begin, end := -1, -1
	for i, st := range stmts {
		if st.Kind != tomlscan.Comment {
			continue
		}
		line := strings.TrimSpace(string(src[st.Start:st.End]))
		switch {
		case strings.HasPrefix(line, "# >>> paddock hooks") && begin < 0:
			begin = i
		case strings.HasPrefix(line, "# <<< paddock hooks") && begin >= 0 && end < 0:
			end = i
		}
	}
	inOurs := make([]bool, len(stmts))
	for _, b := range blocks {
		if b.ours {
			for i := b.first; i <= b.last; i++ {
				inOurs[i] = true
			}
		}
	}
	// the whole marked region, when it holds nothing of the user's
	if begin >= 0 && end > begin {
		clean := true
		for i := begin + 1; i < end; i++ {
			if !inOurs[i] && stmts[i].Kind != tomlscan.Blank {
				clean = false
				break
			}
		}
		if clean {
			from := stmts[begin].Start
			if begin > 0 && stmts[begin-1].Kind == tomlscan.Blank {
				from = stmts[begin-1].Start
			}
			rest := tomlscan.Remove(src, [][2]int{{from, stmts[end].End}})
			// paddock tables outside the region too
			if s2, b2, err := k.scan(rest); err == nil {
				return k.removeBlocks(rest, s2, b2, -1, -1)
			}
			return rest
		}
	}
	return k.removeBlocks(src, stmts, blocks, begin, end)
}

// removeBlocks deletes paddock's tables one by one, and the marker lines.
func (k *tomlHooks) removeBlocks(src []byte, stmts []tomlscan.Stmt, blocks []tomlBlock, begin, end int) []byte {
	var ranges [][2]int
	for _, b := range blocks {
		if b.ours {
			ranges = append(ranges, [2]int{stmts[b.first].Start, stmts[b.last].End})
		}
	}
	for _, m := range []int{begin, end} {
		if m >= 0 {
			ranges = append(ranges, [2]int{stmts[m].Start, stmts[m].End})
		}
	}
	sortRanges(ranges)
	return tomlscan.Remove(src, ranges)
}

func sortRanges(r [][2]int) {
	slices.SortFunc(r, func(a, b [2]int) int { return a[0] - b[0] })
}

func (k *tomlHooks) edit(src []byte, install bool) (hookinstall.Edit, error) {
	stmts, blocks, err := k.scan(src)
	if err != nil {
		return hookinstall.Edit{}, err
	}
	res := hookinstall.Edit{Out: src}
	var have []string
	for _, b := range blocks {
		if b.ours {
			res.Ours++
			have = append(have, b.sig())
		} else {
			res.Foreign++
		}
	}
	if install && k.installed(have) {
		return res, nil
	}
	out := src
	if res.Ours > 0 || bytes.Contains(src, []byte("# >>> paddock hooks")) {
		out = k.remove(src, stmts, blocks)
	}
	if install {
		switch {
		case len(out) == 0:
			out = []byte(k.region())
		case out[len(out)-1] == '\n':
			out = append(append(bytes.Clone(out), '\n'), k.region()...)
		default:
			out = append(append(bytes.Clone(out), '\n', '\n'), k.region()...)
		}
	}
	// what paddock writes must still scan
	if _, _, err := k.scan(out); err != nil {
		return hookinstall.Edit{}, fmt.Errorf("internal error: the edited file would not parse (%v)", err)
	}
	res.Out = out
	return res, nil
}

func (k *tomlHooks) installed(have []string) bool {
	if len(have) != len(k.events) {
		return false
	}
	used := make([]bool, len(have))
	for _, e := range k.events {
		sig, hit := e.signature(), false
		for i, h := range have {
			if !used[i] && h == sig {
				used[i], hit = true, true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}
