package pi

import (
	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/usage"
)

// Agent is Pi as paddock knows it.
func Agent() agent.Agent {
	return agent.Agent{
		Name:     runtimeName,
		Label:    "Pi",
		Product:  "Pi",
		NewUsage: func(agent.Env) usage.Reader { return usageReader{} },
		NewScanner: func(e agent.Env) catalog.Scanner {
			o := Options{Dir: DefaultDir(), Processes: e.Processes, Logger: e.Logger}
			// Pi's processes hide their arguments: a hosted terminal's
			// session comes from the live state.
			if hosted := e.HostedSession; hosted != nil {
				o.TerminalSession = func(id string) string {
					if k, ok := hosted(id); ok && k.Runtime == runtimeName {
						return k.ID
					}
					return ""
				}
			}
			return New(o)
		},
		DecodeHook: decodePi,
		// Pi shows no permission dialog of its own (only the ones
		// paddock's extension reports), so timers would only produce
		// false approvals: no inference.
		HookRules: hookstate.Rules{},
		Decisions: policy(),
		HoldFlag:  &agent.HoldFlag{Name: "pi-hold", Usage: "gate Pi's tool calls (bash, edit, write, …) through the phone, each waiting at most this long before Pi goes on (0, the default: off; at most 10m)"},
		Install:   install(),
		UI:        agent.UI{DeskOnly: "Answer in Pi's terminal (start paddock with --pi-hold to gate Pi's tools from here).", Edit: edit},
		Launch:    Launch(),
		Process:   process(),
	}
}
