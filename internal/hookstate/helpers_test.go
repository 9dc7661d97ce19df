package hookstate_test

import (
	"paddock/internal/agent/registry"
	. "paddock/internal/hookstate"
	"testing"
	"time"
)

// t0 is the fake clock's origin; tests speak in offsets from it.
var t0 = time.Date(2026, 11, 29, 17, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

const (
	ms     = time.Millisecond
	sec    = time.Second
	minute = time.Minute
)

type evOpt func(*Event)

func ev(kind Kind, opts ...evOpt) Event {
	e := Event{Runtime: "claude", SessionID: "s1", Kind: kind}
	for _, o := range opts {
		o(&e)
	}
	return e
}

func tool(name string) evOpt        { return func(e *Event) { e.ToolName = name } }
func toolID(id string) evOpt        { return func(e *Event) { e.ToolUseID = id } }
func mode(m string) evOpt           { return func(e *Event) { e.PermissionMode = m } }
func agent(id string) evOpt         { return func(e *Event) { e.AgentID = id } }
func notif(typ string) evOpt        { return func(e *Event) { e.NotificationType = typ } }
func stamped(d time.Duration) evOpt { return func(e *Event) { e.Time = at(d) } }
func onRuntime(r string) evOpt      { return func(e *Event) { e.Runtime = r } }
func steer() evOpt                  { return func(e *Event) { e.Steer = true } }

// step is one thing that happens to a machine at an offset on the fake
// clock: an event arrives, or the owner ticks with facts; then the state
// must be want.
type step struct {
	at    time.Duration
	ev    *Event
	facts *Facts
	want  State
}

func apply(d time.Duration, e Event, want State) step { return step{at: d, ev: &e, want: want} }
func tick(d time.Duration, f Facts, want State) step  { return step{at: d, facts: &f, want: want} }

// run drives m through steps and checks the state after each. Ticks also
// check that NextDeadline never lies in the past afterwards (the owner
// would spin).
func run(t *testing.T, m *Machine, steps []step) {
	t.Helper()
	for i, s := range steps {
		now := at(s.at)
		if s.ev != nil {
			m.Apply(*s.ev, now)
		}
		if s.facts != nil {
			m.Tick(now, *s.facts)
			if d := m.NextDeadline(); !d.IsZero() && !d.After(now) {
				t.Fatalf("step %d (%v): NextDeadline %v is not after the tick", i, s.at, d.Sub(t0))
			}
		}
		if got := m.State(); got != s.want {
			what := "tick"
			if s.ev != nil {
				what = string(s.ev.Kind) + " " + s.ev.ToolName
			}
			t.Fatalf("step %d at %v (%s): state %s, want %s", i, s.at, what, got, s.want)
		}
	}
}

func newMachine(rt string, cfg Config) *Machine {
	return NewMachine(withRules(cfg), Options{Runtime: rt}, t0)
}

// agents are the agents paddock ships: their hook decoders and rules.
var agents = registry.Default()

// Decode reads one payload with the shipped agents' decoders.
func Decode(runtime, event string, payload []byte) (Event, error) {
	return agents.Decoders().Decode(runtime, event, payload)
}

// withRules is cfg with the shipped agents' rules, as serve configures
// the machines.
func withRules(cfg Config) Config {
	if cfg.Rules == nil {
		cfg.Rules = agents.HookRules()
	}
	return cfg
}
