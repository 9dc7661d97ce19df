package opencode

import (
	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/usage"
)

// Agent is OpenCode as paddock knows it.
func Agent() agent.Agent {
	return agent.Agent{
		Name:    runtimeName,
		Label:   "OpenCode",
		Product: "OpenCode",
		NewScanner: func(e agent.Env) catalog.Scanner {
			o := DefaultOptions()
			o.Processes, o.Logger, o.Snapshots = e.Processes, e.Logger, e.Snapshots
			return New(o)
		},
		NewUsage: func(e agent.Env) usage.Reader {
			o := DefaultOptions()
			o.Logger, o.Snapshots = e.Logger, e.Snapshots
			return usageReader{s: New(o)}
		},
		DecodeHook: decodeOpenCode,
		HookRules:  hookstate.Rules{InferPermissions: true},
		Decisions:  policy(),
		Install:    install(),
		Screen:     dialogs(),
		Launch:     Launch(),
		Process:    process(),
		UI:         agent.UI{Edit: edit},
	}
}
