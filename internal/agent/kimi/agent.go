package kimi

import (
	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
)

// Agent is Kimi Code as paddock knows it.
func Agent() agent.Agent {
	return agent.Agent{
		Name:    runtimeName,
		Label:   "Kimi",
		Product: "Kimi Code",
		NewScanner: func(e agent.Env) catalog.Scanner {
			o := DefaultOptions()
			o.Processes, o.Logger = e.Processes, e.Logger
			return New(o)
		},
		DecodeHook: decodeKimi,
		// Recorded on 2.1.0: Stop precedes SubagentStop when a subagent's
		// turn ends.
		HookRules: hookstate.Rules{InferPermissions: true, StopIncludesSubagents: true},
		Launch:    Launch(),
	}
}
