package catalog

import (
	"bufio"
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/session"
)

// fakeScanner is a Scanner made of function fields; a nil field gives an
// empty answer (or session.ErrNotFound).
type fakeScanner struct {
	name           string
	scanFn         func(ctx context.Context, limit int, keep []string) ([]session.Info, error)
	sessionFn      func(ctx context.Context, id string) (session.Info, error)
	conversationFn func(ctx context.Context, id string) ([]session.Message, error)
	watchDirsFn    func() []string
}

func (f *fakeScanner) Runtime() string { return f.name }

func (f *fakeScanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	if f.scanFn == nil {
		return nil, nil
	}
	return f.scanFn(ctx, limit, keep)
}

func (f *fakeScanner) Session(ctx context.Context, id string) (session.Info, error) {
	if f.sessionFn == nil {
		return session.Info{}, session.ErrNotFound
	}
	return f.sessionFn(ctx, id)
}

func (f *fakeScanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	if f.conversationFn == nil {
		return nil, nil
	}
	return f.conversationFn(ctx, id)
}

func (f *fakeScanner) WatchDirs() []string {
	if f.watchDirsFn == nil {
		return nil
	}
	return f.watchDirsFn()
}

// listScanner returns a fakeScanner whose Scan answers with whatever set
// last stored (a list or an error), and counts its calls.
type listScanner struct {
	*fakeScanner
	mu    sync.Mutex
	infos []session.Info
	err   error
	scans int
}

func newListScanner(name string, infos ...session.Info) *listScanner {
	ls := &listScanner{infos: infos}
	ls.fakeScanner = &fakeScanner{name: name, scanFn: func(context.Context, int, []string) ([]session.Info, error) {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		ls.scans++
		if ls.err != nil {
			return nil, ls.err
		}
		return slices.Clone(ls.infos), nil
	}}
	return ls
}

func (ls *listScanner) set(infos ...session.Info) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.infos, ls.err = infos, nil
}

func (ls *listScanner) fail(err error) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.err = err
}

// txtScanner is a tiny real-file runtime: each *.txt file in its dirs is a
// session (ID = file name without .txt, Updated = mtime, Title = first
// line) and each line is a user message. It proves the catalog against real
// fsnotify events and real file signatures.
type txtScanner struct {
	name  string
	dirs  []string
	mu    sync.Mutex
	convs int // Conversation calls
	scans int // Scan calls
}

func (ts *txtScanner) Runtime() string { return ts.name }

func (ts *txtScanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	ts.mu.Lock()
	ts.scans++
	ts.mu.Unlock()
	var out []session.Info
	for _, dir := range ts.dirs {
		paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			info, err := ts.info(p)
			if err != nil {
				continue // removed between Glob and Stat
			}
			out = append(out, info)
		}
	}
	return out, nil
}

func (ts *txtScanner) info(path string) (session.Info, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return session.Info{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return session.Info{}, err
	}
	title, _, _ := strings.Cut(string(data), "\n")
	return session.Info{
		Runtime: ts.name,
		ID:      strings.TrimSuffix(filepath.Base(path), ".txt"),
		Title:   title,
		Updated: fi.ModTime(),
		Path:    path,
	}, nil
}

func (ts *txtScanner) Session(ctx context.Context, id string) (session.Info, error) {
	for _, dir := range ts.dirs {
		if info, err := ts.info(filepath.Join(dir, id+".txt")); err == nil {
			return info, nil
		}
	}
	return session.Info{}, session.ErrNotFound
}

func (ts *txtScanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	ts.mu.Lock()
	ts.convs++
	ts.mu.Unlock()
	info, err := ts.Session(ctx, id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(info.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []session.Message
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		msgs = append(msgs, session.Message{Role: session.RoleUser, Text: sc.Text()})
	}
	return msgs, sc.Err()
}

func (ts *txtScanner) WatchDirs() []string { return ts.dirs }

func (ts *txtScanner) scanned() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.scans
}

func (ts *txtScanner) conversations() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.convs
}

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (lb *logBuffer) Write(p []byte) (int, error) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.buf.Write(p)
}

func (lb *logBuffer) count(substr string) int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return strings.Count(lb.buf.String(), substr)
}

func (lb *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// info builds a session for tests.
func info(rt, id string, updated time.Time) session.Info {
	return session.Info{Runtime: rt, ID: id, Title: "title " + id, Updated: updated}
}

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func key(rt, id string) session.Key { return session.Key{Runtime: rt, ID: id} }

// waitFor polls cond until it holds or the deadline passes. The deadline is
// generous on purpose: tests assert that something happens, not how fast.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitChange reads changes from ch until one satisfies match or the
// deadline passes.
func waitChange(t *testing.T, ch <-chan Change, what string, match func(Change) bool) Change {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c, ok := <-ch:
			if !ok {
				t.Fatalf("subscription closed while waiting for %s", what)
			}
			if match(c) {
				return c
			}
		case <-deadline:
			t.Fatalf("timed out waiting for a change: %s", what)
		}
	}
}

// startRun runs c.Run on its own goroutine and, at cleanup, cancels it and
// checks that it returns nil.
func startRun(t *testing.T, c *Catalog) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
}
