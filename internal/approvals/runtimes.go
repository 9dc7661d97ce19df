package approvals

import (
	"encoding/json"

	"paddock/internal/hookstate"
	"paddock/internal/pending"
)

// runtime is one agent's decision hook: which event carries it, what the
// phone may answer, and how the answer is written back.
type runtime struct {
	events []string
	item   func(ev hookstate.Event, r request) pending.Item
	encode func(r request, out pending.Outcome) []byte
}

var runtimes = map[string]runtime{
	hookstate.RuntimeClaude: {events: []string{"PermissionRequest", "PreToolUse"}, item: claudeItem, encode: claudeEncode},
	hookstate.RuntimeCodex:  {events: []string{"PermissionRequest"}, item: codexItem, encode: codexEncode},
	hookstate.RuntimePi:     {events: []string{"tool_call"}, item: codexItem, encode: piEncode},
	// Kimi Code 2.1.0 awaits PreToolUse before its own prompt, and takes
	// only a deny from it ("allow" is ignored): deny, or let it ask.
	hookstate.RuntimeKimi: {events: []string{"PreToolUse"}, item: codexItem, encode: kimiEncode},
	// Cursor (from its documentation; the CLI cannot be installed here):
	// it waits for these hooks before running the command.
	hookstate.RuntimeCursor: {events: []string{"beforeShellExecution", "beforeMCPExecution"}, item: cursorItem, encode: cursorEncode},
}

// Claude Code tools with a card of their own.
const (
	toolQuestion = "AskUserQuestion"
	toolPlan     = "ExitPlanMode"
)

func baseItem(ev hookstate.Event, r request) pending.Item {
	it := pending.Item{Kind: pending.KindApproval, Tool: r.Tool, ToolUseID: r.ToolUseID, Input: r.Input}
	var in input
	if json.Unmarshal(r.Input, &in) == nil {
		it.Reason = in.Description
	}
	return it
}

