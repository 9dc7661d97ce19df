package codex

import (
	"time"

	"paddock/internal/approvals"
	"paddock/internal/pending"
)

// Codex shows its own prompt only once the PermissionRequest hook
// returned, so a prompt is held only while someone may answer on the
// phone, and only as long as the hold (default 2 min, --codex-hold). It
// takes allow, or deny with a message, and nothing else: never updated
// input or permissions.
const defaultHold = 120 * time.Second

func decisions() approvals.Policy {
	return approvals.Policy{
		Events: []string{"PermissionRequest"},
		Hold:   defaultHold,
		Item:   approvals.AllowOrDeny,
		Encode: encode,
	}
}

func encode(_ approvals.Request, out pending.Outcome) []byte {
	switch out.Item.Resolution {
	case pending.Allowed:
		return approvals.PermissionRequestOutput(approvals.ProtocolDecision{Behavior: "allow"})
	case pending.Denied:
		return approvals.PermissionRequestOutput(approvals.ProtocolDecision{Behavior: "deny", Message: approvals.DenyText(out)})
	}
	return nil
}
