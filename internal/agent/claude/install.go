package claude

import (
	"fmt"
	"path/filepath"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/jsonedit"
)

// Claude Code's hooks live in settings.json ($CLAUDE_CONFIG_DIR or
// ~/.claude): one matcher group per event, each running the relay command,
// or with http hooks (hookinstall.Options.HTTPHooks) posting straight to
// paddock's listener.

type hookEvent struct {
	name     string
	matcher  string
	timeout  int
	httpable bool // may use an http hook under HTTPHooks
}

// hookEvents are every event the state machine and the board use.
// SessionStart must stay a command hook: Claude does not fire http
// SessionStart hooks. The events paddock may hold for the phone
// (PermissionRequest, and PreToolUse for a question) stay command hooks
// too: Claude waits for an http hook as long as its timeout, one timeout
// per matcher group, so a hung paddock would stall every tool call; the
// relay instead tells from each payload whether it may be held and gives
// up within 100 ms when it may not. The http ones get that same budget
// (hookinstall.PostTimeout; Claude takes fractions of a second).
var hookEvents = []hookEvent{
	{"SessionStart", "", hookinstall.StatusTimeout, false},
	{"UserPromptSubmit", "", hookinstall.StatusTimeout, true},
	{"PreToolUse", "*", hookinstall.DecisionTimeout, false},
	{"PermissionRequest", "*", hookinstall.DecisionTimeout, false},
	{"PostToolUse", "*", hookinstall.StatusTimeout, true},
	{"PostToolUseFailure", "*", hookinstall.StatusTimeout, true},
	{"Notification", "", hookinstall.StatusTimeout, true},
	{"Stop", "", hookinstall.StatusTimeout, true},
	{"SubagentStart", "", hookinstall.StatusTimeout, false},
	{"SubagentStop", "", hookinstall.StatusTimeout, false},
	{"PreCompact", "", hookinstall.StatusTimeout, false},
	{"SessionEnd", "", hookinstall.StatusTimeout, false},
}

// envHeaders are forwarded by Claude's http hooks (only variables named in
// allowedEnvVars expand); the command relay reads them from its env.
var envHeaders = []struct{ header, env string }{
	{"X-Paddock-Terminal-Id", "PADDOCK_TERMINAL_ID"},
	{"X-Paddock-Tmux-Pane", "TMUX_PANE"},
	{"X-Paddock-Term-Program", "TERM_PROGRAM"},
}

func install() hookinstall.Spec {
	return hookinstall.Spec{
		Dir:     func(e *hookinstall.Env) string { return e.EnvDir("CLAUDE_CONFIG_DIR", ".claude") },
		Targets: installTargets,
		Notes:   installNotes,
	}
}

func hooks(e *hookinstall.Env) *jsonedit.Hooks {
	s := &jsonedit.Hooks{Nested: true, Ours: e.IsOurJSONHandler}
	for _, ev := range hookEvents {
		var h jsonedit.Object
		if e.HTTPHooks() && ev.httpable {
			headers := jsonedit.Obj("X-Paddock-Secret", e.Secret())
			var allowed []string
			for _, eh := range envHeaders {
				headers = append(headers, jsonedit.Field{Key: eh.header, Value: "$" + eh.env})
				allowed = append(allowed, eh.env)
			}
			h = jsonedit.Obj(
				"type", "http",
				"url", fmt.Sprintf("http://127.0.0.1:%d/hook/%s", e.HookPort(), runtimeName),
				"timeout", hookinstall.PostTimeout,
				"headers", headers,
				"allowedEnvVars", allowed,
			)
		} else {
			h = jsonedit.Obj("type", "command", "command", e.Command(runtimeName, ev.name), "timeout", ev.timeout)
		}
		s.Events = append(s.Events, jsonedit.Event{Name: ev.name, Matcher: ev.matcher, Handler: h})
	}
	return s
}

func installTargets(e *hookinstall.Env, dir string, install bool) []hookinstall.Target {
	s := hooks(e)
	ts := []hookinstall.Target{{
		Path: filepath.Join(dir, "settings.json"),
		Base: []byte("{}\n"),
		Mode: 0o600,
		Edit: func(src []byte, _, install bool) (hookinstall.Edit, error) {
			res, err := hookinstall.JSONEdit(s, src, install)
			if err != nil {
				return res, err
			}
			res.Secret = install && e.HTTPHooks()
			if root, _ := jsonedit.Parse(src); install && root != nil && string(jsonedit.Raw(src, root.Get("disableAllHooks"))) == "true" {
				res.Notes = append(res.Notes, `settings.json has "disableAllHooks": true: Claude Code runs no hooks, paddock's included, until it is removed`)
			}
			return res, nil
		},
	}}
	if e.MCPTargets(install) {
		// The entry `claude mcp add --scope user` writes.
		entry := append(jsonedit.Obj("type", "stdio"), append(e.MCPCommand(), jsonedit.Field{Key: "env", Value: jsonedit.Obj()})...)
		ts = append(ts, e.MCPJSONTarget(mcpConfig(e, dir), "mcpServers", entry))
	}
	return ts
}

// mcpConfig is where Claude Code keeps its user-wide MCP servers: the
// .claude.json in $CLAUDE_CONFIG_DIR when that is set, else in the home
// directory (not in ~/.claude).
func mcpConfig(e *hookinstall.Env, dir string) string {
	if e.Getenv("CLAUDE_CONFIG_DIR") != "" {
		return filepath.Join(dir, ".claude.json")
	}
	return filepath.Join(e.Home(), ".claude.json")
}

func installNotes(e *hookinstall.Env) []string {
	n := []string{"Claude Code reads its hooks when a session starts: restart running sessions to pick up the change."}
	if e.HTTPHooks() {
		n = append(n, "UserPromptSubmit, PostToolUse(Failure), Notification and Stop post straight to paddock's listener (http hooks, given up after 95 ms); "+
			"their secret header sits in settings.json, which paddock keeps at mode 0600. Everything else runs the relay command, "+
			"PreToolUse and PermissionRequest included: only the relay can tell a prompt paddock may hold from one it must let through at once.")
	} else {
		n = append(n, "Every event runs paddock's relay command, which reads the hook secret from paddock's data dir; no secret is written into settings.json.")
	}
	if e.MCP() {
		n = append(n, "paddock's MCP server is registered in "+mcpConfig(e, e.EnvDir("CLAUDE_CONFIG_DIR", ".claude"))+" (mcpServers.paddock): new sessions load it; `claude mcp list` shows it. Claude Code rewrites that file itself: edit it while no Claude Code runs, or check afterwards.")
	}
	return n
}
