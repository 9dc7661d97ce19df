package cursor

import (
	"encoding/json"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// Cursor (from its documentation; the CLI cannot be installed here) waits
// for beforeShellExecution and beforeMCPExecution before running the
// command, and asks its user itself once they answer "ask": a prompt is
// held only while someone may answer on the phone, as long as a Codex
// prompt (--codex-hold).
const defaultHold = 120 * time.Second

func policy() hold.Policy {
	return hold.Policy{
		Events: []string{"beforeShellExecution", "beforeMCPExecution"},
		Hold:   defaultHold,
		Item:   item,
		Encode: encode,
	}
}

// item: a shell command (its full text) or an MCP call (tool, its JSON
// parameters, the server's URL); Cursor takes allow or deny.
func item(_ hookstate.Event, r hold.Request) decisions.Item {
	it := decisions.Item{Kind: decisions.KindApproval, Tool: r.Tool, ToolUseID: r.ToolUseID, Can: []string{decisions.VerbAllow, decisions.VerbDeny}}
	in := map[string]any{}
	if r.Command != "" {
		in["command"] = r.Command
		if it.Tool == "" {
			it.Tool = "Shell"
		}
	}
	if string(r.Input) != "{}" {
		in["tool_input"] = r.Input
	}
	if r.URL != "" {
		in["url"] = r.URL
	}
	it.Input, _ = json.Marshal(in)
	if it.Tool == "" {
		it.Tool = "MCP"
	}
	return it
}

// encode answers in Cursor's snake_case. Without a decision from the
// phone (the hold ended) it answers "ask": Cursor then asks its user
// itself — an empty answer could be taken as allow.
func encode(_ hold.Request, out decisions.Outcome) []byte {
	d := map[string]string{"permission": "ask"}
	switch out.Item.Resolution {
	case decisions.Allowed:
		d["permission"] = "allow"
	case decisions.Denied:
		msg := hold.DenyText(out)
		d["permission"], d["user_message"], d["agent_message"] = "deny", msg, msg
	}
	b, _ := json.Marshal(d)
	return b
}
