package catalog

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"paddock/internal/session"
)

// clock is a settable time for freshness tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestFreshnessDue(t *testing.T) {
	names := []string{"a"}
	procs := map[string]uint64{"a": 7}
	tests := []struct {
		name string
		// setup acts on a freshness whose runtime "a" was scanned once,
		// watched, with processes {a: 7} and keep "k", 10 s ago.
		setup   func(f *freshness, clk *clock)
		procs   map[string]uint64
		procsOK bool
		keep    string
		want    bool
	}{
		{"nothing changed", func(*freshness, *clock) {}, procs, true, "k", false},
		{"a file event", func(f *freshness, _ *clock) { f.touch(0) }, procs, true, "k", true},
		{"an event for every runtime", func(f *freshness, _ *clock) { f.touchAll() }, procs, true, "k", true},
		{"its processes changed", func(*freshness, *clock) {}, map[string]uint64{"a": 8}, true, "k", true},
		{"its processes ended", func(*freshness, *clock) {}, map[string]uint64{}, true, "k", true},
		{"another runtime's processes changed", func(*freshness, *clock) {}, map[string]uint64{"a": 7, "b": 1}, true, "k", false},
		{"processes unknown", func(*freshness, *clock) {}, nil, false, "k", true},
		{"keep changed", func(*freshness, *clock) {}, procs, true, "k2", true},
		{"a directory not watched", func(f *freshness, _ *clock) { f.watching(true, []bool{false}) }, procs, true, "k", true},
		{"watcher gone", func(f *freshness, _ *clock) { f.watching(false, nil) }, procs, true, "k", true},
		{"a minute since its scan", func(_ *freshness, clk *clock) { clk.advance(time.Minute) }, procs, true, "k", true},
		{"last scan failed", func(f *freshness, clk *clock) {
			_, m := f.due(procs, true, names, []string{"k"})
			f.mark(0, m[0], false, false)
		}, procs, true, "k", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			f := newFreshness(1, time.Minute, clk.now)
			f.watching(true, []bool{true})
			if due, _ := f.due(procs, true, names, []string{"k"}); !due[0] {
				t.Fatal("a runtime never scanned is not due")
			}
			_, m := f.due(procs, true, names, []string{"k"})
			f.mark(0, m[0], true, false)
			clk.advance(10 * time.Second)
			tt.setup(f, clk)
			due, _ := f.due(tt.procs, tt.procsOK, names, []string{tt.keep})
			if due[0] != tt.want {
				t.Errorf("due = %v, want %v", due[0], tt.want)
			}
		})
	}
}

// An event just before a scan began may describe a change the scan could
// not see yet (a SQLite commit): the runtime stays due until a scan that
// began well after the event.
func TestFreshnessRacyEvent(t *testing.T) {
	names, keep := []string{"a"}, []string{""}
	clk := newClock()
	f := newFreshness(1, time.Minute, clk.now)
	f.watching(true, []bool{true})
	_, m := f.due(nil, true, names, keep)
	f.mark(0, m[0], true, false)

	f.touch(0)
	clk.advance(100 * time.Millisecond) // the debounce
	due, m := f.due(nil, true, names, keep)
	if !due[0] {
		t.Fatal("not due after an event")
	}
	f.mark(0, m[0], true, false)
	clk.advance(5 * time.Second) // the next sweep
	due, m = f.due(nil, true, names, keep)
	if !due[0] {
		t.Fatal("a scan begun 100 ms after the event counted as having seen it")
	}
	f.mark(0, m[0], true, false)
	clk.advance(5 * time.Second)
	if due, _ = f.due(nil, true, names, keep); due[0] {
		t.Fatal("still due after a scan begun 5 s after the event")
	}
}

