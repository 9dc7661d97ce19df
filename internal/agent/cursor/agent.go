package cursor

import (
	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
)

// Agent is Cursor Agent CLI as paddock knows it (from its documented
// formats: it cannot be installed here).
func Agent() agent.Agent {
	return agent.Agent{
		Name:    runtimeName,
		Label:   "Cursor",
		Product: "Cursor",
		NewScanner: func(e agent.Env) catalog.Scanner {
			o := DefaultOptions()
			o.Processes, o.Logger, o.Snapshots = e.Processes, e.Logger, e.Snapshots
			return New(o)
		},
		DecodeHook: decodeCursor,
		HookRules:  hookstate.Rules{InferPermissions: true},
		Decisions:  policy(),
		HoldFlag:   &agent.HoldFlag{Name: "codex-hold"}, // held as long as a Codex prompt
		Install:    install(),
		UI: agent.UI{
			DeskOnly: "Answer in Cursor: it has no question hook paddock can answer.",
			ApprovalNote: func(until string) string {
				return "Cursor waits for paddock; if nobody answers by " + until + ", Cursor asks in its own window."
			},
		},
		Launch:  Launch(),
		Process: process(),
	}
}
