package hookstate

import (
	"fmt"
	"maps"
	"slices"
)

// Rules are what the machine needs to know about an agent beyond its
// events. Each agent's package states its own (internal/agent/<name>).
type Rules struct {
	// ConnectingTimesOut: connecting turns into idle after ConnectingIdle,
	// for agents that may fire nothing until their first prompt (Codex's
	// TUI sends SessionStart with it).
	ConnectingTimesOut bool
	// InferPermissions: the agent shows permission dialogs its hooks may
	// not announce, so a tool call that stays open past its timeout is
	// taken for one. An agent with no dialogs of its own would only get
	// false approvals from the timers.
	InferPermissions bool
	// StopIncludesSubagents: the agent fires Stop when a subagent's turn
	// ends as well (before SubagentStop), so a Stop while a subagent runs
	// is not the main turn's end.
	StopIncludesSubagents bool
}

// DefaultRules are the rules of an agent Config.Rules does not list.
var DefaultRules = Rules{InferPermissions: true}

// Decoder turns one agent's hook payload (a JSON object) into an Event.
// installed is the event name the hook was installed under; the payload's
// own name wins when both are present. It must never panic: a wrong type
// or JSON null in a required field is a *FieldError, in an optional one
// it reads as absent.
type Decoder func(installed string, f Fields) (Event, error)

// Decoders are the agents' hook decoders, by agent name.
type Decoders map[string]Decoder

// Names lists the agents d decodes, sorted.
func (d Decoders) Names() []string { return slices.Sorted(maps.Keys(d)) }

// Decode validates and normalises one raw hook payload of runtime (see
// Decoder); ErrUnknownRuntime when d has no decoder for it.
func (d Decoders) Decode(runtime, eventName string, payload []byte) (Event, error) {
	dec := d[runtime]
	if dec == nil {
		return Event{}, fmt.Errorf("%w %q", ErrUnknownRuntime, runtime)
	}
	return decode(dec, runtime, eventName, payload)
}