// A running session its history does not list yet keeps the runtime due
// every sweep (its agent may write it where no watch reports it), for at
// most keepMissingFor; once listed, the runtime rests again.
func TestFreshnessMissingKeptSession(t *testing.T) {
	names, keep := []string{"a"}, []string{keepKey([]string{"s1"})}
	clk := newClock()
	f := newFreshness(1, time.Hour, clk.now)
	f.watching(true, []bool{true})
	_, m := f.due(nil, true, names, keep)
	f.mark(0, m[0], true, true) // s1 runs, not written yet
	for range 3 {
		clk.advance(3 * time.Second)
		due, m := f.due(nil, true, names, keep)
		if !due[0] {
			t.Fatal("not due while a running session is missing")
		}
		f.mark(0, m[0], true, true)
	}
	_, m = f.due(nil, true, names, keep)
	f.mark(0, m[0], true, false) // listed now
	clk.advance(3 * time.Second)
	if due, _ := f.due(nil, true, names, keep); due[0] {
		t.Fatal("still due once the session is listed")
	}
	// A session that never shows stops costing a scan a sweep.
	keep = []string{keepKey([]string{"s2"})}
	_, m = f.due(nil, true, names, keep)
	f.mark(0, m[0], true, true)
	clk.advance(keepMissingFor + time.Second)
	_, m = f.due(nil, true, names, keep)
	f.mark(0, m[0], true, true)
	clk.advance(3 * time.Second)
	if due, _ := f.due(nil, true, names, keep); due[0] {
		t.Fatalf("still due %s after the session went missing", keepMissingFor)
	}
}

