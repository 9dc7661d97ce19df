package claude

import (
	"fmt"
	"testing"

	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// TestMayHoldCoversHeld: the relay gives the listener its longer budget
// wherever the listener may hold (mayHold says yes whenever held might),
// and an ordinary tool call's PreToolUse is never one of them.
func TestMayHoldCoversHeld(t *testing.T) {
	for _, event := range []string{"PreToolUse", "PermissionRequest"} {
		for _, tool := range []string{"Bash", "Edit", toolQuestion, toolPlan} {
			for _, mode := range []string{"default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"} {
				payload := fmt.Appendf(nil, `{"hook_event_name":%q,"tool_name":%q,"permission_mode":%q,"tool_input":{}}`, event, tool, mode)
				ev := hookstate.Event{Name: event, PermissionMode: mode}
				r := hold.Request{Tool: tool, Event: event}
				if held(ev, r, true) && !mayHold(event, payload) {
					t.Errorf("%s %s in %s: held, but the relay would not wait", event, tool, mode)
				}
				if event == "PreToolUse" && tool != toolQuestion && mayHold(event, payload) {
					t.Errorf("%s %s in %s: the relay waits for an event never held", event, tool, mode)
				}
			}
		}
	}
}
