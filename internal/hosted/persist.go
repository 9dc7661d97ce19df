package hosted

import (
	"context"
	"encoding/json"
	"time"

	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/internal/store"
	"paddock/internal/tmux"
)

// Persister keeps the hosted terminals across paddock restarts (the store).
type Persister interface {
	SaveHostedTerminal(ctx context.Context, t store.HostedTerminal) error
	DeleteHostedTerminal(ctx context.Context, id string) error
	HostedTerminals(ctx context.Context) ([]store.HostedTerminal, error)
}

// Reconciler is what a restart needs from tmux beyond Terminals.
type Reconciler interface {
	Reconcile(ctx context.Context, known []tmux.Pane) (tmux.Reconciliation, error)
}

// savedTerminal is a hosted terminal as persisted.
type savedTerminal struct {
	Pane   tmux.Pane   `json:"pane"`
	Argv   []string    `json:"argv"`
	Key    session.Key `json:"key"` // the card's key when saved
	Resume string      `json:"resume,omitempty"`
}

// save records a terminal; a failure is logged, never fatal: the session
// runs, it only would not be re-attached after a restart.
func (m *Manager) save(ctx context.Context, t *terminal, key session.Key, resume string) {
	if m.opts.Persist == nil {
		return
	}
	b, _ := json.Marshal(savedTerminal{Pane: t.pane, Argv: t.argv, Key: key, Resume: resume})
	if err := m.opts.Persist.SaveHostedTerminal(context.WithoutCancel(ctx), store.HostedTerminal{
		ID: t.id, Runtime: t.runtime, Cwd: t.cwd, Data: b, Created: t.started}); err != nil {
		m.log.Warn("hosted terminal not saved; it will not be re-attached after a restart", "terminal", t.id, "error", err)
	}
}

func (m *Manager) forget(ctx context.Context, id string) {
	if m.opts.Persist == nil {
		return
	}
	if err := m.opts.Persist.DeleteHostedTerminal(context.WithoutCancel(ctx), id); err != nil {
		m.log.Warn("hosted terminal record not deleted", "terminal", id, "error", err)
	}
}

// Reattached is what a restart found: the terminals still running, and
// those that ended or were killed meanwhile.
type Reattached struct {
	Recovered, Orphaned int
}

// Reattach runs once at start-up, after the live state restored its cards:
// terminals paddock started that still run are driven again, the cards of
// those whose agent ended or whose window is gone end, and the records of
// both go.
func (m *Manager) Reattach(ctx context.Context, rec Reconciler, restored <-chan struct{}) (Reattached, error) {
	var out Reattached
	defer m.markAttached()
	if m.opts.Persist == nil {
		return out, nil
	}
	select {
	case <-restored:
	case <-ctx.Done():
		return out, ctx.Err()
	}
	records, err := m.opts.Persist.HostedTerminals(ctx)
	if err != nil || len(records) == 0 {
		return out, err
	}
	saved := map[string]savedTerminal{}
	byPane := map[string]store.HostedTerminal{}
	var known []tmux.Pane
	for _, r := range records {
		var st savedTerminal
		if json.Unmarshal(r.Data, &st) != nil {
			m.forget(ctx, r.ID)
			continue
		}
		saved[r.ID] = st
		byPane[st.Pane.ID+"@"+st.Pane.Session] = r
		known = append(known, st.Pane)
	}
	rc, err := rec.Reconcile(ctx, known)
	if err != nil {
		return out, err
	}
	for _, p := range rc.Alive {
		r := byPane[p.ID+"@"+p.Session]
		st := saved[r.ID]
		key := st.Key
		if c, ok := m.opts.Live.ByTerminal(r.ID); ok {
			key = c.Key
		}
		k, err := m.opts.Live.Adopt(ctx, live.Terminal{ID: r.ID, Runtime: r.Runtime, Cwd: r.Cwd, ShellPID: p.PID, TmuxPane: p.ID, Resume: st.Resume}, key)
		if err != nil {
			return out, err
		}
		t := &terminal{id: r.ID, runtime: r.Runtime, cwd: r.Cwd, pane: p, started: r.Created, argv: st.Argv}
		m.mu.Lock()
		m.terms[r.ID] = t
		m.mu.Unlock()
		m.save(ctx, t, k, st.Resume)
		out.Recovered++
	}
	end := func(p tmux.Pane) {
		r := byPane[p.ID+"@"+p.Session]
		st := saved[r.ID]
		key := st.Key
		if c, ok := m.opts.Live.ByTerminal(r.ID); ok {
			key = c.Key
		}
		// Known again for a moment, so that Unhost ends its card.
		if _, err := m.opts.Live.Adopt(ctx, live.Terminal{ID: r.ID, Runtime: r.Runtime, Cwd: r.Cwd}, key); err == nil {
			_ = m.opts.Live.Unhost(ctx, r.ID)
		}
		m.forget(ctx, r.ID)
		out.Orphaned++
	}
	for _, in := range rc.Dead {
		_ = m.opts.Terminals.Kill(ctx, in.Pane)
		end(in.Pane)
	}
	for _, p := range rc.Gone {
		end(p)
	}
	m.tmux.update(func(h *TmuxHealth) {
		h.ServerPID, h.Recovered, h.Orphaned, h.LastCheck = rc.ServerPID, h.Recovered+out.Recovered, h.Orphaned+out.Orphaned, time.Now()
	})
	m.log.Info("hosted terminals re-attached", "recovered", out.Recovered, "orphaned", out.Orphaned, "tmux_server", rc.ServerPID)
	return out, nil
}