// TestSweepSkipsUntouchedRuntimes runs the catalog with a real watcher over
// two runtimes in their own directories and checks which ones each sweep
// scans.
func TestSweepSkipsUntouchedRuntimes(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	a := &txtScanner{name: "a", dirs: []string{dirA}}
	b := &txtScanner{name: "b", dirs: []string{dirB}}
	var mu sync.Mutex
	procs := map[string]uint64{"a": 1, "b": 1}
	keepB := []string(nil)
	c := New(Options{
		SweepInterval: time.Hour, Debounce: 20 * time.Millisecond,
		ProcessFingerprint: func(context.Context) (map[string]uint64, error) {
			mu.Lock()
			defer mu.Unlock()
			return map[string]uint64{"a": procs["a"], "b": procs["b"]}, nil
		},
		Keep: func(rt string) []string {
			mu.Lock()
			defer mu.Unlock()
			if rt == "b" {
				return keepB
			}
			return nil
		},
	}, a, b)
	clk := newClock()
	c.fresh.now = clk.now
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	startRun(t, c)
	ctx := context.Background()
	if err := c.WaitComplete(ctx); err != nil {
		t.Fatal(err)
	}
	counts := func() [2]int { return [2]int{a.scanned(), b.scanned()} }
	expect := func(what string, before [2]int, wantA, wantB bool) {
		t.Helper()
		after := counts()
		if gotA, gotB := after[0] > before[0], after[1] > before[1]; gotA != wantA || gotB != wantB {
			t.Errorf("%s: scanned a=%v b=%v, want a=%v b=%v", what, gotA, gotB, wantA, wantB)
		}
	}

	clk.advance(2 * time.Second)
	before := counts()
	c.Sweep(ctx)
	expect("nothing changed", before, false, false)

	before = counts()
	if err := os.WriteFile(filepath.Join(dirA, "x.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "x.txt listed", func(chg Change) bool { return hasKey(chg.Updated, key("a", "x")) })
	expect("a file written in a's directory", before, true, false)
	// Let the write's other events (create, then write) and the sweeps
	// they cause pass before counting again.
	time.Sleep(200 * time.Millisecond)

	// The scan the event caused began within racyWindow of it: one more
	// sweep looks again, then a is settled.
	clk.advance(2 * time.Second)
	c.Sweep(ctx)
	before = counts()
	c.Sweep(ctx)
	expect("after the event settled", before, false, false)

	before = counts()
	mu.Lock()
	procs["b"] = 2
	mu.Unlock()
	c.Sweep(ctx)
	expect("b's processes changed", before, false, true)

	before = counts()
	mu.Lock()
	keepB = []string{"pinned"}
	mu.Unlock()
	c.Sweep(ctx)
	expect("b's kept sessions changed", before, false, true)

	before = counts()
	clk.advance(time.Minute)
	c.Sweep(ctx)
	expect("a minute later", before, true, true)

	before = counts()
	c.Rescan(ctx)
	expect("Rescan", before, true, true)
}

// Without a watcher or without process fingerprints nothing can be
// trusted: every sweep scans every runtime.
func TestSweepScansEverythingWhenItCannotTrust(t *testing.T) {
	fp := func(context.Context) (map[string]uint64, error) { return map[string]uint64{}, nil }
	tests := []struct {
		name string
		opts Options
	}{
		{"no watcher", Options{DisableWatch: true, SweepInterval: time.Hour, ProcessFingerprint: fp}},
		{"no process fingerprint", Options{SweepInterval: time.Hour}},
		{"fingerprint fails", Options{SweepInterval: time.Hour, ProcessFingerprint: func(context.Context) (map[string]uint64, error) {
			return nil, os.ErrPermission
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := &txtScanner{name: "txt", dirs: []string{t.TempDir()}}
			c := New(tt.opts, ts)
			startRun(t, c)
			if err := c.WaitComplete(context.Background()); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				before := ts.scanned()
				c.Sweep(context.Background())
				if ts.scanned() == before {
					t.Fatal("a sweep skipped a runtime it cannot trust")
				}
			}
		})
	}
}

// A directory watched only now may already hold what was written before
// its watch existed: its runtime is due at once, not at the minute's full
// sweep.
func TestNewWatchMakesItsRuntimeDue(t *testing.T) {
	dir := t.TempDir()
	ts := &txtScanner{name: "txt", dirs: []string{dir}}
	fp := func(context.Context) (map[string]uint64, error) { return map[string]uint64{}, nil }
	c := New(Options{ProcessFingerprint: fp}, ts)
	c.fresh.now = newClock().now
	c.Rescan(context.Background())
	ws := c.newWatchSet()
	defer ws.close()
	if ws.w == nil {
		t.Fatal("no file watcher: inotify is unavailable")
	}
	if !ws.sync(c.scanners) {
		t.Fatal("the directory was not watched")
	}
	if due, _ := c.fresh.due(map[string]uint64{}, true, []string{"txt"}, []string{""}); !due[0] {
		t.Error("a runtime whose directory was just watched is not due")
	}
}

// Two names for one directory (a symlink) are one watch: both runtimes
// hear its events, and the watcher does not re-add the second name after
// every sweep.
func TestSymlinkedDirectoryIsOneWatch(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	a := &txtScanner{name: "a", dirs: []string{real}}
	b := &txtScanner{name: "b", dirs: []string{link}}
	fp := func(context.Context) (map[string]uint64, error) { return map[string]uint64{}, nil }
	c := New(Options{SweepInterval: time.Hour, Debounce: 20 * time.Millisecond, ProcessFingerprint: fp}, a, b)
	var mu sync.Mutex
	adds := 0
	c.watchAdded = func(string) { mu.Lock(); adds++; mu.Unlock() }
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	startRun(t, c)
	if err := c.WaitComplete(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "x.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "x.txt listed by both runtimes", func(Change) bool {
		_, errA := c.Get(context.Background(), key("a", "x"))
		_, errB := c.Get(context.Background(), key("b", "x"))
		return errA == nil && errB == nil
	})
	time.Sleep(200 * time.Millisecond) // sweeps a re-add would cause
	mu.Lock()
	defer mu.Unlock()
	if adds != 1 {
		t.Errorf("the directory was added to the watcher %d times, want 1", adds)
	}
}

// A sweep cut short applies nothing, so it must not record anything as
// seen either: the runtime that finished in time is still due.
func TestCancelledSweepRecordsNothing(t *testing.T) {
	started := make(chan struct{})
	quick := newListScanner("quick", info("quick", "a", time.Now()))
	slow := &fakeScanner{name: "slow", scanFn: func(ctx context.Context, _ int, _ []string) ([]session.Info, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	fp := func(context.Context) (map[string]uint64, error) { return map[string]uint64{}, nil }
	c := New(Options{ProcessFingerprint: fp}, quick, slow)
	c.fresh.watching(true, []bool{true, true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { c.Sweep(ctx); close(done) }()
	<-started
	cancel()
	<-done
	if due, _ := c.fresh.due(map[string]uint64{}, true, []string{"quick", "slow"}, []string{"", ""}); !due[0] {
		t.Error("the runtime of a cancelled sweep counts as seen")
	}
}
