package hosted

import (
	"context"
	"slices"

	"paddock/internal/hookstate"
	"paddock/internal/live"
)

// reuse hands a request's prompt to an idle hosted session of the same
// agent in the same directory, so that
// an API client asking again does not start a duplicate. ok is false when
// there is no such session: the caller starts a new one.
func (m *Manager) reuse(ctx context.Context, r Request) (out Created, ok bool, err error) {
	t, c, ok := m.claimIdle(ctx, r)
	if !ok {
		return Created{}, false, nil
	}
	defer m.release(t)
	m.log.Info("reusing idle hosted session", "session", c.Key.String(), "terminal", t.id)
	out = Created{Key: c.Key, TerminalID: t.id, Reused: true}
	if r.Prompt != "" {
		d, err := m.deliver(ctx, t, r.Prompt)
		if err != nil {
			return out, true, err
		}
		out.Prompt = &d
		if c, ok := m.opts.Live.ByTerminal(t.id); ok {
			out.Key = c.Key
		}
	}
	return out, true, nil
}

// claimIdle finds the most recently active idle session for r (same agent,
// directory, and the same options where r names any), checks that its
// window still runs, and claims it under the manager's lock, so that two
// requests never take the same session (the claim is taken under the
// lock that checked it is free).
func (m *Manager) claimIdle(ctx context.Context, r Request) (*terminal, live.Card, bool) {
	type candidate struct {
		t *terminal
		c live.Card
	}
	var cands []candidate
	m.waitAttached(ctx)
	m.mu.Lock()
	for _, t := range m.terms {
		if t.runtime == r.Runtime && t.cwd == r.Workdir && !t.claimed {
			cands = append(cands, candidate{t: t})
		}
	}
	m.mu.Unlock()
	cands = slices.DeleteFunc(cands, func(cd candidate) bool {
		c, ok := m.opts.Live.ByTerminal(cd.t.id)
		if !ok || c.State != hookstate.StateIdle && c.State != hookstate.StateWaiting {
			return true
		}
		if l, saved := launchOf(c); saved && !compatible(l, r) || !saved && (r.PermissionMode != "" || r.Model != "" || r.Effort != "") {
			return true
		}
		return false
	})
	for i := range cands {
		cands[i].c, _ = m.opts.Live.ByTerminal(cands[i].t.id)
	}
	slices.SortFunc(cands, func(a, b candidate) int { return b.c.LastEvent.Compare(a.c.LastEvent) })
	for _, cd := range cands {
		if alive, err := m.opts.Terminals.Alive(ctx, cd.t.pane); err != nil || !alive {
			continue
		}
		m.mu.Lock()
		if m.terms[cd.t.id] == cd.t && !cd.t.claimed {
			cd.t.claimed = true
			m.mu.Unlock()
			return cd.t, cd.c, true
		}
		m.mu.Unlock()
	}
	return nil, live.Card{}, false
}

// compatible: a session launched with l serves request r — every option r
// names is the one l was started with.
func compatible(l Launch, r Request) bool {
	same := func(want, have string) bool { return want == "" || want == have }
	return same(r.PermissionMode, l.PermissionMode) && same(r.Model, l.Model) && same(r.Effort, l.Effort)
}

// release ends a claim, whether the reuse
// succeeded or not.
func (m *Manager) release(t *terminal) {
	m.mu.Lock()
	t.claimed = false
	m.mu.Unlock()
}

// claimed reports whether a request holds terminal id.
func (m *Manager) claimed(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.terms[id]
	return t != nil && t.claimed
}
