// Package hookchannel is both ends of the channel the agents' hooks talk
// to paddock through.
//
// The relay (relay.go) is `paddock hook`, the command every agent's hook
// configuration runs: it takes the hook payload (stdin, or the last
// argument for Codex's notify), adds what the agent leaves out (the
// agent's pid, its parent, tty, terminal and tmux pane, paddock's terminal
// id) under hookstate.RelayField, and posts it with the hook secret to the
// loopback listener of a running `paddock serve`. It must never stall or
// disturb the agent. Whatever goes wrong — no serve running, a stale
// serve.json, no secret, connection refused, no answer — it gives up
// within Timeout (100 ms from the command's start) and the command exits 0
// with no output: the agent goes on as if paddock were not there. The hook
// of an event whose stdout the agent would feed to the model
// (SessionStart, UserPromptSubmit) never prints, whatever the listener
// answers (RelayOptions.MayDecide). It stays cheap: it reads two small
// files from the data dir and opens no database, no certificate and no
// logger.
//
// The listener (handler.go, listen.go) receives events from the relay or
// straight from Claude Code's "type":"http" hooks, as POST
// /hook/{agent}[/{event}] with the per-install secret (secret.go) in the
// X-Paddock-Secret header, on a loopback address only. It must never trust
// what it is sent: the secret is compared in constant time, bodies are
// bounded, each payload is validated by the agent's decoder, and every
// rejection gets a clear status and is counted, never a panic. It never
// writes a body on success: Claude feeds a hook's answer to
// UserPromptSubmit (and SessionStart) to the model, so an accepted event
// is a bare 204. What is done with an event is the Sink's business (serve
// hands every event to the live state). An event that can carry a
// decision may be held by the Decider while the user answers on the
// phone: the listener then answers at once with the headers (200 and
// HoldHeader, so a relay knows to wait) and sends the decision as the body
// when it comes — or an empty body, "no decision", when the hold ends,
// and the agent's own prompt takes over.
//
// protocol.go holds what both ends agree on. Neither end ever logs or
// prints the secret or payload content (prompts, tool inputs): only names,
// kinds, ids and counts.
package hookchannel
