package kimi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/procscan"
)

// cacheHome writes three sessions and returns the home and their wires.
func cacheHome(t *testing.T) (string, map[string]string) {
	t.Helper()
	home := t.TempDir()
	wires := map[string]string{}
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	for i, id := range []string{"session_a", "session_b", "session_c"} {
		at := base.Add(time.Duration(i) * time.Minute)
		ms := at.UnixMilli()
		wires[id] = fake{bucket: bucket, id: id, state: stateJSON(id, "/p", "", ms),
			wire: append([]string{recMeta(ms)}, turn("s", "first of "+id, "answer", ms)...), mtime: at}.write(t, home)
	}
	return home, wires
}

// The cheap signature: an unchanged tree and process set
// return the last result without reading a file; a changed file is read
// again, and only that one.
func TestScanSignature(t *testing.T) {
	home, wires := cacheHome(t)
	var mu sync.Mutex
	var procs []procscan.AgentProcess
	s := newTest(home, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) {
			mu.Lock()
			defer mu.Unlock()
			return procs, nil
		}
	})
	ctx := context.Background()
	scan := func() map[string]string {
		t.Helper()
		infos, err := s.Scan(ctx, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, i := range infos {
			out[i.ID] = i.Title + "|" + i.LastPrompt
			if i.Live {
				out[i.ID] += "|live"
			}
		}
		return out
	}
	parsed := func(want int64, step string) {
		t.Helper()
		if got := s.parses.Swap(0); got != want {
			t.Errorf("%s: %d summaries read, want %d", step, got, want)
		}
	}

	scan()
	parsed(3, "first scan")
	scan()
	parsed(0, "unchanged")

	// An append to one wire: that session is read again.
	f, err := os.OpenFile(wires["session_b"], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	ms := time.Now().UnixMilli()
	if _, err := f.WriteString(strings.Join(turn("s9", "a later prompt", "later", ms), "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := scan()["session_b"]; got != "first of session_b|a later prompt" {
		t.Errorf("after append: %q", got)
	}
	parsed(1, "after an append")

	// A rename in state.json alone (the wire unchanged) is seen too.
	statePath := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(wires["session_a"]))), "state.json")
	writeFile(t, statePath, `{"cwd":"/p","title":"Renamed","titleKind":"custom","lastPrompt":"first of session_a"}`)
	if got := scan()["session_a"]; got != "Renamed|first of session_a" {
		t.Errorf("after rename: %q", got)
	}
	parsed(1, "after a rename")

	// A process appearing changes liveness without reading any file.
	mu.Lock()
	procs = []procscan.AgentProcess{{PID: 4242, Runtime: "kimi", Interactive: true, ArgsHidden: true,
		ArgSessionID: "session_c", Cwd: "/p", Started: time.Now()}}
	mu.Unlock()
	if got := scan()["session_c"]; !strings.HasSuffix(got, "|live") {
		t.Errorf("with its process: %q", got)
	}
	parsed(0, "process appeared")
	mu.Lock()
	procs = nil
	mu.Unlock()
	if got := scan()["session_c"]; strings.HasSuffix(got, "|live") {
		t.Errorf("process gone: %q", got)
	}
	parsed(0, "process gone")

	// A new session is found; a removed one goes.
	ms = time.Now().UnixMilli()
	fake{bucket: "wd_other_000000000000", id: "session_new", state: stateJSON("session_new", "/q", "", ms),
		wire: append([]string{recMeta(ms)}, turn("s", "brand new", "a", ms)...)}.write(t, home)
	if _, ok := scan()["session_new"]; !ok {
		t.Error("new session not listed")
	}
	parsed(1, "new session")
	if err := os.RemoveAll(filepath.Dir(statePath)); err != nil {
		t.Fatal(err)
	}
	if _, ok := scan()["session_a"]; ok {
		t.Error("removed session still listed")
	}
	parsed(0, "removed session")

	// Another limit or keep set is another question.
	if _, err := s.Scan(ctx, 1, nil); err != nil {
		t.Fatal(err)
	}
	if infos, _ := s.Scan(ctx, 1, []string{"session_b"}); len(infos) != 2 {
		t.Errorf("keep ignored on a cache hit: %v", ids(infos))
	}
}

// A kimi-code sessions directory that exists but cannot be listed is an
// error (the catalog keeps its last good list), never "no sessions"; a
// missing one is simply no sessions.
func TestUnreadableSessionsDir(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "sessions"), "not a directory")
	if infos, err := New(Options{Home: home}).Scan(context.Background(), 10, nil); err == nil {
		t.Errorf("Scan = %v, nil; want an error", infos)
	}
	for _, h := range []string{"", filepath.Join(home, "missing")} {
		infos, err := New(Options{Home: h, LegacyHome: h}).Scan(context.Background(), 10, nil)
		if err != nil || len(infos) != 0 {
			t.Errorf("home %q: Scan = %v, %v", h, infos, err)
		}
	}
}

// A failing process list means nothing is live, not a failed scan.
func TestProcessesError(t *testing.T) {
	home, _ := cacheHome(t)
	s := newTest(home, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return nil, errors.New("no /proc") }
	})
	infos := scanAll(t, s)
	if len(infos) != 3 {
		t.Fatalf("listed %d", len(infos))
	}
	for _, i := range infos {
		if i.Live {
			t.Errorf("%s live", i.ID)
		}
	}
}

// Concurrent Scans, Sessions and Conversations are safe (go test -race).
func TestConcurrentUse(t *testing.T) {
	home, _ := cacheHome(t)
	s := newTest(home)
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if _, err := s.Scan(ctx, 2, []string{"session_a"}); err != nil {
					t.Error(err)
				}
				if _, err := s.Session(ctx, "session_b"); err != nil {
					t.Error(err)
				}
				if _, err := s.Conversation(ctx, "session_c"); err != nil {
					t.Error(err)
				}
				s.WatchDirs()
			}
		})
	}
	wg.Wait()
}

// WatchDirs names the sessions directory, its buckets, and the directories
// of the listed sessions whose files change in place.
func TestWatchDirs(t *testing.T) {
	home, wires := cacheHome(t)
	s := newTest(home)
	if dirs := s.WatchDirs(); len(dirs) != 2 {
		t.Errorf("before a scan: %v", dirs)
	}
	scanAll(t, s)
	dirs := s.WatchDirs()
	want := []string{filepath.Join(home, "sessions"), filepath.Join(home, "sessions", bucket)}
	for _, w := range wires {
		want = append(want, filepath.Dir(w), filepath.Dir(filepath.Dir(filepath.Dir(w))))
	}
	for _, w := range want {
		found := false
		for _, d := range dirs {
			found = found || d == w
		}
		if !found {
			t.Errorf("WatchDirs lacks %s: %v", w, dirs)
		}
	}
	if got := New(Options{}).WatchDirs(); len(got) != 0 {
		t.Errorf("no home: %v", got)
	}
}
