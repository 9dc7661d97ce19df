package hookstate

import "time"

// Attention is the card's dot, strongest first: waiting-for-answer > working >
// unread new result > none. It is derived from the hooks' own evidence and
// kept apart from State and from liveness (a live process alone never makes
// a session "working").
//
//   - answer: a structured dialog waits for the user — a permission dialog or
//     a question (AskUserQuestion, plan, OpenCode question, MCP elicitation).
//     A question stays unanswered through a Stop or turn completion (those
//     must not clear a pending question); only its answer, a new
//     prompt, an interrupt, the session's end, a gone process or the dialog
//     timeout clear it.
//   - working: the current turn runs (prompting or working).
//   - unread: a result token (Stop, turn completion, interrupt) newer than
//     the read baseline.
func (m *Machine) Attention() Attention {
	switch {
	case m.dialogOpen || m.questionOpen:
		return AttentionAnswer
	case m.state == StatePrompting || m.state == StateWorking:
		return AttentionWorking
	case m.lastResult.After(m.readBaseline):
		return AttentionUnread
	}
	return AttentionNone
}

// MarkRead moves the read baseline to now: results up to now are read. It
// reports whether the attention changed. The baseline never moves back.
func (m *Machine) MarkRead(now time.Time) (changed bool) {
	before := m.Attention()
	if now.After(m.readBaseline) {
		m.readBaseline = now
	}
	return m.Attention() != before
}

// ReadBaseline is the time up to which results count as read.
func (m *Machine) ReadBaseline() time.Time { return m.readBaseline }

// LastResult is the time of the newest result token, zero if none.
func (m *Machine) LastResult() time.Time { return m.lastResult }

func (m *Machine) result(at time.Time) {
	if at.After(m.lastResult) {
		m.lastResult = at
	}
}
