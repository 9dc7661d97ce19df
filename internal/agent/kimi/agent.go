package kimi

import (
	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/usage"
)

// Agent is Kimi Code as paddock knows it.
func Agent() agent.Agent {
	return agent.Agent{
		Name:     runtimeName,
		Label:    "Kimi",
		Product:  "Kimi Code",
		NewUsage: func(agent.Env) usage.Reader { return usageReader{} },
		NewScanner: func(e agent.Env) catalog.Scanner {
			o := DefaultOptions()
			o.Processes, o.Logger = e.Processes, e.Logger
			return New(o)
		},
		DecodeHook: decodeKimi,
		// Recorded on 2.1.0: Stop precedes SubagentStop when a subagent's
		// turn ends.
		HookRules: hookstate.Rules{InferPermissions: true, StopIncludesSubagents: true},
		Decisions: policy(),
		Screen:    dialogs(),
		HoldFlag:  &agent.HoldFlag{Name: "kimi-hold", Usage: "hold Kimi Code's tool calls this long each for a deny from the phone (Kimi takes no remote approval: \"let it run\" makes it ask in its terminal; 0, the default: off; at most 10m)"},
		Install:   install(),
		UI: agent.UI{
			DeskOnly:   "Kimi Code takes no approval from outside: answer in its terminal (sessions paddock hosts are answered from here; --kimi-hold lets you deny).",
			Busy:       "The agent is working: Kimi Code takes what you send now as steering for the running turn.",
			AllowLabel: "Let it run",
			Allowed:    "Let it run: Kimi asks in its terminal",
			ApprovalNote: func(string) string {
				return "Kimi Code takes no approval from outside: Deny stops this call; Let it run makes Kimi ask in its own terminal."
			},
			Edit: edit,
		},
		Launch:  Launch(),
		Process: process(),
	}
}
