package hookstate

import (
	"slices"
	"time"

	"paddock/internal/session"
)

// Tracker holds one Machine per session key. It is as pure as Machine and
// as unsafe for concurrent use: the owner serialises every call. Matching
// an event to a card (in its fixed order) is the owner's job; the Tracker only
// applies events to the key it is given.
type Tracker struct {
	cfg      Config
	machines map[session.Key]*Machine
}

// NewTracker returns an empty tracker whose machines use cfg.
func NewTracker(cfg Config) *Tracker {
	return &Tracker{cfg: cfg.withDefaults(), machines: map[session.Key]*Machine{}}
}

// SetDensity changes the permission signals the machines use, the ones
// there are and the ones to come (the user changed the setting).
func (t *Tracker) SetDensity(d Density) {
	t.cfg.Density = d
	t.cfg = t.cfg.withDefaults()
	for _, m := range t.machines {
		m.cfg.Density = t.cfg.Density
	}
}

// Get returns the machine of key, or nil.
func (t *Tracker) Get(key session.Key) *Machine { return t.machines[key] }

// Len is the number of machines.
func (t *Tracker) Len() int { return len(t.machines) }

// Keys lists the keys, sorted.
func (t *Tracker) Keys() []session.Key {
	keys := make([]session.Key, 0, len(t.machines))
	for k := range t.machines {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, session.Key.Compare)
	return keys
}

// Open returns the machine of key, creating an idle one at now when there
// is none (a session found by a history or process scan).
func (t *Tracker) Open(key session.Key, now time.Time) (m *Machine, created bool) {
	if m := t.machines[key]; m != nil {
		return m, false
	}
	m = NewMachine(t.cfg, Options{Runtime: key.Runtime}, now)
	t.machines[key] = m
	return m, true
}

// Host records a hosted terminal under key (a session id, or a provisional
// key the owner Rekeys once the session id is known) and puts it in
// connecting until its first hook.
func (t *Tracker) Host(key session.Key, now time.Time) *Machine {
	m, created := t.Open(key, now)
	if created {
		m.state, m.stateAt = StateConnecting, now
	} else {
		m.MarkConnecting(now)
	}
	return m
}

// Apply feeds ev to the machine of key. For an unknown key it creates a
// machine only when the event is evidence of a live interactive session
// (SessionStart, a prompt, a tool call, a dialog, a notification) from the
// main agent; Stop, SessionEnd, turn completions and subagent events of
// unknown sessions are ignored (tracked == false).
func (t *Tracker) Apply(key session.Key, ev Event, now time.Time) (changed, tracked bool) {
	m := t.machines[key]
	if m == nil {
		if !ev.Kind.opensSession() || ev.AgentID != "" || key.ID == "" {
			return false, false
		}
		m, _ = t.Open(key, now)
		m.Apply(ev, now)
		return true, true
	}
	return m.Apply(ev, now), true
}

// Tick runs every machine's corrections at now with the facts the owner
// has per key (a missing key gets zero Facts). It returns the keys whose
// state or attention changed, sorted.
func (t *Tracker) Tick(now time.Time, facts map[session.Key]Facts) []session.Key {
	var changed []session.Key
	for k, m := range t.machines {
		if m.Tick(now, facts[k]) {
			changed = append(changed, k)
		}
	}
	slices.SortFunc(changed, session.Key.Compare)
	return changed
}

// NextDeadline is the earliest NextDeadline of all machines, zero if none.
func (t *Tracker) NextDeadline() time.Time {
	var next time.Time
	for _, m := range t.machines {
		if d := m.NextDeadline(); !d.IsZero() && (next.IsZero() || d.Before(next)) {
			next = d
		}
	}
	return next
}

// Rekey moves a machine to a new key (a provisional hosted terminal
// learning its session id; a session taking over a card after /clear).
// It refuses when from is unknown or to is taken.
func (t *Tracker) Rekey(from, to session.Key) bool {
	m := t.machines[from]
	if m == nil || t.machines[to] != nil {
		return false
	}
	delete(t.machines, from)
	if to.Runtime != m.runtime {
		m.runtime, m.spec = to.Runtime, t.cfg.rules(to.Runtime)
	}
	t.machines[to] = m
	return true
}

// Remove forgets a machine.
func (t *Tracker) Remove(key session.Key) bool {
	_, ok := t.machines[key]
	delete(t.machines, key)
	return ok
}

// Put adds a machine under key (one restored from a Snapshot); it refuses
// when key already has one.
func (t *Tracker) Put(key session.Key, m *Machine) bool {
	if m == nil || t.machines[key] != nil {
		return false
	}
	t.machines[key] = m
	return true
}
