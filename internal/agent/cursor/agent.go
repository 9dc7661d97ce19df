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
			o.Processes, o.Logger = e.Processes, e.Logger
			return New(o)
		},
		DecodeHook: decodeCursor,
		HookRules:  hookstate.Rules{InferPermissions: true},
		Decisions:  decisions(),
		HoldFlag:   &agent.HoldFlag{Name: "codex-hold"}, // held as long as a Codex prompt
		Launch:     Launch(),
		Process:    process(),
	}
}
