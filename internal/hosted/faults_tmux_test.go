package hosted

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/internal/tmux"
)

// waitState waits until the card of k is in state.
func waitState(t *testing.T, states *live.Service, k session.Key, state hookstate.State) live.Card {
	t.Helper()
	var c live.Card
	for range 500 {
		if c, _ = states.Card(k); c.State == state {
			return c
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("card %s never %s: %+v", k, state, c)
	return c
}

// TestFaultTmuxServerKilled: paddock's own tmux server dies under it —
// SIGKILLed (a crash) or ended by someone's kill-server — with two
// hosted sessions running and one asleep. The watch ends the running
// sessions' cards and counts the loss; the asleep one stays asleep; the
// screen, health, send, keys, sleep and kill calls on the lost sessions
// answer (gone, not a hang or a panic); and every session, the asleep
// one too, comes back with Reconnect in a new server.
func TestFaultTmuxServerKilled(t *testing.T) {
	for _, how := range []string{"SIGKILL", "kill-server"} {
		t.Run(how, func(t *testing.T) {
			ctx := t.Context()
			m, terms, states, dir := standIn(t, argsScript)
			var cards []live.Card
			for i := range 3 {
				cards = append(cards, startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir, Model: fmt.Sprintf("m%d", i)}, fmt.Sprintf("k%d", i)))
			}
			asleep := cards[2]
			if _, err := m.Sleep(ctx, asleep); err != nil {
				t.Fatal(err)
			}
			waitState(t, states, asleep.Key, hookstate.StateAsleep)

			watchCtx, stopWatch := context.WithCancel(ctx)
			watched := make(chan error, 1)
			go func() { watched <- m.Watch(watchCtx, terms, 20*time.Millisecond) }()
			defer func() {
				stopWatch()
				if err := <-watched; err != nil {
					t.Errorf("Watch: %v", err)
				}
			}()
			pid, err := terms.ServerPID(ctx)
			if err != nil || pid == 0 {
				t.Fatalf("server pid %d %v", pid, err)
			}
			for m.Tmux().ServerPID != pid {
				time.Sleep(10 * time.Millisecond)
			}

			if how == "SIGKILL" {
				err = syscall.Kill(pid, syscall.SIGKILL)
			} else {
				err = terms.KillServer(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}

			for _, c := range cards[:2] {
				ended := waitState(t, states, c.Key, hookstate.StateEnded)
				if _, err := m.Screen(ctx, ended, 0); !errors.Is(err, ErrGone) && !errors.Is(err, ErrNotHosted) {
					t.Errorf("screen of %s after the server died: %v", c.Key, err)
				}
				if _, err := m.Send(ctx, ended, "hello"); err == nil {
					t.Errorf("a message to %s went nowhere without an error", c.Key)
				}
				if err := m.Keys(ctx, ended, "Enter"); err == nil {
					t.Errorf("keys to %s went nowhere without an error", c.Key)
				}
				if _, err := m.Sleep(ctx, ended); err == nil {
					t.Errorf("%s put to sleep with no terminal", c.Key)
				}
				if _, err := m.Health(ctx, ended, time.Now()); err != nil && !errors.Is(err, ErrNotHosted) {
					t.Errorf("health of %s: %v", c.Key, err)
				}
			}
			if c, _ := states.Card(asleep.Key); c.State != hookstate.StateAsleep {
				t.Errorf("the asleep session is %s after the server died, want asleep", c.State)
			}
			h := m.Tmux()
			for start := time.Now(); h.ServerPID != 0 && time.Since(start) < 10*time.Second; h = m.Tmux() {
				time.Sleep(10 * time.Millisecond)
			}
			if h.Orphaned != 2 || h.Crashes != 1 || h.ServerPID != 0 {
				t.Errorf("tmux health %+v, want 2 orphaned, 1 crash, no server (it was %d)", h, pid)
			}
			if got := m.SleepIdle(ctx, time.Now().Add(24*time.Hour), time.Minute); len(got) != 0 {
				t.Errorf("put to sleep with no server: %+v", got)
			}
			if ok := terms.Running(ctx); ok {
				t.Fatal("the server runs again before anything asked for it")
			}

			for i, c := range cards {
				now, _ := states.Card(c.Key)
				// The agent's first hook, as soon as its new terminal is
				// on the card: Reconnect waits for it (or for the agent to
				// exit) before it returns.
				hooked := make(chan struct{})
				go func() {
					defer close(hooked)
					for range 1000 {
						if c, _ := states.Card(c.Key); c.State == hookstate.StateConnecting && c.TerminalID != "" && c.TerminalID != now.TerminalID {
							hookFrom(t, states, c.TerminalID, c.Key.ID, hookstate.KindSessionStart)
							return
						}
						time.Sleep(5 * time.Millisecond)
					}
				}()
				r, err := m.Reconnect(ctx, Resumable{Key: c.Key, Cwd: now.Cwd, Card: now})
				<-hooked
				if err != nil {
					t.Fatalf("reconnect %s: %v", c.Key, err)
				}
				back := waitCard(t, states, r.TerminalID, func(c live.Card) bool { return c.State == hookstate.StateIdle })
				screenOf(t, m, back, fmt.Sprintf("args: --session %s --model m%d", c.Key.ID, i))
			}
			if newPID, err := terms.ServerPID(ctx); err != nil || newPID == 0 || newPID == pid {
				t.Fatalf("server after the reconnects: pid %d (was %d), %v", newPID, pid, err)
			}
			infos, err := terms.List(ctx)
			if err != nil || len(infos) != 3 {
				t.Fatalf("windows after the reconnects: %+v %v", infos, err)
			}
			var _ tmux.Info = infos[0]
		})
	}
}
