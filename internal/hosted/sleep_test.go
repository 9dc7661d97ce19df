package hosted

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/tmux"
)

// TestSleepIdle runs a stand-in agent in a real tmux server: an idle
// session past the limit has its window closed and its card marked
// asleep; a working one, or one idle for less, is left alone.
func TestSleepIdle(t *testing.T) {
	ctx := t.Context()
	m, terms, states, dir := standIn(t, "exec sleep 600")

	start := func(kind hookstate.Kind) Created {
		c, err := m.Create(ctx, Request{Runtime: "pi", Workdir: dir})
		if err != nil {
			t.Fatal(err)
		}
		id := "pi-" + c.TerminalID
		ev := hookstate.Event{Runtime: "pi", SessionID: id, Name: "session_start", Kind: hookstate.KindSessionStart,
			Relay: hookstate.RelayInfo{TerminalID: c.TerminalID, TTY: "/dev/pts/1", SentAt: time.Now()}}
		states.HookEvent(ctx, ev)
		if kind != hookstate.KindSessionStart {
			ev.Kind, ev.Name = kind, "agent_start"
			states.HookEvent(ctx, ev)
		}
		for range 200 {
			if card, ok := states.ByTerminal(c.TerminalID); ok && card.Key.ID == id && card.State != hookstate.StateConnecting {
				return c
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatal("hook never reached the card")
		return c
	}
	idle, busy := start(hookstate.KindSessionStart), start(hookstate.KindBusy)

	if slept := m.SleepIdle(ctx, time.Now().Add(time.Minute), time.Hour); len(slept) != 0 {
		t.Fatalf("slept before the limit: %+v", slept)
	}
	slept := m.SleepIdle(ctx, time.Now().Add(2*time.Hour), time.Hour)
	if len(slept) != 1 || slept[0].Key.ID != "pi-"+idle.TerminalID {
		t.Fatalf("slept %+v, want only the idle one", slept)
	}
	card, _ := states.Card(slept[0].Key)
	if card.State != hookstate.StateAsleep {
		t.Fatalf("card %+v, want asleep", card)
	}
	infos, err := terms.List(ctx)
	if err != nil || len(infos) != 1 || infos[0].Session != busy.TerminalID {
		t.Fatalf("windows after sleep: %+v %v, want only the working one", infos, err)
	}
}

func TestHealthCallsAQuietWorkingSessionStalled(t *testing.T) {
	ctx := t.Context()
	m, _, states, dir := standIn(t, "echo working; exec sleep 600")
	c, err := m.Create(ctx, Request{Runtime: "pi", Workdir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ev := hookstate.Event{Runtime: "pi", SessionID: "s1", Name: "agent_start", Kind: hookstate.KindPrompt,
		Relay: hookstate.RelayInfo{TerminalID: c.TerminalID, TTY: "/dev/pts/1", SentAt: time.Now()}}
	states.HookEvent(ctx, ev)
	var card live.Card
	for range 200 {
		if card, _ = states.ByTerminal(c.TerminalID); card.State == hookstate.StatePrompting {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	h, err := m.Health(ctx, card, time.Now())
	if err != nil || !h.Alive || !h.AgentRunning || h.Stalled {
		t.Fatalf("health now: %+v %v", h, err)
	}
	h, err = m.Health(ctx, card, time.Now().Add(StallAfter+time.Minute))
	if err != nil || !h.Stalled || h.Hint == "" {
		t.Fatalf("health after a quiet spell: %+v %v", h, err)
	}
	if err := m.Kill(ctx, card); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Health(ctx, card, time.Now()); err == nil {
		t.Fatal("health of a killed session")
	}
}

// standIn is a Manager over a real tmux server in a temp dir and a running
// live state, whose only agent ("pi") is a shell script running script.
func standIn(t *testing.T, script string) (*Manager, *tmux.Server, *live.Service, string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("E2E_REQUIRED") != "" {
			t.Fatal("tmux not installed (E2E_REQUIRED is set)")
		}
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	terms, err := tmux.New(t.Context(), dir, tmux.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = terms.KillServer(context.Background()) })
	agent := filepath.Join(dir, "pi")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	states := live.New(live.Options{})
	runCtx, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	go states.Run(runCtx)
	agents := registry.Default()
	m := New(Options{Terminals: terms, Live: states, Recipes: agents.Recipes(), Screens: agents.Screens(), LookPath: func(string) (string, error) { return agent, nil }})
	return m, terms, states, dir
}

// countingTerminals counts the pane status reads that reach tmux.
type countingTerminals struct {
	Terminals
	mu       sync.Mutex
	statuses int
}

func (c *countingTerminals) Status(ctx context.Context, p tmux.Pane) (tmux.Info, error) {
	c.mu.Lock()
	c.statuses++
	c.mu.Unlock()
	return c.Terminals.Status(ctx, p)
}

func (c *countingTerminals) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.statuses
}

// A page re-rendered on every push asks tmux about its pane at most once
// a second, however many renders there are.
func TestHealthReadsThePaneOncePerTTL(t *testing.T) {
	ctx := t.Context()
	m, terms, states, dir := standIn(t, "exec sleep 600")
	counting := &countingTerminals{Terminals: terms}
	m.opts.Terminals = counting
	c, err := m.Create(ctx, Request{Runtime: "pi", Workdir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var card live.Card
	ok := false
	for range 200 {
		if card, ok = states.ByTerminal(c.TerminalID); ok {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !ok {
		t.Fatal("no card for the new terminal")
	}
	before := counting.count()
	for range 20 {
		if h, err := m.Health(ctx, card, time.Now()); err != nil || !h.Alive {
			t.Fatalf("health: %+v %v", h, err)
		}
	}
	if got := counting.count() - before; got != 1 {
		t.Errorf("20 renders within a second asked tmux %d times, want 1", got)
	}
}
