package hosted

import (
	"context"
	"errors"
	"fmt"
	"time"

	"paddock/internal/live"
	"paddock/internal/procscan"
	"paddock/internal/tmux"
)

// killGrace is how long an agent gets to exit after its window closes.
const killGrace = 3 * time.Second

// Kill ends a hosted session: its window (and the agent in it) is closed
// and its card ends at once.
func (m *Manager) Kill(ctx context.Context, c live.Card) error {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return err
	}
	if err := m.close(ctx, t); err != nil {
		return err
	}
	m.log.Info("hosted session killed", "runtime", t.runtime, "terminal", t.id)
	return m.opts.Live.Unhost(ctx, t.id)
}

// close closes a terminal's window and waits (bounded) for its agent to
// exit, so that "closed" means it no longer runs or writes; then paddock
// forgets the terminal. The card is the caller's business.
func (m *Manager) close(ctx context.Context, t *terminal) error {
	m.mu.Lock()
	t.closing = true
	m.mu.Unlock()
	if err := m.opts.Terminals.Kill(ctx, t.pane); err != nil && !errors.Is(err, tmux.ErrNoPane) && !errors.Is(err, tmux.ErrNoServer) {
		return fmt.Errorf("hosted: %w", err)
	}
	// Closing the window hangs the agent up; one that does not exit soon
	// is killed.
	deadline := time.Now().Add(killGrace)
	for procscan.Alive(t.pane.PID) && time.Now().Before(deadline) {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			break
		}
	}
	if procscan.Alive(t.pane.PID) {
		m.log.Warn("hosted agent ignored its hang-up; killing it", "terminal", t.id, "pid", t.pane.PID)
		_ = kill(t.pane.PID)
	}
	m.drop(ctx, t)
	return nil
}

// drop forgets a terminal (memory and store).
func (m *Manager) drop(ctx context.Context, t *terminal) {
	m.mu.Lock()
	delete(m.terms, t.id)
	m.mu.Unlock()
	m.forget(ctx, t.id)
}
