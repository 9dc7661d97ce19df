package pi

import (
	"encoding/json"

	"paddock/internal/approvals"
	"paddock/internal/hookstate"
	"paddock/internal/pending"
)

// paddock's Pi extension waits for paddock before a tool runs, which gates
// Pi's tool calls through the phone — only with --pi-hold: Pi itself asks
// nothing before running a tool, and holding every call would stop it
// when nobody answers. Read-only tools are never held.
func decisions() approvals.Policy {
	return approvals.Policy{
		Events: []string{"tool_call"},
		Held:   func(_ hookstate.Event, r approvals.Request, _ bool) bool { return !readOnly[r.Tool] },
		Item:   approvals.AllowOrDeny,
		Encode: encode,
	}
}

// readOnly are Pi's tools that change nothing.
var readOnly = map[string]bool{"read": true, "grep": true, "find": true, "ls": true}

// encode answers the extension: {"block":true,"reason":…} blocks the tool
// call; no output lets it run.
func encode(_ approvals.Request, out pending.Outcome) []byte {
	if out.Item.Resolution != pending.Denied {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"block": true, "reason": approvals.DenyText(out)})
	return b
}
