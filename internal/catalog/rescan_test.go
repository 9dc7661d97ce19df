package catalog

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"paddock/internal/session"
)

// drain returns the changes queued on ch without waiting.
func drain(ch <-chan Change) []Change {
	var out []Change
	for {
		select {
		case c := <-ch:
			out = append(out, c)
		default:
			return out
		}
	}
}

func TestRescanChange(t *testing.T) {
	a := info("claude", "a", t0)
	b := info("claude", "b", t0.Add(time.Minute))
	aLive := a
	aLive.Live, aLive.PID = true, 42
	aOtherZone := a
	aOtherZone.Updated = t0.In(time.FixedZone("CEST", 2*3600)) // same instant
	aNoRuntime := a
	aNoRuntime.Runtime = ""

	tests := []struct {
		name        string
		before      []session.Info
		after       []session.Info
		wantUpdated []session.Key
		wantRemoved []session.Key
		wantNone    bool
	}{
		{"added", []session.Info{a}, []session.Info{a, b}, []session.Key{b.Key()}, nil, false},
		{"removed", []session.Info{a, b}, []session.Info{b}, nil, []session.Key{a.Key()}, false},
		{"field changed", []session.Info{a, b}, []session.Info{aLive, b}, []session.Key{a.Key()}, nil, false},
		{"all at once", []session.Info{a}, []session.Info{b}, []session.Key{b.Key()}, []session.Key{a.Key()}, false},
		{"identical: no change", []session.Info{a, b}, []session.Info{b, a}, nil, nil, true},
		{"same instant, other zone: no change", []session.Info{a}, []session.Info{aOtherZone}, nil, nil, true},
		{"runtime filled by the catalog: no change", []session.Info{a}, []session.Info{aNoRuntime}, nil, nil, true},
		{"empty ID ignored: no change", []session.Info{a}, []session.Info{a, {Title: "no id"}}, nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := newListScanner("claude", tt.before...)
			c := New(Options{}, ls)
			ch, unsubscribe := c.Subscribe()
			defer unsubscribe()
			ctx := context.Background()
			c.Rescan(ctx)
			drain(ch) // the first load's change

			ls.set(tt.after...)
			c.Rescan(ctx)
			got := drain(ch)
			if tt.wantNone {
				if len(got) != 0 {
					t.Fatalf("got changes %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %d changes %+v, want exactly 1", len(got), got)
			}
			if !slices.Equal(got[0].Updated, tt.wantUpdated) || !slices.Equal(got[0].Removed, tt.wantRemoved) || got[0].Full {
				t.Errorf("change = %+v, want Updated %v Removed %v", got[0], tt.wantUpdated, tt.wantRemoved)
			}
			if list := keysOf(c.List(Filter{})); len(list) != len(tt.after) && !tt.wantNone {
				t.Errorf("listed %v after %v", list, tt.after)
			}
		})
	}
}

