package hosted

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/procscan"
	"paddock/internal/tmux"
)

// StallAfter is how long a working session may go without output or a
// hook before health calls it stalled.
const StallAfter = 5 * time.Minute

// Health is a hosted session's health: whether its window and agent still
// run, when it last showed signs of life, and whether it looks stalled.
type Health struct {
	Alive        bool      `json:"alive"`         // the window exists and its program runs
	Window       bool      `json:"window"`        // the window exists (perhaps with an exited program)
	AgentRunning bool      `json:"agent_running"` // the agent process runs
	Command      string    `json:"pane_command,omitempty"`
	State        string    `json:"state"`
	Transcript   bool      `json:"has_transcript"`
	LastActivity time.Time `json:"last_activity,omitzero"` // newest of the pane's output and the last hook
	Age          string    `json:"age"`
	Stalled      bool      `json:"stalled"`
	Hint         string    `json:"hint,omitempty"`
	// Tmux is paddock's tmux server: its crashes and the sessions
	// recovered or lost with them.
	Tmux TmuxHealth `json:"tmux"`
}

// Health reports on a hosted session at now.
func (m *Manager) Health(ctx context.Context, c live.Card, now time.Time) (Health, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Health{}, err
	}
	h := Health{State: string(c.State), Age: now.Sub(t.started).Round(time.Second).String(), LastActivity: c.LastEvent, Tmux: m.Tmux()}
	if c.Transcript != "" {
		if _, err := os.Stat(c.Transcript); err == nil {
			h.Transcript = true
		}
	}
	in, err := m.paneStatus(ctx, t)
	switch {
	case errors.Is(err, tmux.ErrNoPane), errors.Is(err, tmux.ErrNoServer):
		h.Hint = "Its terminal is gone: the agent exited or was killed. Resume brings it back."
		return h, nil
	case err != nil:
		return h, err
	}
	h.Window, h.Alive, h.Command = true, !in.Dead, in.Command
	h.AgentRunning = !in.Dead && procscan.Alive(t.pane.PID)
	if in.Activity.After(h.LastActivity) {
		h.LastActivity = in.Activity
	}
	switch {
	case in.Dead:
		h.Hint = "The agent exited; its last screen is kept. Resume starts it again."
	case (c.State == hookstate.StateWorking || c.State == hookstate.StatePrompting) && !h.LastActivity.IsZero() && now.Sub(h.LastActivity) > StallAfter:
		h.Stalled = true
		h.Hint = fmt.Sprintf("No output and no hook for %s while working: look at the terminal; Ctrl-C interrupts, Kill and Resume restart it.",
			now.Sub(h.LastActivity).Round(time.Minute))
	}
	return h, nil
}

// statusTTL is how long one pane status answers Health. A working
// session's page is re-rendered on every push, several a second while the
// agent streams, for every open view; each would otherwise ask tmux (a
// process round trip of a few ms) for what a second cannot change much.
const statusTTL = time.Second

// paneStatus is Terminals.Status of t's pane, at most statusTTL old. The
// lock is not held while tmux answers: a caller with a short deadline (a
// board push) must not wait behind one without (an API request) on a hung
// tmux; two callers at once both ask, which is harmless.
func (m *Manager) paneStatus(ctx context.Context, t *terminal) (tmux.Info, error) {
	t.statusMu.Lock()
	if !t.statusAt.IsZero() && time.Since(t.statusAt) < statusTTL {
		in, err := t.status, t.statusErr
		t.statusMu.Unlock()
		return in, err
	}
	t.statusMu.Unlock()
	in, err := m.opts.Terminals.Status(ctx, t.pane)
	if ctx.Err() != nil {
		return in, err // cut short: not an answer worth keeping
	}
	t.statusMu.Lock()
	t.status, t.statusErr, t.statusAt = in, err, time.Now()
	t.statusMu.Unlock()
	return in, err
}

// Screen is the hosted terminal's text with scrollBack lines of history.
func (m *Manager) Screen(ctx context.Context, c live.Card, scrollBack int) (string, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return "", err
	}
	s, err := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{ScrollBack: scrollBack, Join: true})
	if errors.Is(err, tmux.ErrNoPane) || errors.Is(err, tmux.ErrNoServer) {
		return "", ErrGone
	}
	return s, err
}
