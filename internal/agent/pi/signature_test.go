package pi

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// A rescan with no changed file and no changed Pi process
// returns the last result without reading any file; a changed file is
// re-read (only that one), and so is the answer when a process comes or
// goes. Parses are counted, not timed.
func TestScanSignature(t *testing.T) {
	agent := t.TempDir()
	a := writeChat(t, agent, "sess-a", proj, 0, "alpha")
	writeChat(t, agent, "sess-b", proj, 10, "beta")
	var procs []procscan.AgentProcess
	s := newTestScanner(agent, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return slices.Clone(procs), nil }
	})
	ctx := context.Background()
	scan := func() []session.Info {
		t.Helper()
		got, err := s.Scan(ctx, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}

	first := scan()
	if n := s.parses.Load(); n != 2 || len(first) != 2 {
		t.Fatalf("first scan: %d parses, %v", n, ids(first))
	}
	second := scan()
	if n := s.parses.Load(); n != 2 {
		t.Errorf("unchanged rescan parsed %d files", n-2)
	}
	if !slices.Equal(first, second) {
		t.Errorf("unchanged rescan %+v, want %+v", second, first)
	}

	// Callers may change what they get: the cache must not see it.
	second[0].Title = "changed by a caller"
	second[0].Live = true
	if third := scan(); !slices.Equal(third, first) {
		t.Errorf("a caller's change leaked into the cache: %+v", third)
	}

	// Pi appends a turn to sess-a: only that file is read again.
	f, err := os.OpenFile(a, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(msgLine("u9", "a0", "user", "appended prompt", 30) + msgLine("a9", "u9", "assistant", "ok", 31))
	f.Close()
	setMtime(t, a, t0.Add(31*time.Minute))
	got := scan()
	if n := s.parses.Load(); n != 3 {
		t.Errorf("after an append: %d parses, want 3", n)
	}
	if got[0].ID != "sess-a" || got[0].LastPrompt != "appended prompt" || got[0].PromptCount != 2 {
		t.Errorf("after an append: %+v", got[0])
	}

	// A Pi process starts for sess-b: live, with no file read.
	procs = []procscan.AgentProcess{{PID: 4242, Runtime: "pi", Interactive: true, ArgsHidden: true, Argv: []string{"pi"}, SessionID: "sess-b"}}
	got = scan()
	if n := s.parses.Load(); n != 3 {
		t.Errorf("a process change re-read %d files", n-3)
	}
	if got[1].ID != "sess-b" || !got[1].Live || got[1].PID != 4242 {
		t.Errorf("with the process: %+v", got[1])
	}
	// And exits.
	procs = nil
	if got = scan(); got[1].Live {
		t.Errorf("after the process exited: %+v", got[1])
	}

	// Same mtime and size, new inode (rewritten by rename): re-read.
	st, _ := os.Stat(a)
	data, _ := os.ReadFile(a)
	tmp := filepath.Join(filepath.Dir(a), "tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, a); err != nil {
		t.Fatal(err)
	}
	setMtime(t, a, st.ModTime())
	before := s.parses.Load()
	scan()
	if s.parses.Load() == before && history.SigOf(st).Ino != 0 {
		t.Error("a file replaced by rename was not re-read")
	}

	// A different request is not served from the cache.
	if got, _ := s.Scan(ctx, 1, nil); len(got) != 1 {
		t.Errorf("Scan(1) = %v", ids(got))
	}
	if got, _ := s.Scan(ctx, 1, []string{"sess-b"}); len(got) != 2 {
		t.Errorf("Scan(1, keep) = %v", ids(got))
	}

	// A new session file appears.
	writeChat(t, agent, "sess-c", proj, 50, "gamma")
	if got := scan(); len(got) != 3 || got[0].ID != "sess-c" {
		t.Errorf("after a new file: %v", ids(got))
	}
}

// Listing reads only what it lists: with many sessions and a small limit,
// a fresh scanner parses exactly limit files (the rest is one stat each).
func TestScanReadsOnlyWhatItLists(t *testing.T) {
	agent := t.TempDir()
	for i := range 60 {
		writeChat(t, agent, "s"+string(rune('a'+i/26))+string(rune('a'+i%26)), proj, i*3, "x")
	}
	for _, limit := range []int{1, 10, 50} {
		s := newTestScanner(agent)
		got, err := s.Scan(context.Background(), limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != limit || s.parses.Load() != int64(limit) {
			t.Errorf("Scan(%d): %d listed, %d files parsed", limit, len(got), s.parses.Load())
		}
	}
}

// A sessions directory that is there but unreadable is an error (the
// catalog keeps its last good list), never "no sessions"; a missing one is
// simply no sessions.
func TestUnreadableSessionsDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: permissions do not stop reads; checking the missing-dir case only")
	}
	agent := t.TempDir()
	s := newTestScanner(agent)
	if got, err := s.Scan(context.Background(), 10, nil); err != nil || len(got) != 0 {
		t.Errorf("no sessions dir: %v, %v", got, err)
	}
	if got := s.WatchDirs(); !slices.Equal(got, []string{s.dir}) {
		t.Errorf("WatchDirs without sessions/ = %v, want the agent dir", got)
	}
	if got, err := newTestScanner("").Scan(context.Background(), 10, nil); err != nil || got != nil {
		t.Errorf("no agent dir: %v, %v", got, err)
	}
	writeChat(t, agent, "x", proj, 0, "x")
	if os.Geteuid() != 0 {
		sessions := filepath.Join(agent, "sessions")
		if err := os.Chmod(sessions, 0); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(sessions, 0o755)
		if _, err := newTestScanner(agent).Scan(context.Background(), 10, nil); err == nil {
			t.Error("an unreadable sessions dir gave no error")
		}
	}
}

func TestWatchDirs(t *testing.T) {
	agent := t.TempDir()
	writeChat(t, agent, "x", proj, 0, "x")
	writeFile(t, filepath.Join(agent, "sessions", "corral-ab", "deep", "y.jsonl"), chat("y", proj, 0, "y"))
	s := newTestScanner(agent)
	want := []string{
		filepath.Join(agent, "sessions"),
		filepath.Join(agent, "sessions", "--home-u-proj--"),
		filepath.Join(agent, "sessions", "corral-ab"),
		filepath.Join(agent, "sessions", "corral-ab", "deep"),
	}
	got := s.WatchDirs() // before any scan
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("WatchDirs = %v, want %v", got, want)
	}
	if _, err := s.Scan(context.Background(), -1, nil); err != nil {
		t.Fatal(err)
	}
	got = s.WatchDirs()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("WatchDirs after a scan = %v, want %v", got, want)
	}
}
