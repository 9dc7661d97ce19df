package hold

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/hookstate"
)

// Policy is how one agent takes decisions from the phone. Each agent's
// package states its own (internal/agent/<name>).
type Policy struct {
	// Events are the hook events whose answer the agent reads as a
	// decision. The relay waits for the listener's answer, and prints it,
	// only for these: an event whose stdout the agent feeds to the model
	// must never be one.
	Events []string
	// Hold is how long an item waits for the phone unless Options.Holds
	// says otherwise; 0 holds nothing.
	Hold time.Duration
	// Unwatched: held even when nobody used a device lately. Right for an
	// agent that shows its own dialog meanwhile, so that holding costs
	// nothing; wrong for one that waits for the hold.
	Unwatched bool
	// Held says whether a request of Events is held at all (watching: a
	// device was used lately); nil holds every one.
	Held func(ev hookstate.Event, r Request, watching bool) bool
	// MayHold is what the relay can tell from a payload of Events alone:
	// whether Held may hold it. Only then does the agent wait longer than
	// the fail-open budget for the listener; it must say yes wherever
	// Held may. nil: every event of Events may be held.
	MayHold func(event string, payload []byte) bool
	// Item is what the phone shows and may answer; Encode is the answer
	// in the agent's words (nil: no decision, the agent asks itself).
	Item   func(ev hookstate.Event, r Request) decisions.Item
	Encode func(r Request, out decisions.Outcome) []byte
	// Observe replaces all of the above for an agent that asks through a
	// server of its own rather than a hook that waits (OpenCode): it is
	// given every hook event of the agent and opens items itself.
	Observe func(ctx context.Context, ev hookstate.Event, payload []byte, h Host)
	// Scope spells out in words what "always" grants, from the item's
	// Suggestions; nil or "" when it cannot say.
	Scope func(suggestions json.RawMessage) string
}

// Host is what a Policy's Observe may use.
type Host struct {
	Broker Broker
	Log    *slog.Logger
	Now    func() time.Time
	jobs   chan<- func(context.Context)
}

// Go runs job on one of the Service's goroutines (job gets Run's
// context); false when too many are waiting already.
func (h Host) Go(job func(ctx context.Context)) bool {
	select {
	case h.jobs <- job:
		return true
	default:
		return false
	}
}

// DenyMessage is what an agent is told when the user denied without
// giving a reason.
const DenyMessage = "The user denied this from paddock."

// DenyText is the user's reason for a denial, or DenyMessage.
func DenyText(out decisions.Outcome) string {
	if out.Item.Message != "" {
		return out.Item.Message
	}
	return DenyMessage
}

// BaseItem is an approval of r's tool and input, with the reason the
// input gives (its description).
func BaseItem(r Request) decisions.Item {
	it := decisions.Item{Kind: decisions.KindApproval, Tool: r.Tool, ToolUseID: r.ToolUseID, Input: r.Input}
	var in struct {
		Description string `json:"description"`
	}
	if json.Unmarshal(r.Input, &in) == nil {
		it.Reason = in.Description
	}
	return it
}

// AllowOrDeny is an approval the agent takes as allow, or deny with a
// message: nothing else.
func AllowOrDeny(_ hookstate.Event, r Request) decisions.Item {
	it := BaseItem(r)
	it.Can = []string{decisions.VerbAllow, decisions.VerbDeny}
	return it
}

// Questions reads the questions of a question tool's input in the shape
// Claude Code's AskUserQuestion gives them (question, header,
// multiSelect, options with label and description).
func Questions(input json.RawMessage) []decisions.Question {
	var in struct {
		Questions []struct {
			Question    string `json:"question"`
			Header      string `json:"header"`
			MultiSelect bool   `json:"multiSelect"`
			Options     []struct {
				Label       string `json:"label"`
				Description string `json:"description"`
			} `json:"options"`
		} `json:"questions"`
	}
	_ = json.Unmarshal(input, &in)
	var out []decisions.Question
	for _, q := range in.Questions {
		pq := decisions.Question{Question: q.Question, Header: q.Header, MultiSelect: q.MultiSelect}
		for _, o := range q.Options {
			pq.Options = append(pq.Options, decisions.Option{Label: o.Label, Description: o.Description})
		}
		out = append(out, pq)
	}
	return out
}

// WithAnswers is a question's input with the answers beside its
// questions, keyed by question text (AskUserQuestion's own answer
// format); nil when the input is not an object.
func WithAnswers(input json.RawMessage, answers map[string]string) json.RawMessage {
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

// ProtocolDecision is the PermissionRequest hook's answer in the Claude
// hook protocol (Claude Code, Codex).
type ProtocolDecision struct {
	Behavior           string          `json:"behavior"`
	Message            string          `json:"message,omitempty"`
	UpdatedInput       json.RawMessage `json:"updatedInput,omitempty"`
	UpdatedPermissions json.RawMessage `json:"updatedPermissions,omitempty"`
}

// PermissionRequestOutput is d as the hook prints it.
func PermissionRequestOutput(d ProtocolDecision) []byte {
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest", "decision": d}})
	return b
}
