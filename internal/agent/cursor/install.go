package cursor

import (
	"path/filepath"

	"paddock/internal/hookinstall"
	"paddock/internal/hookinstall/jsonedit"
)

// Cursor's hooks live in ~/.cursor/hooks.json (version 1), one handler per
// event, each running the relay command.
var hookEvents = []struct {
	name    string
	timeout int
}{
	{"sessionStart", hookinstall.StatusTimeout},
	{"beforeSubmitPrompt", hookinstall.StatusTimeout},
	{"beforeShellExecution", hookinstall.DecisionTimeout},
	{"beforeMCPExecution", hookinstall.DecisionTimeout},
	{"afterAgentResponse", hookinstall.StatusTimeout},
	{"stop", hookinstall.StatusTimeout},
	{"sessionEnd", hookinstall.StatusTimeout},
}

func install() hookinstall.Spec {
	return hookinstall.Spec{
		Dir:     func(e *hookinstall.Env) string { return filepath.Join(e.Home(), ".cursor") },
		Targets: installTargets,
		Notes: func(*hookinstall.Env) []string {
			return []string{"Cursor reads ~/.cursor/hooks.json when it starts: restart Cursor (and cursor-agent) to pick up the change."}
		},
	}
}

func installTargets(e *hookinstall.Env, dir string, install bool) []hookinstall.Target {
	s := &jsonedit.Hooks{Nested: false, Ours: e.IsOurJSONHandler}
	for _, ev := range hookEvents {
		s.Events = append(s.Events, jsonedit.Event{Name: ev.name, Handler: jsonedit.Obj(
			"command", e.Command(runtimeName, ev.name), "timeout", ev.timeout)})
	}
	ts := []hookinstall.Target{{
		Path: filepath.Join(dir, "hooks.json"),
		Base: []byte("{\n  \"version\": 1\n}\n"),
		Mode: 0o600,
		Edit: func(src []byte, _, install bool) (hookinstall.Edit, error) {
			return hookinstall.JSONEdit(s, src, install)
		},
	}}
	if e.MCPTargets(install) {
		// Cursor's user-wide MCP servers, which the editor and the agent
		// CLI both read.
		ts = append(ts, e.MCPJSONTarget(filepath.Join(dir, "mcp.json"), "mcpServers", e.MCPCommand()))
	}
	return ts
}
