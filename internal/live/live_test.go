package live

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
	"paddock/internal/store"
)

func start(t *testing.T, o Options) *Service {
	t.Helper()
	s := New(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not stop")
		}
	})
	return s
}

// waitFor reads changes until the card of k satisfies ok.
func waitFor(t *testing.T, s *Service, ch <-chan session.Change, k session.Key, what string, ok func(Card) bool) Card {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if c, found := s.Card(k); found && ok(c) {
			return c
		}
		select {
		case <-ch:
		case <-deadline:
			c, _ := s.Card(k)
			t.Fatalf("timed out waiting for %s; card %+v", what, c)
		}
	}
}

func TestServiceAppliesEventsAndPublishes(t *testing.T) {
	s := start(t, Options{State: hookstate.Config{PromptingQuiet: 50 * time.Millisecond}})
	ch, stop := s.Subscribe()
	defer stop()
	ctx := context.Background()
	s.HookEvent(ctx, hook("s1", hookstate.KindSessionStart, "SessionStart"))
	var c session.Change
	select {
	case c = <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no change published")
	}
	if !slices.Contains(c.Updated, key("s1")) {
		t.Fatalf("change %+v", c)
	}
	// The prompting timeout runs on the owner's own timer: no hook, no
	// output for PromptingQuiet → waiting.
	s.HookEvent(ctx, hook("s1", hookstate.KindPrompt, "UserPromptSubmit"))
	waitFor(t, s, ch, key("s1"), "prompting → waiting by timeout", func(c Card) bool { return c.State == hookstate.StateWaiting })
	if st := s.Stats(); st.Received != 2 || st.Dropped != 0 || st.Cards != 1 {
		t.Fatalf("stats %+v", st)
	}
}

