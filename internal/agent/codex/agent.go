package codex

import (
	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/usage"
)

// Agent is Codex CLI as paddock knows it.
func Agent() agent.Agent {
	return agent.Agent{
		Name:    runtimeName,
		Label:   "Codex",
		Product: "Codex",
		NewScanner: func(e agent.Env) catalog.Scanner {
			o := DefaultOptions()
			o.Processes, o.Logger, o.Snapshots = e.Processes, e.Logger, e.Snapshots
			return New(o)
		},
		NewUsage:   func(agent.Env) usage.Reader { return usageReader{} },
		DecodeHook: decodeCodex,
		// Its TUI fires SessionStart with the first prompt, not at
		// launch; it shows permission dialogs its hooks may not announce.
		HookRules: hookstate.Rules{ConnectingTimesOut: true, InferPermissions: true},
		Decisions: policy(),
		HoldFlag:  &agent.HoldFlag{Name: "codex-hold", Usage: "how long a Codex permission prompt (and a Cursor shell or MCP approval) waits for the phone before the agent asks in its own terminal (0: never held; at most 10m)"},
		Install:   install(),
		UI: agent.UI{
			DeskOnly: "Answer in Codex's terminal (paddock holds Codex's prompts only while a device was used in the last 15 minutes, up to --codex-hold).",
			ApprovalNote: func(until string) string {
				return "Codex shows its own prompt only after paddock answers or the hold ends (" + until + ")."
			},
			Edit: edit,
		},
		Launch:  Launch(),
		Process: process(),
		Screen:  dialogs(),
	}
}
