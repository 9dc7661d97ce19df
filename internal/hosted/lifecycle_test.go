package hosted

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/tmux"
)

// argsScript is a stand-in agent that shows its arguments and waits.
const argsScript = `echo "args: $*"; exec sleep 600`

// startStandIn creates a hosted stand-in session and sends its first hook
// as session id, so its card is idle under pi:id.
func startStandIn(t *testing.T, m *Manager, states *live.Service, r Request, id string) live.Card {
	t.Helper()
	c, err := m.Create(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	hookFrom(t, states, c.TerminalID, id, hookstate.KindSessionStart)
	return waitCard(t, states, c.TerminalID, func(c live.Card) bool { return c.Key.ID == id && c.State == hookstate.StateIdle })
}

func hookFrom(t *testing.T, states *live.Service, terminalID, id string, kind hookstate.Kind) {
	t.Helper()
	states.HookEvent(t.Context(), hookstate.Event{Runtime: "pi", SessionID: id, Name: string(kind), Kind: kind,
		Relay: hookstate.RelayInfo{TerminalID: terminalID, TTY: "/dev/pts/1", SentAt: time.Now()}})
}

func waitCard(t *testing.T, states *live.Service, terminalID string, ok func(live.Card) bool) live.Card {
	t.Helper()
	var c live.Card
	for range 300 {
		if c, _ = states.ByTerminal(terminalID); ok(c) {
			return c
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("card of %s never got there: %+v", terminalID, c)
	return c
}

func screenOf(t *testing.T, m *Manager, c live.Card, want string) string {
	t.Helper()
	var s string
	for range 200 {
		s, _ = m.Screen(t.Context(), c, 0)
		if strings.Contains(s, want) {
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("screen never showed %q:\n%s", want, s)
	return s
}

func TestRestartKeepsTheCardAndItsOptions(t *testing.T) {
	ctx := t.Context()
	m, terms, states, dir := standIn(t, argsScript)
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir, Model: "m1", Effort: "high", Name: "build", Parent: "claude:lead-1"}, "p1")
	old := card.TerminalID
	if card.Parent != (session.Key{Runtime: "claude", ID: "lead-1"}) || card.Name != "build" {
		t.Fatalf("card %+v, want its parent and name", card)
	}

	r, err := m.Restart(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	if r.Key != card.Key || r.TerminalID == old || r.Fresh {
		t.Fatalf("restart %+v, want the same card in a new terminal", r)
	}
	now, _ := states.Card(card.Key)
	if now.State != hookstate.StateConnecting || now.TerminalID != r.TerminalID || now.Name != "build" {
		t.Fatalf("card after restart %+v", now)
	}
	screenOf(t, m, now, "args: --session p1 --model m1 --thinking high")
	if infos, err := terms.List(ctx); err != nil || len(infos) != 1 || infos[0].Session != r.TerminalID {
		t.Fatalf("windows %+v %v, want only the new one", infos, err)
	}
	// The old agent's SessionEnd, late, does not end the restarted card.
	states.HookEvent(ctx, hookstate.Event{Runtime: "pi", SessionID: "p1", Name: "session_shutdown", Kind: hookstate.KindSessionEnd,
		Relay: hookstate.RelayInfo{TerminalID: old, TTY: "/dev/pts/1", SentAt: time.Now()}})
	hookFrom(t, states, r.TerminalID, "p1", hookstate.KindSessionStart)
	now = waitCard(t, states, r.TerminalID, func(c live.Card) bool { return c.State == hookstate.StateIdle })
	for _, h := range now.History {
		if h.State == hookstate.StateEnded {
			t.Fatalf("the restart went through ended: %+v", now.History)
		}
	}
	if _, err := m.Restart(ctx, live.Card{Key: card.Key}); !errors.Is(err, ErrNotHosted) {
		t.Fatalf("restart of an unhosted card: %v", err)
	}
}

func TestReconnectStartsTheSavedLaunch(t *testing.T) {
	ctx := t.Context()
	m, _, states, dir := standIn(t, argsScript)
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir, Model: "m2", Effort: "low"}, "p2")
	if err := m.Kill(ctx, card); err != nil {
		t.Fatal(err)
	}
	ended := waitCard(t, states, "", func(live.Card) bool { c, _ := states.Card(card.Key); return c.State == hookstate.StateEnded })
	_ = ended
	card, _ = states.Card(card.Key)
	r, err := m.Reconnect(ctx, Resumable{Key: card.Key, Cwd: card.Cwd, Card: card})
	if err != nil {
		t.Fatal(err)
	}
	now, _ := states.Card(card.Key)
	if r.Key != card.Key || now.TerminalID != r.TerminalID {
		t.Fatalf("reconnect %+v, card %+v", r, now)
	}
	screenOf(t, m, now, "args: --session p2 --model m2 --thinking low")

	// A session paddock did not start has no launch to reconnect.
	other := live.Card{Key: session.Key{Runtime: "pi", ID: "p3"}, State: hookstate.StateEnded}
	if _, err := m.Reconnect(ctx, Resumable{Key: other.Key, Cwd: dir, Card: other}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "use Resume") {
		t.Fatalf("reconnect without a launch: %v", err)
	}
}

func TestSleepOnRequest(t *testing.T) {
	ctx := t.Context()
	m, _, states, dir := standIn(t, argsScript)
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir}, "p4")
	hookFrom(t, states, card.TerminalID, "p4", hookstate.KindBusy)
	busy := waitCard(t, states, card.TerminalID, func(c live.Card) bool { return c.State == hookstate.StateWorking })
	if _, err := m.Sleep(ctx, busy); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "working") {
		t.Fatalf("sleep while working: %v", err)
	}
	hookFrom(t, states, card.TerminalID, "p4", hookstate.KindStop)
	idle := waitCard(t, states, card.TerminalID, func(c live.Card) bool { return c.State == hookstate.StateWaiting || c.State == hookstate.StateIdle })
	s, err := m.Sleep(ctx, idle)
	if err != nil || s.Key != card.Key {
		t.Fatalf("sleep: %+v %v", s, err)
	}
	if c, _ := states.Card(card.Key); c.State != hookstate.StateAsleep || c.TerminalID != "" && c.TerminalID != card.TerminalID {
		t.Fatalf("card after sleep %+v", c)
	}
}

