// Package push sends Web Push notifications to paired phones when an
// agent needs them: one notification per waiting approval or question,
// after the device's escalation delay, replaced by a "close" when the item
// is resolved anywhere. Payloads are encrypted end to end (RFC 8291, by
// webpush-go) and signed with this paddock's VAPID key; they name the
// agent, project and a short summary, and carry a capability that lets
// that one device decide that one item from the notification, once.
package push
