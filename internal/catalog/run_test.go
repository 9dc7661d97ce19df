package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"paddock/internal/session"
)

func TestLoadedOnlyAfterFirstScan(t *testing.T) {
	// Buffered: the scan may run before the test reaches <-started, and
	// its non-blocking send must not be lost (a hang under load).
	started := make(chan struct{}, 1)
	release := make(chan struct{})
	fs := &fakeScanner{name: "claude", scanFn: func(ctx context.Context, _ int, _ []string) ([]session.Info, error) {
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return []session.Info{info("claude", "a", t0)}, nil
	}}
	c := New(Options{DisableWatch: true, SweepInterval: time.Hour}, fs)
	startRun(t, c)
	<-started

	if c.Loaded() {
		t.Fatal("Loaded() = true while the first scan is still running")
	}
	if got := c.List(Filter{}); len(got) != 0 {
		t.Fatalf("List = %v before loading", got)
	}
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.WaitLoaded(short); err == nil {
		t.Fatal("WaitLoaded returned nil while the first scan is still running")
	}

	close(release)
	ctx, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel2()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatalf("WaitLoaded: %v", err)
	}
	if !c.Loaded() || len(c.List(Filter{})) != 1 {
		t.Fatalf("after loading: Loaded %v, List %v", c.Loaded(), c.List(Filter{}))
	}
}

func TestRunReturnsOnCancel(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		blockScan bool // cancel while the first scan is still running
	}{
		{"watching, after load", Options{SweepInterval: 10 * time.Millisecond, Debounce: time.Millisecond}, false},
		{"sweep only, after load", Options{DisableWatch: true, SweepInterval: 10 * time.Millisecond}, false},
		{"during the first scan", Options{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			baseline := runtime.NumGoroutine()
			dir := t.TempDir()
			started := make(chan struct{}, 1)
			fs := &fakeScanner{
				name: "claude",
				scanFn: func(ctx context.Context, _ int, _ []string) ([]session.Info, error) {
					select {
					case started <- struct{}{}:
					default:
					}
					if tt.blockScan {
						<-ctx.Done()
						return nil, ctx.Err()
					}
					return nil, nil
				},
				watchDirsFn: func() []string { return []string{dir} },
			}
			c := New(tt.opts, fs)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- c.Run(ctx) }()
			<-started
			if !tt.blockScan {
				if err := c.WaitLoaded(context.Background()); err != nil {
					t.Fatal(err)
				}
				// Let the loop see some events and sweeps before stopping it.
				for i := range 5 {
					if err := os.WriteFile(filepath.Join(dir, "f"), []byte{byte(i)}, 0o600); err != nil {
						t.Fatal(err)
					}
				}
			}
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run did not return after cancel")
			}
			if tt.blockScan && c.Loaded() {
				t.Error("Loaded() = true although the first scan was cut short")
			}
			// Everything Run started (scan goroutines, fsnotify's reader)
			// has ended: the count drops back to where it was.
			waitFor(t, "Run's goroutines to end", func() bool { return runtime.NumGoroutine() <= baseline })
		})
	}
}

func TestRunTwice(t *testing.T) {
	c := New(Options{DisableWatch: true}, newListScanner("claude"))
	startRun(t, c)
	waitFor(t, "first Run to start", c.running.Load)
	if err := c.Run(context.Background()); err == nil {
		t.Fatal("a second concurrent Run returned nil")
	}
}

// hasKey reports whether ks holds k.
func hasKey(ks []session.Key, k session.Key) bool { return slices.Contains(ks, k) }

func TestWatchPublishesFileChanges(t *testing.T) {
	dir := t.TempDir()
	ts := &txtScanner{name: "txt", dirs: []string{dir}}
	// The sweep is an hour away: anything seen here came through fsnotify.
	c := New(Options{SweepInterval: time.Hour, Debounce: 20 * time.Millisecond}, ts)
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	startRun(t, c)
	if err := c.WaitLoaded(context.Background()); err != nil {
		t.Fatal(err)
	}
	k := key("txt", "a")
	path := filepath.Join(dir, "a.txt")

	if err := os.WriteFile(path, []byte("first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "a.txt created", func(chg Change) bool { return hasKey(chg.Updated, k) })
	if got, err := c.Get(context.Background(), k); err != nil || got.Title != "first" {
		t.Fatalf("Get after create = %+v, %v", got, err)
	}

	if err := os.WriteFile(path, []byte("second\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "a.txt rewritten", func(chg Change) bool {
		got, _ := c.Get(context.Background(), k)
		return hasKey(chg.Updated, k) && got.Title == "second"
	})

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "a.txt removed", func(chg Change) bool { return hasKey(chg.Removed, k) })
	if got := c.List(Filter{}); len(got) != 0 {
		t.Fatalf("List after removal = %v", got)
	}
}

func TestSweepWithoutWatch(t *testing.T) {
	dir := t.TempDir()
	ts := &txtScanner{name: "txt", dirs: []string{dir}}
	c := New(Options{DisableWatch: true, SweepInterval: 20 * time.Millisecond}, ts)
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	startRun(t, c)
	if err := c.WaitLoaded(context.Background()); err != nil {
		t.Fatal(err)
	}
	k := key("txt", "swept")
	path := filepath.Join(dir, "swept.txt")
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "the sweep to find swept.txt", func(chg Change) bool { return hasKey(chg.Updated, k) })
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitChange(t, ch, "the sweep to notice the removal", func(chg Change) bool { return hasKey(chg.Removed, k) })
}