func TestReuseClaimsAnIdleSessionOnce(t *testing.T) {
	ctx := t.Context()
	m, terms, states, dir := standIn(t, argsScript)
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir, Model: "m1"}, "p5")

	// Ten requests at once: exactly one gets the session.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var got []*terminal
	for range 10 {
		wg.Go(func() {
			if tm, _, ok := m.claimIdle(ctx, Request{Runtime: "pi", Workdir: dir}); ok {
				mu.Lock()
				got = append(got, tm)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(got) != 1 || got[0].id != card.TerminalID {
		t.Fatalf("claims %v, want one of %s", got, card.TerminalID)
	}
	if _, _, ok := m.claimIdle(ctx, Request{Runtime: "pi", Workdir: dir}); ok {
		t.Fatal("a claimed session claimed again")
	}
	m.release(got[0])

	r, err := m.Create(ctx, Request{Runtime: "pi", Workdir: dir, Reuse: true})
	if err != nil || !r.Reused || r.TerminalID != card.TerminalID || r.Key != card.Key {
		t.Fatalf("reuse: %+v %v", r, err)
	}
	if m.claimed(card.TerminalID) {
		t.Fatal("claim not released after use")
	}
	// Another model, another directory, or a busy session: a new one.
	r, err = m.Create(ctx, Request{Runtime: "pi", Workdir: dir, Model: "m9", Reuse: true})
	if err != nil || r.Reused {
		t.Fatalf("reuse with another model: %+v %v", r, err)
	}
	hookFrom(t, states, card.TerminalID, "p5", hookstate.KindBusy)
	waitCard(t, states, card.TerminalID, func(c live.Card) bool { return c.State == hookstate.StateWorking })
	if _, _, ok := m.claimIdle(ctx, Request{Runtime: "pi", Workdir: dir}); ok {
		t.Fatal("a working session claimed")
	}
	if infos, err := terms.List(ctx); err != nil || len(infos) != 2 {
		t.Fatalf("windows %+v %v, want the reused one and the new one", infos, err)
	}
}

func TestWatchEndsCardsOfLostTerminals(t *testing.T) {
	ctx := t.Context()
	m, terms, states, dir := standIn(t, argsScript)
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir}, "p6")
	m.watchOnce(ctx, terms)
	if h := m.Tmux(); h.ServerPID == 0 || h.Crashes != 0 || h.Orphaned != 0 {
		t.Fatalf("tmux health before %+v", h)
	}
	if err := terms.KillServer(ctx); err != nil {
		t.Fatal(err)
	}
	m.watchOnce(ctx, terms)
	if h := m.Tmux(); h.Crashes != 1 || h.Orphaned != 1 || h.Recovered != 0 {
		t.Fatalf("tmux health after the crash %+v", h)
	}
	waitCard(t, states, "", func(live.Card) bool { c, _ := states.Card(card.Key); return c.State == hookstate.StateEnded })
	if _, err := m.Health(ctx, card, time.Now()); !errors.Is(err, ErrNotHosted) {
		t.Fatalf("health of a lost terminal: %v", err)
	}
	// No server now, none later: counted once.
	m.watchOnce(ctx, terms)
	if h := m.Tmux(); h.Crashes != 1 {
		t.Fatalf("crash counted twice: %+v", h)
	}
}

func TestProbeRefusesAResumeTheCLINoLongerLists(t *testing.T) {
	ctx := t.Context()
	m, _, states, dir := standIn(t, `if [ "$1" = --help ]; then echo "  --model <pattern>   --thinking <level>"; exit 0; fi; exec sleep 600`)
	probes := m.Probe(ctx)
	var pi Probe
	for _, p := range probes {
		if p.Runtime == "pi" {
			pi = p
		}
	}
	if pi.CanResume || strings.Join(pi.Missing, " ") != "--session" {
		t.Fatalf("pi probe %+v (all %+v)", pi, probes)
	}
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir}, "p7")
	if err := m.Kill(ctx, card); err != nil {
		t.Fatal(err)
	}
	card, _ = states.Card(card.Key)
	if _, err := m.Resume(ctx, Resumable{Key: card.Key, Cwd: dir, Card: card}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "--help") {
		t.Fatalf("resume with a CLI that lost --session: %v", err)
	}
}

