package hookchannel

import "paddock/internal/hookstate"

// The protocol between the two ends: where the listener is found, how a
// request is addressed and authenticated, and how a held decision is
// announced.
const (
	// StateFile is the file `paddock serve` writes in the data dir while
	// it runs; the relay reads its pid and hook port there.
	StateFile = "serve.json"
	// SecretHeader carries the per-install secret (the content of
	// SecretFile).
	SecretHeader = "X-Paddock-Secret"
	// PathPrefix is followed by the agent's name and, optionally, "/" and
	// the event name the hook was installed under.
	PathPrefix = "/hook/"
	// HoldHeader tells the relay that the listener holds the event for a
	// decision: the body follows within the number of seconds it gives.
	HoldHeader = "X-Paddock-Hold"
	// MaxBody is the largest payload accepted: hookstate's own limit.
	MaxBody = hookstate.MaxPayloadSize
)

// Headers a Claude http hook sends (hookinstall writes them with
// $VARIABLE values the agent expands from its environment); the relay
// puts the same facts into the payload instead.
const (
	headerTerminalID  = "X-Paddock-Terminal-Id"
	headerTmuxPane    = "X-Paddock-Tmux-Pane"
	headerTermProgram = "X-Paddock-Term-Program"
)