func TestWatchDirectoryThatAppearsLater(t *testing.T) {
	tests := []struct {
		name  string
		sweep time.Duration
		// dirs returns the scanner's directories below root; the last one
		// does not exist at start.
		dirs func(root string) []string
	}{
		// The parent is watched, so creating the directory is an event;
		// the rescan it causes re-asks WatchDirs and adds the new one.
		{"parent watched: found by its event", time.Hour, func(root string) []string {
			return []string{root, filepath.Join(root, "project")}
		}},
		// Nothing above it is watched (~/.claude/projects made after
		// paddock started): only the sweep can find it.
		{"nothing above watched: found by the sweep", 20 * time.Millisecond, func(root string) []string {
			return []string{filepath.Join(root, "projects")}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var logs logBuffer
			root := t.TempDir()
			dirs := tt.dirs(root)
			late := dirs[len(dirs)-1]
			ts := &txtScanner{name: "txt", dirs: dirs}
			c := New(Options{SweepInterval: tt.sweep, Debounce: 20 * time.Millisecond, Logger: logs.logger()}, ts)
			added := make(chan string, 16)
			c.watchAdded = func(d string) {
				select {
				case added <- d:
				default:
				}
			}
			ch, unsubscribe := c.Subscribe()
			defer unsubscribe()
			startRun(t, c)
			if err := c.WaitLoaded(context.Background()); err != nil {
				t.Fatal(err)
			}
			if logs.count(`level=DEBUG msg="cannot watch directory`) != 1 {
				t.Error("the missing directory was not logged (once, at debug)")
			}

			if err := os.Mkdir(late, 0o700); err != nil {
				t.Fatal(err)
			}
			deadline := time.After(5 * time.Second)
			for watching := false; !watching; {
				select {
				case d := <-added:
					watching = d == late
				case <-deadline:
					t.Fatalf("%s never watched", late)
				}
			}
			k := key("txt", "new")
			if err := os.WriteFile(filepath.Join(late, "new.txt"), []byte("hello\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			waitChange(t, ch, "new.txt in the late directory", func(chg Change) bool { return hasKey(chg.Updated, k) })
		})
	}
}

// TestRunFirstLook: over a long list, Run's first scan lists only the
// newest FirstLook sessions of each runtime (Loaded: the board has its
// first page) and is then completed by a scan of every session
// (WaitComplete); a limit no larger than the first look is one scan.
func TestRunFirstLook(t *testing.T) {
	var all []session.Info
	for i := range 200 {
		all = append(all, info("claude", fmt.Sprintf("s%03d", i), t0.Add(-time.Duration(i)*time.Minute)))
	}
	release := make(chan struct{})
	var limits []int
	var mu sync.Mutex
	fs := &fakeScanner{name: "claude", scanFn: func(ctx context.Context, limit int, _ []string) ([]session.Info, error) {
		mu.Lock()
		limits = append(limits, limit)
		n := len(limits)
		mu.Unlock()
		if n == 2 {
			<-release // the whole list takes its time
		}
		if limit > 0 && limit < len(all) {
			return all[:limit], nil
		}
		return all, nil
	}}
	c := New(Options{DisableWatch: true, SweepInterval: time.Hour, FirstLook: 60}, fs)
	startRun(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.WaitLoaded(ctx); err != nil {
		t.Fatal(err)
	}
	if got := len(c.List(Filter{})); got != 60 {
		t.Errorf("the first look lists %d sessions, want 60", got)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if c.WaitComplete(short) == nil {
		t.Fatal("complete before the whole list was read")
	}
	close(release)
	if err := c.WaitComplete(ctx); err != nil {
		t.Fatal(err)
	}
	if got := len(c.List(Filter{})); got != 200 {
		t.Errorf("complete, the list holds %d sessions, want 200", got)
	}
	mu.Lock()
	if !slices.Equal(limits[:2], []int{60, -1}) {
		t.Errorf("scans with limits %v, want 60 then every session (-1)", limits)
	}
	mu.Unlock()

	limited := New(Options{DisableWatch: true, SweepInterval: time.Hour, FirstLook: 60, Limit: 50}, &fakeScanner{name: "claude",
		scanFn: func(_ context.Context, limit int, _ []string) ([]session.Info, error) { return all[:limit], nil }})
	startRun(t, limited)
	if err := limited.WaitComplete(ctx); err != nil || len(limited.List(Filter{})) != 50 {
		t.Errorf("a limit under the first look: %v, %d listed", err, len(limited.List(Filter{})))
	}
}

// TestWatchRescansAtOnceThenThrottles: a write to a file after a quiet
// spell is rescanned at once, not after the window; a change inside the
// window waits for its end (here an hour away), and so does a new file.
func TestWatchRescansAtOnceThenThrottles(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(a, []byte("first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := &txtScanner{name: "txt", dirs: []string{dir}}
	c := New(Options{SweepInterval: time.Hour, Debounce: time.Hour}, ts)
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	startRun(t, c)
	if err := c.WaitComplete(context.Background()); err != nil {
		t.Fatal(err)
	}
	// One write over the bytes in place (an agent appends whole lines in
	// one write; a truncation first could be read half done).
	write := func(path, text string) {
		t.Helper()
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write(a, "later\n")
	waitChange(t, ch, "a.txt rewritten, with the window an hour long", func(chg Change) bool {
		got, _ := c.Get(context.Background(), key("txt", "a"))
		return hasKey(chg.Updated, key("txt", "a")) && got.Title == "later"
	})
	// Inside the window: another write, and a new file, wait for its end.
	write(a, "third\n")
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(300 * time.Millisecond)
	for {
		select {
		case chg := <-ch:
			if hasKey(chg.Updated, key("txt", "b")) {
				t.Fatal("a change inside the window was rescanned before its end")
			}
		case <-deadline:
			return
		}
	}
}