// TestProbeRealCLIs runs the start-up check against the pinned CLIs: every
// flag paddock passes must be in their --help.
func TestProbeRealCLIs(t *testing.T) {
	bins := map[string]string{}
	for _, cli := range []agenttest.CLI{agenttest.Claude, agenttest.Codex, agenttest.OpenCode, agenttest.Pi, agenttest.Kimi} {
		bins[string(cli)] = agenttest.Bin(t, cli)
	}
	home := t.TempDir() // --help must not need (or touch) the user's own config
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Terminals: &tmux.Server{}, Live: live.New(live.Options{}), Recipes: registry.Default().Recipes(), LookPath: func(name string) (string, error) {
		if b, ok := bins[name]; ok {
			return b, nil
		}
		return "", os.ErrNotExist
	}})
	probes := m.Probe(t.Context())
	if len(probes) != len(bins) {
		t.Fatalf("probed %+v, want %d CLIs", probes, len(bins))
	}
	for _, p := range probes {
		if p.Error != "" || len(p.Missing) > 0 || !p.CanResume {
			t.Errorf("%s: %+v", p.Runtime, p)
		}
	}
}

// TestWatchLeavesWindowsPaddockCloses: a window paddock is closing (kill,
// sleep, restart) is not a lost one, whenever the check runs.
func TestWatchLeavesWindowsPaddockCloses(t *testing.T) {
	ctx := t.Context()
	m, terms, states, dir := standIn(t, argsScript)
	card := startStandIn(t, m, states, Request{Runtime: "pi", Workdir: dir}, "p8")
	m.watchOnce(ctx, terms)
	m.mu.Lock()
	tm := m.terms[card.TerminalID]
	tm.closing = true
	m.mu.Unlock()
	if err := terms.Kill(ctx, tm.pane); err != nil {
		t.Fatal(err)
	}
	m.watchOnce(ctx, terms)
	if h := m.Tmux(); h.Orphaned != 0 {
		t.Fatalf("a window paddock closed counted lost: %+v", h)
	}
	if c, _ := states.Card(card.Key); c.State == hookstate.StateEnded {
		t.Fatalf("the watch ended a card paddock is putting to sleep: %+v", c)
	}
}
