package hosted

import (
	"context"
	"fmt"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// Slept is one session put to sleep.
type Slept struct {
	Key   session.Key
	Freed uint64 // resident memory of the agent and its children before
}

// sleepable reports why a card must not be put to sleep ("" when it may):
// never while working, asking, or waiting for an approval or an answer.
func sleepable(c live.Card) string {
	switch c.State {
	case hookstate.StateIdle, hookstate.StateWaiting:
		return ""
	case hookstate.StateAsleep:
		return "it is asleep already"
	}
	return fmt.Sprintf("it is %s; only an idle session is put to sleep", c.State)
}

// Sleep closes an idle hosted session's terminal now to free its memory;
// the card stays, marked asleep, and Resume brings it back.
func (m *Manager) Sleep(ctx context.Context, c live.Card) (Slept, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Slept{}, err
	}
	if why := sleepable(c); why != "" {
		return Slept{}, invalid("not put to sleep: %s", why)
	}
	if m.claimed(t.id) {
		return Slept{}, invalid("not put to sleep: a request is using it right now")
	}
	return m.sleep(ctx, t, c)
}

func (m *Manager) sleep(ctx context.Context, t *terminal, c live.Card) (Slept, error) {
	if err := m.close(ctx, t); err != nil {
		return Slept{}, err
	}
	if _, err := m.opts.Live.Sleep(ctx, t.id, c.Memory.RSS); err != nil {
		m.log.Warn("card not marked asleep", "terminal", t.id, "error", err)
	}
	m.log.Info("session put to sleep", "session", c.Key.String(), "freed_bytes", c.Memory.RSS)
	return Slept{Key: c.Key, Freed: c.Memory.RSS}, nil
}

// SleepIdle closes the windows of hosted sessions idle for longer than
// limit: the card stays, marked asleep, and Resume brings it back. A
// session working, asking or waiting for an approval or answer is never
// put to sleep, and neither is one a request has claimed.
func (m *Manager) SleepIdle(ctx context.Context, now time.Time, limit time.Duration) []Slept {
	m.mu.Lock()
	terms := make([]*terminal, 0, len(m.terms))
	for _, t := range m.terms {
		if !t.claimed {
			terms = append(terms, t)
		}
	}
	m.mu.Unlock()
	var out []Slept
	for _, t := range terms {
		c, ok := m.opts.Live.ByTerminal(t.id)
		if !ok || c.State != hookstate.StateIdle || now.Sub(c.Since) < limit {
			continue
		}
		s, err := m.sleep(ctx, t, c)
		if err != nil {
			m.log.Warn("idle session not put to sleep", "terminal", t.id, "error", err)
			continue
		}
		out = append(out, s)
	}
	return out
}

// sleeperTick is how often RunSleeper looks for idle sessions: a minute
// late at most, for limits of 15 minutes and more.
const sleeperTick = time.Minute

// RunSleeper puts idle sessions to sleep until ctx ends. limit is read at
// every look, so a change in the settings applies within a minute; 0 is
// off.
func (m *Manager) RunSleeper(ctx context.Context, limit func() time.Duration) error {
	tick := time.NewTicker(sleeperTick)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-tick.C:
			if l := limit(); l > 0 {
				m.SleepIdle(ctx, now, l)
			}
		}
	}
}
