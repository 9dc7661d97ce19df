package codex

import (
	"time"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
)

// Codex shows its own prompt only once the PermissionRequest hook
// returned, so a prompt is held only while someone may answer on the
// phone, and only as long as the hold (default 2 min, --codex-hold). It
// takes allow, or deny with a message, and nothing else: never updated
// input or permissions.
const defaultHold = 120 * time.Second

func policy() hold.Policy {
	return hold.Policy{
		Events: []string{"PermissionRequest"},
		Hold:   defaultHold,
		Item:   hold.AllowOrDeny,
		Encode: encode,
	}
}

func encode(_ hold.Request, out decisions.Outcome) []byte {
	switch out.Item.Resolution {
	case decisions.Allowed:
		return hold.PermissionRequestOutput(hold.ProtocolDecision{Behavior: "allow"})
	case decisions.Denied:
		return hold.PermissionRequestOutput(hold.ProtocolDecision{Behavior: "deny", Message: hold.DenyText(out)})
	}
	return nil
}
