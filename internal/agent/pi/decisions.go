package pi

import (
	"encoding/json"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// paddock's Pi extension waits for paddock before a tool runs, which gates
// Pi's tool calls through the phone — only with --pi-hold: Pi itself asks
// nothing before running a tool, and holding every call would stop it
// when nobody answers. Read-only tools are never held.
func policy() hold.Policy {
	return hold.Policy{
		Events: []string{"tool_call"},
		Held:   func(_ hookstate.Event, r hold.Request, _ bool) bool { return !readOnly[r.Tool] },
		Item:   hold.AllowOrDeny,
		Encode: encode,
	}
}

// readOnly are Pi's tools that change nothing.
var readOnly = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// encode answers the extension: {"block":true,"reason":…} blocks the tool
// call; no output lets it run.
func encode(_ hold.Request, out decisions.Outcome) []byte {
	if out.Item.Resolution != decisions.Denied {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"block": true, "reason": hold.DenyText(out)})
	return b
}