// claudeItem: an approval (allow, deny, and "always" when Claude offered
// permanent rules), a question card for AskUserQuestion, a plan card for
// ExitPlanMode.
func claudeItem(ev hookstate.Event, r request) pending.Item {
	it := baseItem(ev, r)
	switch r.Tool {
	case toolQuestion:
		var in input
		_ = json.Unmarshal(r.Input, &in)
		it.Kind, it.Can, it.FreeText = pending.KindQuestion, []string{pending.VerbAnswer, pending.VerbDeny}, true
		for _, q := range in.Questions {
			pq := pending.Question{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
			for _, o := range q.Options {
				pq.Options = append(pq.Options, pending.Option{Label: o.Label, Description: o.Description})
			}
			it.Questions = append(it.Questions, pq)
		}
	case toolPlan:
		it.Kind, it.Can = pending.KindPlan, []string{pending.VerbAllow, pending.VerbDeny}
	default:
		it.Can = []string{pending.VerbAllow, pending.VerbDeny}
		if len(r.Suggestions) > 0 && string(r.Suggestions) != "[]" {
			it.Suggestions = r.Suggestions
			it.Can = append(it.Can, pending.VerbAlways)
		}
	}
	return it
}

// claudeDecision is the PermissionRequest hook's answer.
type claudeDecision struct {
	Behavior           string          `json:"behavior"`
	Message            string          `json:"message,omitempty"`
	UpdatedInput       json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedPermissions json.RawMessage `json:"updatedPermissions,omitempty"`
}

func permissionRequestOutput(d claudeDecision) []byte {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest", "decision": d}})
	return b
}

// denyMessage is what the agent is told when the user gave no reason.
const denyMessage = "The user denied this from paddock."

func claudeEncode(r request, out pending.Outcome) []byte {
	if r.Event == "PreToolUse" {
		return preToolUseEncode(r, out)
	}
	switch out.Item.Resolution {
	case pending.Allowed:
		return permissionRequestOutput(claudeDecision{Behavior: "allow"})
	case pending.Always:
		return permissionRequestOutput(claudeDecision{Behavior: "allow", UpdatedPermissions: r.Suggestions})
	case pending.Denied:
		msg := out.Item.Message
		if msg == "" {
			msg = denyMessage
			if out.Item.Kind == pending.KindPlan {
				msg = "The user wants you to keep planning."
			}
		}
		return permissionRequestOutput(claudeDecision{Behavior: "deny", Message: msg})
	case pending.Answered:
		// updatedInput replaces the whole input: the original questions
		// with the answers beside them, keyed by question text.
		updated := withAnswers(r.Input, out.Item.Answers)
		if updated == nil {
			return nil
		}
		return permissionRequestOutput(claudeDecision{Behavior: "allow", UpdatedInput: updated})
	}
	return nil // answered at the desk, expired, withdrawn: no decision
}

// codexItem: Codex (and Pi) take allow, or deny with a message — never
// updated input or permissions.
func codexItem(ev hookstate.Event, r request) pending.Item {
	it := baseItem(ev, r)
	it.Can = []string{pending.VerbAllow, pending.VerbDeny}
	return it
}

func codexEncode(r request, out pending.Outcome) []byte {
	switch out.Item.Resolution {
	case pending.Allowed:
		return permissionRequestOutput(claudeDecision{Behavior: "allow"})
	case pending.Denied:
		msg := out.Item.Message
		if msg == "" {
			msg = denyMessage
		}
		return permissionRequestOutput(claudeDecision{Behavior: "deny", Message: msg})
	}
	return nil
}

// piEncode answers paddock's Pi extension: {"block":true,"reason":…}
// blocks the tool call; no output lets it run.
func piEncode(r request, out pending.Outcome) []byte {
	if out.Item.Resolution != pending.Denied {
		return nil
	}
	msg := out.Item.Message
	if msg == "" {
		msg = denyMessage
	}
	b, _ := json.Marshal(map[string]any{"block": true, "reason": msg})
	return b
}

// cursorItem: a shell command (its full text) or an MCP call (tool, its
// JSON parameters, the server's URL); Cursor takes allow or deny.
func cursorItem(ev hookstate.Event, r request) pending.Item {
	it := pending.Item{Kind: pending.KindApproval, Tool: r.Tool, ToolUseID: r.ToolUseID, Can: []string{pending.VerbAllow, pending.VerbDeny}}
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

// cursorEncode answers beforeShellExecution / beforeMCPExecution in
// Cursor's snake_case. Without a decision from the phone (the hold ended)
// it answers "ask": Cursor then asks its user itself — an empty answer
// could be taken as allow.
func cursorEncode(r request, out pending.Outcome) []byte {
	d := map[string]string{"permission": "ask"}
	switch out.Item.Resolution {
	case pending.Allowed:
		d["permission"] = "allow"
	case pending.Denied:
		msg := out.Item.Message
		if msg == "" {
			msg = denyMessage
		}
		d["permission"], d["user_message"], d["agent_message"] = "deny", msg, msg
	}
	b, _ := json.Marshal(d)
	return b
}

// kimiEncode: a deny blocks the call with the user's words (verified on
// 2.1.0: no prompt, the tool result is the reason); anything else is no
// decision, and Kimi shows its own prompt.
func kimiEncode(r request, out pending.Outcome) []byte {
	if out.Item.Resolution != pending.Denied {
		return nil
	}
	msg := out.Item.Message
	if msg == "" {
		msg = denyMessage
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": msg}})
	return b
}

// preToolUseEncode answers an AskUserQuestion intercepted at PreToolUse
// (permission modes with no PermissionRequest for questions): allow with
// the answers in updatedInput, or deny; nothing else lets Claude show the
// question in its terminal.
func preToolUseEncode(r request, out pending.Outcome) []byte {
	o := map[string]any{"hookEventName": "PreToolUse"}
	switch out.Item.Resolution {
	case pending.Answered:
		updated := withAnswers(r.Input, out.Item.Answers)
		if updated == nil {
			return nil
		}
		o["permissionDecision"], o["updatedInput"] = "allow", updated
	case pending.Denied:
		msg := out.Item.Message
		if msg == "" {
			msg = denyMessage
		}
		o["permissionDecision"], o["permissionDecisionReason"] = "deny", msg
	default:
		return nil
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": o})
	return b
}

// withAnswers is a question's input with the answers beside its
// questions, keyed by question text (the tool's own answer format).
func withAnswers(input json.RawMessage, answers map[string]string) json.RawMessage {
	var in map[string]json.RawMessage
	if json.Unmarshal(input, &in) != nil || in == nil {
		return nil
	}
	a, err := json.Marshal(answers)
	if err != nil {
		return nil
	}
	in["answers"] = a
	b, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	return b
}
