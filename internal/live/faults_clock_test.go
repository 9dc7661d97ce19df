package live

import (
	"context"
	"sync"
	"testing"
	"time"

	"paddock/internal/hookstate"
)

// steppedClock is a wall clock the test steps by hand: the stamps a relay
// puts on its events after the machine's clock was set.
type steppedClock struct {
	mu   sync.Mutex
	step time.Duration
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Round(0).Add(c.step) // a wall reading, as a relay's JSON stamp is
}

func (c *steppedClock) Step(d time.Duration) {
	c.mu.Lock()
	c.step += d
	c.mu.Unlock()
}

// TestFaultClockSteps: the machine's clock is set back, or forward, by
// hours while a session works (NTP correcting a clock, a board without a
// real-time clock syncing after boot). The relays stamp their events
// with the new time. The card must follow the events — the turn that
// ends after the step ends on the board — and no time it shows may lie
// in the future.
//
// The Service runs on Go's clock (its monotonic reading is immune to the
// step); only the relays' wall stamps move, which is what differs between
// the two sides of a step.
func TestFaultClockSteps(t *testing.T) {
	for _, step := range []time.Duration{-3 * time.Hour, 3 * time.Hour, -30 * 24 * time.Hour} {
		t.Run(step.String(), func(t *testing.T) {
			relay := &steppedClock{}
			s := start(t, Options{ProcessCheck: time.Hour})
			ch, stop := s.Subscribe()
			defer stop()
			ctx := context.Background()
			send := func(kind hookstate.Kind, name string) {
				ev := hook("s1", kind, name)
				ev.ToolName, ev.ToolUseID = "Bash", "tu1"
				ev.Relay.SentAt = relay.Now()
				ev.Time = ev.Relay.SentAt // as Decode sets it
				s.HookEvent(ctx, ev)
			}
			send(hookstate.KindSessionStart, "SessionStart")
			send(hookstate.KindPrompt, "UserPromptSubmit")
			send(hookstate.KindToolStart, "PreToolUse")
			waitFor(t, s, ch, key("s1"), "working before the step", func(c Card) bool { return c.State == hookstate.StateWorking })

			relay.Step(step)
			send(hookstate.KindToolEnd, "PostToolUse")
			send(hookstate.KindStop, "Stop")
			c := waitFor(t, s, ch, key("s1"), "the turn's end after the step", func(c Card) bool { return c.State == hookstate.StateWaiting })
			if now := time.Now(); c.Since.After(now) || c.LastEvent.After(now) {
				t.Fatalf("card times in the future: since %v, last event %v, now %v", c.Since, c.LastEvent, now)
			}

			// And the next turn, on the stepped clock, too.
			send(hookstate.KindPrompt, "UserPromptSubmit")
			send(hookstate.KindToolStart, "PreToolUse")
			waitFor(t, s, ch, key("s1"), "the next turn working", func(c Card) bool { return c.State == hookstate.StateWorking })
			send(hookstate.KindToolEnd, "PostToolUse")
			send(hookstate.KindStop, "Stop")
			waitFor(t, s, ch, key("s1"), "the next turn's end", func(c Card) bool { return c.State == hookstate.StateWaiting })
		})
	}
}
