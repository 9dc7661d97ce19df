package kimi

import (
	"encoding/json"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// Kimi Code 2.1.0 awaits its PreToolUse hook before its own prompt and
// takes only a deny from it ("allow" is ignored): paddock holds a tool
// call (with --kimi-hold) for a deny from the phone, or lets Kimi ask.
// Read-only tools are never held.
func policy() hold.Policy {
	return hold.Policy{
		Events: []string{"PreToolUse"},
		Held:   func(_ hookstate.Event, r hold.Request, _ bool) bool { return !readOnly[r.Tool] },
		Item:   hold.AllowOrDeny,
		Encode: encode,
	}
}

// readOnly are Kimi's tools that change nothing.
var readOnly = map[string]bool{"ReadFile": true, "Glob": true, "Grep": true, "SearchWeb": true, "FetchURL": true, "ReadMediaFile": true}

// encode: a deny blocks the call with the user's words (verified on
// 2.1.0: no prompt, the tool result is the reason); anything else is no
// decision, and Kimi shows its own prompt.
func encode(_ hold.Request, out decisions.Outcome) []byte {
	if out.Item.Resolution != decisions.Denied {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": hold.DenyText(out)}})
	return b
}
