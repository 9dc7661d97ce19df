package hosted

import (
	"context"
	"sync"
	"time"

	"paddock/internal/tmux"
)

// TmuxHealth is what paddock knows about its tmux server's crashes (seed
// 001 reconcileTmuxCrash): how often it died under paddock, and how
// many hosted sessions came through (recovered) or were lost (orphaned),
// at start-up and since.
type TmuxHealth struct {
	ServerPID int       `json:"server_pid"`
	Crashes   int       `json:"server_crashes"`
	Recovered int       `json:"recovered"`
	Orphaned  int       `json:"orphaned"`
	LastCheck time.Time `json:"last_check,omitzero"`
}

// tmuxWatch holds TmuxHealth between checks.
type tmuxWatch struct {
	mu sync.Mutex
	h  TmuxHealth
}

func (w *tmuxWatch) get() TmuxHealth {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.h
}

func (w *tmuxWatch) update(f func(h *TmuxHealth)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.h)
}

// Tmux reports on paddock's tmux server.
func (m *Manager) Tmux() TmuxHealth { return m.tmux.get() }

// DefaultWatch is how often Watch looks at the tmux server.
const DefaultWatch = 5 * time.Second

// Watch looks at paddock's tmux server every interval until ctx ends. A
// hosted terminal whose window is gone — the server crashed or was killed,
// or someone closed the window behind paddock's back — has its card ended
// at once rather than at the next process check, and is forgotten; the
// counts show in health. A window whose agent merely exited stays (its
// last screen is kept) until Kill or Resume.
func (m *Manager) Watch(ctx context.Context, rec Reconciler, interval time.Duration) error {
	if interval <= 0 {
		interval = DefaultWatch
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			m.watchOnce(ctx, rec)
		}
	}
}

// lossSettle bounds how long a look that found paddock's windows gone
// waits to see whether their server exits too.
const lossSettle = time.Second

// serverAfterLoss is the server's pid once a server that just lost
// paddock's windows has had lossSettle to exit: 0 when it did (it was
// killed), pid when it runs on (the windows were closed one by one).
func serverAfterLoss(ctx context.Context, rec Reconciler, pid int) int {
	deadline := time.Now().Add(lossSettle)
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return pid
		case <-time.After(lossSettle / 20):
		}
		if rc, err := rec.Reconcile(ctx, nil); err == nil && rc.ServerPID != pid {
			return rc.ServerPID
		}
	}
	return pid
}

func (m *Manager) watchOnce(ctx context.Context, rec Reconciler) {
	m.mu.Lock()
	byPane := make(map[string]*terminal, len(m.terms))
	known := make([]tmux.Pane, 0, len(m.terms))
	for _, t := range m.terms {
		byPane[t.pane.Session+"/"+t.pane.Window+"/"+t.pane.ID] = t
		known = append(known, t.pane)
	}
	m.mu.Unlock()
	rc, err := rec.Reconcile(ctx, known)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Debug("tmux check failed", "error", err)
		}
		return
	}
	prev := m.tmux.get()
	lost := 0
	for _, p := range rc.Gone {
		t := byPane[p.Session+"/"+p.Window+"/"+p.ID]
		// A window paddock is closing itself, or one already forgotten,
		// was not lost.
		m.mu.Lock()
		gone := t != nil && m.terms[t.id] == t && !t.closing
		m.mu.Unlock()
		if !gone {
			continue
		}
		lost++
		m.drop(ctx, t)
		if err := m.opts.Live.Unhost(ctx, t.id); err != nil && ctx.Err() == nil {
			m.log.Warn("card of a lost terminal not ended", "terminal", t.id, "error", err)
		}
	}
	if lost > 0 && rc.ServerPID != 0 && rc.ServerPID == prev.ServerPID {
		// kill-server closes the windows before the server exits: a look
		// between the two sees them gone under the same pid.
		rc.ServerPID = serverAfterLoss(ctx, rec, rc.ServerPID)
	}
	// A server that went away with none of paddock's windows lost merely
	// exited after paddock closed its last window (exit-empty).
	crashed := lost > 0 && prev.ServerPID != 0 && rc.ServerPID != prev.ServerPID
	if lost > 0 {
		m.log.Warn("hosted terminals lost", "server_restarted", crashed, "old_server", prev.ServerPID, "server", rc.ServerPID,
			"recovered", len(rc.Alive), "orphaned", lost)
	}
	m.tmux.update(func(h *TmuxHealth) {
		if crashed {
			h.Crashes++
		}
		if lost > 0 {
			h.Recovered += len(rc.Alive)
			h.Orphaned += lost
		}
		h.ServerPID = rc.ServerPID
		h.LastCheck = time.Now()
	})
}