func TestServiceHostAndMarkRead(t *testing.T) {
	s := start(t, Options{})
	ctx := context.Background()
	k, err := s.Host(ctx, Terminal{ID: "T9", Runtime: "codex", Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := s.Card(k); !ok || c.State != hookstate.StateConnecting || c.TerminalID != "T9" {
		t.Fatalf("hosted card %+v", c)
	}
	s.HookEvent(ctx, hookstate.Event{Runtime: "codex", SessionID: "thread-1", Kind: hookstate.KindSessionStart, Name: "SessionStart",
		Relay: hookstate.RelayInfo{TerminalID: "T9", TTY: "/dev/pts/1", SentAt: time.Now()}})
	s.HookEvent(ctx, hookstate.Event{Runtime: "codex", SessionID: "thread-1", Kind: hookstate.KindStop, Name: "Stop"})
	ch, stop := s.Subscribe()
	defer stop()
	nk := session.Key{Runtime: "codex", ID: "thread-1"}
	waitFor(t, s, ch, nk, "unread result", func(c Card) bool { return c.Attention == hookstate.AttentionUnread })
	if _, ok := s.Card(k); ok {
		t.Fatal("provisional card still there")
	}
	if err := s.MarkRead(ctx, nk); err != nil {
		t.Fatal(err)
	}
	waitFor(t, s, ch, nk, "read", func(c Card) bool { return c.Attention == hookstate.AttentionNone })
}

// fakeObserver reports every target's process as gone once told to.
type fakeObserver struct {
	mu    sync.Mutex
	gone  bool
	calls int
}

func (f *fakeObserver) Observe(_ context.Context, ts []Target) Report {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	r := Report{Sessions: map[session.Key]Observation{}, Machine: MachineMemory{Total: 8 << 30, Used: 3 << 30}}
	for _, t := range ts {
		p := hookstate.ProcessAlive
		if f.gone {
			p = hookstate.ProcessGone
		}
		r.Sessions[t.Key] = Observation{Facts: hookstate.Facts{Process: p}, Memory: Memory{RSS: 1 << 20, Processes: 1}}
	}
	return r
}

func TestServiceProcessCheckEndsGoneSessions(t *testing.T) {
	obs := &fakeObserver{}
	s := start(t, Options{Observer: obs, ProcessCheck: 20 * time.Millisecond})
	ch, stop := s.Subscribe()
	defer stop()
	s.HookEvent(context.Background(), hook("s", hookstate.KindSessionStart, "SessionStart"))
	waitFor(t, s, ch, key("s"), "memory from a check", func(c Card) bool { return c.Memory.RSS == 1<<20 })
	if m := s.Machine(); m.Total != 8<<30 {
		t.Fatalf("machine memory %+v", m)
	}
	obs.mu.Lock()
	obs.gone = true
	obs.mu.Unlock()
	waitFor(t, s, ch, key("s"), "ended after the process is gone", func(c Card) bool { return c.State == hookstate.StateEnded })
}

func TestInferenceWaitsForChildCheck(t *testing.T) {
	// A Bash call with no PostToolUse: at its inference deadline the
	// owner asks the observer about tool children first. With children at
	// work it is no approval; once they are gone it is.
	obs := &childObserver{children: true}
	cfg := hookstate.Config{ToolTimeouts: map[string]time.Duration{"bash": 30 * time.Millisecond}, Recheck: 30 * time.Millisecond}
	s := start(t, Options{State: cfg, Observer: obs, ProcessCheck: time.Hour})
	ch, stop := s.Subscribe()
	defer stop()
	s.HookEvent(context.Background(), with(hook("s", hookstate.KindToolStart, "PreToolUse"), func(e *hookstate.Event) { e.ToolName = "Bash"; e.ToolUseID = "t" }))
	waitFor(t, s, ch, key("s"), "working", func(c Card) bool { return c.State == hookstate.StateWorking })
	obs.waitCalls(t, 3) // the start-up check plus at least two deadline checks
	if c, _ := s.Card(key("s")); c.State != hookstate.StateWorking {
		t.Fatalf("slow tool with children became %q", c.State)
	}
	obs.set(false)
	waitFor(t, s, ch, key("s"), "approval once the children are gone", func(c Card) bool { return c.State == hookstate.StateApproval })
}

type childObserver struct {
	mu       sync.Mutex
	children bool
	calls    int
	called   chan struct{}
}

func (c *childObserver) set(v bool) { c.mu.Lock(); c.children = v; c.mu.Unlock() }

func (c *childObserver) waitCalls(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		got := c.calls
		c.mu.Unlock()
		if got >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("observer called fewer than %d times", n)
}

func (c *childObserver) Observe(_ context.Context, ts []Target) Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	r := Report{Sessions: map[session.Key]Observation{}}
	for _, t := range ts {
		r.Sessions[t.Key] = Observation{Facts: hookstate.Facts{Process: hookstate.ProcessAlive, ToolChildren: c.children && !t.ToolSince.IsZero()}}
	}
	return r
}

func TestHookEventAfterStopDoesNotBlock(t *testing.T) {
	s := New(Options{Queue: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	cancel()
	<-done
	finished := make(chan struct{})
	go func() {
		for range 3 {
			s.HookEvent(context.Background(), hook("s", hookstate.KindStop, "Stop"))
		}
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("HookEvent blocked on a stopped service")
	}
	if st := s.Stats(); st.Dropped == 0 {
		t.Fatalf("stats %+v: events to a stopped service must count as dropped", st)
	}
	if _, err := s.Host(context.Background(), Terminal{ID: "x", Runtime: "claude"}); err == nil {
		t.Fatal("Host on a stopped service succeeded")
	}
}

func TestCardsSurviveRestart(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()

	run := func(f func(s *Service)) {
		s := New(Options{Persist: st})
		c, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- s.Run(c) }()
		f(s)
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	run(func(s *Service) {
		ch, stop := s.Subscribe()
		defer stop()
		s.HookEvent(ctx, hook("s", hookstate.KindSessionStart, "SessionStart"))
		s.HookEvent(ctx, with(hook("s", hookstate.KindPermission, "PermissionRequest"), func(e *hookstate.Event) {
			e.ToolName, e.ToolSummary = "Bash", "make deploy"
		}))
		waitFor(t, s, ch, key("s"), "approval", func(c Card) bool { return c.State == hookstate.StateApproval })
	})
	run(func(s *Service) {
		ch, stop := s.Subscribe()
		defer stop()
		c := waitFor(t, s, ch, key("s"), "restored card", func(c Card) bool { return c.State == hookstate.StateApproval })
		if c.Dialog == nil || c.Dialog.Summary != "make deploy" || c.PID != 4242 || c.Terminal != "VS Code" || len(c.History) != 2 {
			t.Fatalf("restored card %+v", c)
		}
		// It goes on from where it was.
		s.HookEvent(ctx, hook("s", hookstate.KindStop, "Stop"))
		waitFor(t, s, ch, key("s"), "waiting", func(c Card) bool { return c.State == hookstate.StateWaiting })
	})
	saved, err := st.LiveCards(ctx)
	if err != nil || len(saved) != 1 {
		t.Fatalf("saved cards %d %v", len(saved), err)
	}
}

type countingObserver struct{ n atomic.Int32 }

func (o *countingObserver) Observe(context.Context, []Target) Report {
	o.n.Add(1)
	return Report{}
}

// The user's new density applies to the cards already open, and a new
// check interval to the next check.
func TestTuneAppliesToRunningCards(t *testing.T) {
	obs := &countingObserver{}
	s := start(t, Options{State: hookstate.Config{Density: hookstate.DensityLow}, ProcessCheck: time.Hour, Observer: obs})
	ch, stop := s.Subscribe()
	defer stop()
	ctx := context.Background()
	s.HookEvent(ctx, hook("s1", hookstate.KindSessionStart, "SessionStart"))
	s.HookEvent(ctx, hook("s1", hookstate.KindPrompt, "UserPromptSubmit"))
	bash := func(id string) hookstate.Event {
		return with(hook("s1", hookstate.KindToolStart, "PreToolUse"), func(e *hookstate.Event) { e.ToolName, e.ToolUseID = "Bash", id })
	}
	ask := with(hook("s1", hookstate.KindNotification, "Notification"), func(e *hookstate.Event) { e.NotificationType = "permission_prompt" })
	s.HookEvent(ctx, bash("t1"))
	waitFor(t, s, ch, key("s1"), "a tool call running", func(c Card) bool { return c.State == hookstate.StateWorking })
	if err := s.Tune(ctx, Tuning{Density: hookstate.DensityMedium, ProcessCheck: 10 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	s.HookEvent(ctx, ask)
	waitFor(t, s, ch, key("s1"), "medium density: the notification is an approval", func(c Card) bool { return c.State == hookstate.StateApproval })
	before := obs.n.Load()
	deadline := time.Now().Add(5 * time.Second)
	for obs.n.Load() < before+3 {
		if time.Now().After(deadline) {
			t.Fatalf("process checks after the new interval: %d, want 3 more than %d", obs.n.Load(), before)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := s.Tune(ctx, Tuning{Density: hookstate.DensityLow}); err == nil {
		t.Error("a zero check interval was accepted")
	}
}
