package hookstate

import (
	"fmt"
	"slices"
	"time"
)

// Snapshot is the part of a machine worth persisting across a paddock
// restart: state, dialog and read baseline. In-flight tool timers and
// latency metrics are transient and start afresh.
type Snapshot struct {
	Runtime        string    `json:"runtime"`
	State          State     `json:"state"`
	Since          time.Time `json:"since"`
	PermissionMode string    `json:"permission_mode,omitempty"`
	Dialog         *Dialog   `json:"dialog,omitempty"`
	QuestionOpen   bool      `json:"question_open,omitempty"`
	LastResult     time.Time `json:"last_result,omitzero"`
	ReadBaseline   time.Time `json:"read_baseline,omitzero"`
}

// Snapshot captures the machine for persistence.
func (m *Machine) Snapshot() Snapshot {
	s := Snapshot{Runtime: m.runtime, State: m.state, Since: m.since, PermissionMode: m.mode,
		QuestionOpen: m.questionOpen, LastResult: m.lastResult, ReadBaseline: m.readBaseline}
	if m.dialogOpen {
		d := m.dialog
		s.Dialog = &d
	}
	return s
}

// Restore rebuilds a machine from a Snapshot. Its timers run from Since, so
// a Tick right after a restart applies the corrections due while paddock
// was down.
func Restore(cfg Config, s Snapshot) (*Machine, error) {
	if !slices.Contains(States(), s.State) {
		return nil, fmt.Errorf("hookstate: restore: unknown state %q", s.State)
	}
	m := NewMachine(cfg, Options{Runtime: s.Runtime}, s.Since)
	m.state = s.State
	m.stateAt = s.Since
	m.mode = s.PermissionMode
	m.questionOpen = s.QuestionOpen
	m.lastResult = s.LastResult
	m.readBaseline = latest(m.readBaseline, s.ReadBaseline)
	if s.State.NeedsUser() {
		d := Dialog{Kind: s.State, OpenedAt: s.Since}
		if s.Dialog != nil {
			d = *s.Dialog
			d.Kind = s.State
		}
		m.dialog, m.dialogOpen = d, true
		if d.Kind == StateInput {
			m.questionOpen = true
		}
	}
	return m, nil
}
