package kimi

import (
	"encoding/json"

	"paddock/internal/approvals"
	"paddock/internal/hookstate"
	"paddock/internal/pending"
)

// Kimi Code 2.1.0 awaits its PreToolUse hook before its own prompt and
// takes only a deny from it ("allow" is ignored): paddock holds a tool
// call (with --kimi-hold) for a deny from the phone, or lets Kimi ask.
// Read-only tools are never held.
func decisions() approvals.Policy {
	return approvals.Policy{
		Events: []string{"PreToolUse"},
		Held:   func(_ hookstate.Event, r approvals.Request, _ bool) bool { return !readOnly[r.Tool] },
		Item:   approvals.AllowOrDeny,
		Encode: encode,
	}
}

// readOnly are Kimi's tools that change nothing.
var readOnly = map[string]bool{"ReadFile": true, "Glob": true, "Grep": true, "SearchWeb": true, "FetchURL": true, "ReadMediaFile": true}

// encode: a deny blocks the call with the user's words (verified on
// 2.1.0: no prompt, the tool result is the reason); anything else is no
// decision, and Kimi shows its own prompt.
func encode(_ approvals.Request, out pending.Outcome) []byte {
	if out.Item.Resolution != pending.Denied {
		return nil
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": approvals.DenyText(out)}})
	return b
}