func TestFirstScanAlwaysReportsFull(t *testing.T) {
	tests := []struct {
		name        string
		infos       []session.Info
		wantUpdated []session.Key
	}{
		{"nothing found", nil, nil},
		{"sessions found", []session.Info{info("claude", "a", t0)}, []session.Key{key("claude", "a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{}, newListScanner("claude", tt.infos...))
			ch, unsubscribe := c.Subscribe()
			defer unsubscribe()
			c.Rescan(context.Background())
			got := drain(ch)
			if len(got) != 1 || !got[0].Full || !slices.Equal(got[0].Updated, tt.wantUpdated) {
				t.Fatalf("first scan published %+v, want one Full change with Updated %v", got, tt.wantUpdated)
			}
			if !c.Loaded() {
				t.Error("Loaded() = false after the first scan")
			}
		})
	}
}

func TestScanArguments(t *testing.T) {
	var gotLimit int
	keepSeen := []string{"sentinel"}
	fs := &fakeScanner{name: "claude", scanFn: func(_ context.Context, limit int, keep []string) ([]session.Info, error) {
		gotLimit, keepSeen = limit, keep
		return nil, nil
	}}
	keepRunning := func(rt string) []string {
		if rt == "claude" {
			return []string{"old-but-running"}
		}
		return nil
	}
	tests := []struct {
		name      string
		opts      Options
		wantLimit int
		wantKeep  []string
	}{
		{"every session by default", Options{}, -1, nil},
		{"custom limit", Options{Limit: 7}, 7, nil},
		{"sessions to keep", Options{Limit: 3, Keep: keepRunning}, 3, []string{"old-but-running"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			New(tt.opts, fs).Rescan(context.Background())
			if gotLimit != tt.wantLimit {
				t.Errorf("limit = %d, want %d", gotLimit, tt.wantLimit)
			}
			if !slices.Equal(keepSeen, tt.wantKeep) {
				t.Errorf("keep = %v, want %v", keepSeen, tt.wantKeep)
			}
		})
	}
}

func TestFailingRuntimeKeepsPreviousResult(t *testing.T) {
	var logs logBuffer
	claude := newListScanner("claude", info("claude", "c1", t0))
	codex := newListScanner("codex", info("codex", "x1", t0))
	c := New(Options{Logger: logs.logger()}, claude, codex)
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	ctx := context.Background()
	c.Rescan(ctx)
	drain(ch)

	// claude breaks; codex moves on.
	claude.fail(errors.New("projects dir unreadable"))
	codex.set(info("codex", "x1", t0), info("codex", "x2", t0.Add(time.Minute)))
	c.Rescan(ctx)
	got := drain(ch)
	if len(got) != 1 || !slices.Equal(got[0].Updated, []session.Key{key("codex", "x2")}) || len(got[0].Removed) != 0 || !got[0].Full {
		t.Fatalf("changes = %+v, want one adding codex:x2, full (the board shows the failure)", got)
	}
	if errs := c.Errors(); len(errs) != 1 || errs[0] != (RuntimeError{"claude", "projects dir unreadable"}) {
		t.Fatalf("Errors = %+v", errs)
	}
	want := []session.Key{key("codex", "x2"), key("claude", "c1"), key("codex", "x1")}
	if list := keysOf(c.List(Filter{})); !slices.Equal(list, want) {
		t.Fatalf("List = %v, want %v (claude's previous result kept)", list, want)
	}

	// The same failure again is not logged again; a new message is.
	c.Rescan(ctx)
	c.Rescan(ctx)
	if n := logs.count("projects dir unreadable"); n != 1 {
		t.Errorf("same error logged %d times, want 1", n)
	}
	claude.fail(errors.New("permission denied"))
	c.Rescan(ctx)
	if n := logs.count("permission denied"); n != 1 {
		t.Errorf("new error logged %d times, want 1", n)
	}
	// The same failure publishes nothing; a new message, a full re-read.
	if got := drain(ch); len(got) != 1 || !got[0].Full || len(got[0].Updated)+len(got[0].Removed) != 0 {
		t.Errorf("a changed failure published %+v, want one full change", got)
	}
	c.Rescan(ctx)
	if got := drain(ch); len(got) != 0 {
		t.Errorf("the same failure again published %+v, want nothing", got)
	}

	// Recovery is logged and its result applied.
	claude.set(info("claude", "c2", t0))
	c.Rescan(ctx)
	if n := logs.count("scan recovered"); n != 1 {
		t.Errorf("recovery logged %d times, want 1", n)
	}
	got = drain(ch)
	if len(got) != 1 || !slices.Equal(got[0].Updated, []session.Key{key("claude", "c2")}) ||
		!slices.Equal(got[0].Removed, []session.Key{key("claude", "c1")}) {
		t.Fatalf("after recovery changes = %+v", got)
	}
	if errs := c.Errors(); len(errs) != 0 {
		t.Fatalf("Errors after recovery = %+v", errs)
	}
}

func TestFailureIsolatedOnFirstScan(t *testing.T) {
	tests := []struct {
		name string
		scan func(context.Context, int, []string) ([]session.Info, error)
	}{
		{"error", func(context.Context, int, []string) ([]session.Info, error) {
			return nil, errors.New("broken")
		}},
		{"panic", func(context.Context, int, []string) ([]session.Info, error) {
			panic("odd history file")
		}},
		{"timeout", func(ctx context.Context, _ int, _ []string) ([]session.Info, error) {
			<-ctx.Done() // hangs until the catalog's per-runtime deadline
			return nil, ctx.Err()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs logBuffer
			bad := &fakeScanner{name: "bad", scanFn: tt.scan}
			good := newListScanner("good", info("good", "g1", t0))
			c := New(Options{Logger: logs.logger(), ScanTimeout: 50 * time.Millisecond}, bad, good)
			c.Rescan(context.Background())
			if !c.Loaded() {
				t.Fatal("Loaded() = false although the first scan finished")
			}
			if list := keysOf(c.List(Filter{})); !slices.Equal(list, []session.Key{key("good", "g1")}) {
				t.Fatalf("List = %v, want the good runtime's session", list)
			}
			if logs.count("scan failed") != 1 {
				t.Error("the failure was not logged once")
			}
		})
	}
}

func TestRescanCancelledChangesNothing(t *testing.T) {
	started := make(chan struct{})
	fs := &fakeScanner{name: "claude", scanFn: func(ctx context.Context, _ int, _ []string) ([]session.Info, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	c := New(Options{}, fs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Rescan(ctx); close(done) }()
	<-started
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Rescan did not return after cancel")
	}
	if c.Loaded() {
		t.Error("a cancelled first scan marked the catalog loaded")
	}
}

func TestNewRejectsDuplicateRuntime(t *testing.T) {
	tests := []struct {
		name     string
		scanners []Scanner
	}{
		{"duplicate", []Scanner{&fakeScanner{name: "claude"}, &fakeScanner{name: "claude"}}},
		{"empty name", []Scanner{&fakeScanner{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("New did not panic")
				}
			}()
			New(Options{}, tt.scanners...)
		})
	}
}
