package codex

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

func id(n int) string { return fmt.Sprintf("01a20000-0000-7000-8000-%012d", n) }

// Subagent threads are internal and never listed, whichever
// way the rollout says so; a user's own fork of a session is listed.
func TestSubagentsNotListed(t *testing.T) {
	h := newHome(t)
	now := time.Now()
	for n, extra := range [][]any{
		{"thread_source", "subagent"},
		{"source", map[string]any{"subagent": "review"}},
		{"source", map[string]any{"subagent": map[string]any{"thread_spawn": map[string]any{"parent_thread_id": id(9), "depth": 1}}}},
		{"parent_thread_id", id(9)},
		{"source", map[string]any{"subagent": "compact"}, "thread_source", "user"},
	} {
		h.rollout(id(n), now, lines(meta(0, id(n), "/p", extra...), turn(1, "sub task", "done"))...)
	}
	h.rollout(id(7), now, lines(meta(0, id(7), "/p", "forked_from_id", id(9)), turn(1, "my fork", "ok"))...)
	h.rollout(id(8), now, lines(meta(0, id(8), "/p", "source", map[string]any{"custom": "x"}), turn(1, "custom source", "ok"))...)
	// A subagent known only to the state database.
	h.rollout(id(6), now, lines(meta(0, id(6), "/p"), turn(1, "spawned", "ok"))...)
	h.rollout(id(5), now, lines(meta(0, id(5), "/p"), turn(1, "by source column", "ok"))...)
	writeStateDB(t, filepath.Join(h.dir, stateFile), []dbRow{
		{id: id(5), source: `{"subagent":{"thread_spawn":{"parent_thread_id":"x"}}}`},
		{id: id(7), source: "cli"},
	}, [][2]string{{id(9), id(6)}})

	s := newTestScanner(h.dir)
	got := ids(scanAll(t, s))
	slices.Sort(got)
	if want := []string{id(7), id(8)}; !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6} {
		if _, err := s.Session(context.Background(), id(n)); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(subagent %d) = %v", n, err)
		}
	}
}

// Title priority: the last session_index.jsonl name, then the state
// database's name, then the first prompt, then the database's own title,
// then the last prompt.
func TestTitles(t *testing.T) {
	h := newHome(t)
	now := time.Now()
	h.rollout(id(1), now, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
	h.rollout(id(2), now, lines(meta(0, id(2), "/p"), turn(1, "first prompt", "a"))...)
	h.rollout(id(3), now, lines(meta(0, id(3), "/p"), turn(1, "first\nprompt   spread  over lines", "a"))...)
	h.rollout(id(4), now, lines(meta(0, id(4), "/p"), agentItem(1, "an answer before any prompt"))...)
	h.rollout(id(5), now, lines(meta(0, id(5), "/p"), turn(1, strings.Repeat("long ", 100), "a"))...)
	h.file(indexFile, time.Time{},
		map[string]any{"id": id(1), "thread_name": "old name", "updated_at": at(1)},
		`{"id":`, // a broken line
		map[string]any{"id": id(1), "thread_name": "renamed\nby me", "updated_at": at(2)},
		map[string]any{"id": nil, "thread_name": "no id"},
	)
	writeStateDB(t, filepath.Join(h.dir, stateFile), []dbRow{
		{id: id(1), name: "db name", title: "db title 1"},
		{id: id(2), name: "db name 2", title: "db title 2"},
		{id: id(4), title: "db title 4"},
	}, nil)
	got := byID(scanAll(t, newTestScanner(h.dir)))
	for n, want := range map[int][2]string{
		1: {"renamed by me", session.TitleAI},
		2: {"db name 2", session.TitleAI},
		3: {"first prompt spread over lines", session.TitlePrompt},
		4: {"db title 4", session.TitlePrompt},
		5: {strings.TrimSpace(strings.Repeat("long ", 24)) + "…", session.TitlePrompt},
	} {
		if i := got[id(n)]; i.Title != want[0] || i.TitleSource != want[1] {
			t.Errorf("%d: title %q (%s), want %q (%s)", n, i.Title, i.TitleSource, want[0], want[1])
		}
	}
	if p := got[id(3)].FirstPrompt; p != "first\nprompt   spread  over lines" {
		t.Errorf("FirstPrompt %q keeps the text as typed", p)
	}
}

// A thread nobody has typed into is listed only while its
// process lives, as a new session; without a process it is left out.
func TestEmptySessionOnlyWhileLive(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Now(), meta(0, id(1), "/p"), turnContext(0, "/p", "gpt-5"))
	s := newTestScanner(h.dir)
	if got := scanAll(t, s); len(got) != 0 {
		t.Fatalf("an empty thread without a process is listed: %+v", got)
	}
	if _, err := s.Session(context.Background(), id(1)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session = %v", err)
	}
	fake := &fakeProcs{}
	fake.add(4242, true, filepath.Join(h.dir, "sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(1)+".jsonl"))
	s = fake.scanner(h.dir)
	got := scanAll(t, s)
	if len(got) != 1 || got[0].ID != id(1) || !got[0].Live || got[0].PID != 4242 || got[0].Title != newSessionTitle || got[0].Model != "gpt-5" {
		t.Fatalf("live empty thread: %+v", got)
	}
}

// Sessions run in an ephemeral directory (a path segment "oc-manager-…")
// are dropped always; those whose directory is gone are dropped unless
// KeepMissingCwd is set or a process still runs them.
func TestCwdFilters(t *testing.T) {
	h := newHome(t)
	now := time.Now()
	real := t.TempDir()
	gone := filepath.Join(t.TempDir(), "removed")
	h.rollout(id(1), now, lines(meta(0, id(1), real), turn(1, "here", "a"))...)
	h.rollout(id(2), now, lines(meta(0, id(2), gone), turn(1, "gone", "a"))...)
	h.rollout(id(3), now, lines(meta(0, id(3), "/tmp/oc-manager-codex/work"), turn(1, "manager", "a"))...)
	h.rollout(id(4), now, lines(meta(0, id(4), `C:\Users\x\oc-manager-1\w`), turn(1, "manager on windows", "a"))...)
	h.rollout(id(5), now, lines(meta(0, id(5), ""), turn(1, "no cwd recorded", "a"))...)
	h.rollout(id(6), now, lines(meta(0, id(6), gone), turn(1, "gone but running", "a"))...)

	if got := ids(scanAll(t, New(Options{Dir: h.dir}))); !sameSet(got, id(1), id(5)) {
		t.Errorf("default: %q", got)
	}
	if got := ids(scanAll(t, newTestScanner(h.dir))); !sameSet(got, id(1), id(2), id(5), id(6)) {
		t.Errorf("KeepMissingCwd: %q", got)
	}
	fake := &fakeProcs{}
	fake.add(77, true, filepath.Join(h.dir, "sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(6)+".jsonl"))
	s := New(Options{Dir: h.dir, Processes: fake.list})
	s.openFiles = fake.openFiles
	if got := ids(scanAll(t, s)); !sameSet(got, id(1), id(5), id(6)) {
		t.Errorf("with a live process: %q", got)
	}
	// The directory comes back: the next scan lists its session again,
	// though no rollout changed.
	s = New(Options{Dir: h.dir})
	scanAll(t, s)
	if err := os.MkdirAll(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ids(scanAll(t, s)); !sameSet(got, id(1), id(2), id(5), id(6)) {
		t.Errorf("after the directory reappeared: %q", got)
	}
}

// A working directory's existence is checked once per scan,
// however many sessions share it.
func TestCwdCheckedOncePerScan(t *testing.T) {
	h := newHome(t)
	shared, other := t.TempDir(), t.TempDir()
	for n := range 200 {
		cwd := shared
		if n%50 == 0 {
			cwd = other
		}
		h.rollout(id(n), time.Now().Add(-time.Duration(n)*time.Second), lines(meta(0, id(n), cwd), turn(1, "p", "a"))...)
	}
	s := New(Options{Dir: h.dir})
	if got := scanAll(t, s); len(got) != 200 {
		t.Fatalf("%d listed", len(got))
	}
	if n := s.cwdChecks.Load(); n != 2 {
		t.Errorf("%d directory checks for 2 directories", n)
	}
}

func sameSet(got []string, want ...string) bool {
	return slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)))
}

// limit newest sessions plus every kept id, newest effective time first;
// a file touched long after its last event is dated by the event.
func TestLimitKeepAndOrder(t *testing.T) {
	h := newHome(t)
	now := time.Now().Truncate(time.Second)
	for n := range 10 {
		// Events an hour apart, mtimes a minute after each event.
		ev := now.Add(-time.Duration(10-n) * time.Hour)
		lineTime := ev.Format(time.RFC3339Nano)
		h.rollout(id(n), ev.Add(time.Minute),
			map[string]any{"timestamp": lineTime, "type": "session_meta", "payload": map[string]any{"id": id(n), "cwd": "/p", "timestamp": lineTime}},
			map[string]any{"timestamp": lineTime, "type": "event_msg", "payload": map[string]any{"type": "user_message", "message": fmt.Sprintf("prompt %d", n)}},
		)
	}
	// id(0) is the oldest conversation, but a sync tool touched it now.
	if err := os.Chtimes(filepath.Join(h.dir, "sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(0)+".jsonl"), now, now); err != nil {
		t.Fatal(err)
	}
	s := newTestScanner(h.dir)
	got, err := s.Scan(context.Background(), 3, []string{id(2), id(3), "nonexistent"})
	if err != nil {
		t.Fatal(err)
	}
	// Candidates go by mtime: id(0) (touched), 9, 8 fill the limit; 2 and 3
	// are kept. Sorted by effective time, id(0) is the oldest.
	if want := []string{id(9), id(8), id(3), id(2), id(0)}; !slices.Equal(ids(got), want) {
		t.Fatalf("got %q, want %q", ids(got), want)
	}
	last := got[len(got)-1]
	if last.TimeSource != session.TimeFromEvent || !last.Updated.Equal(now.Add(-10*time.Hour)) {
		t.Errorf("touched file: %+v", last)
	}
	if got[0].TimeSource != session.TimeFromFile {
		t.Errorf("untouched file: %+v", got[0])
	}
	all, _ := s.Scan(context.Background(), -1, nil)
	if len(all) != 10 {
		t.Errorf("limit -1: %d sessions", len(all))
	}
	none, _ := s.Scan(context.Background(), 0, nil)
	if len(none) != 0 {
		t.Errorf("limit 0: %d sessions", len(none))
	}
}

// Listing reads the head and tail of only the files it lists: with 500
// rollouts and limit 20, a fresh scanner parses 20 (never a
// full parse of everything).
func TestScanParsesOnlyWhatItLists(t *testing.T) {
	h := newHome(t)
	now := time.Now()
	for n := range 500 {
		h.file(fmt.Sprintf("sessions/2026/01/%02d/rollout-2026-01-02T10-00-00-%s.jsonl", 1+n%28, id(n)),
			now.Add(-time.Duration(n)*time.Second), lines(meta(0, id(n), "/p"), turn(1, "p", "a"))...)
	}
	for _, limit := range []int{1, 20, 200} {
		s := newTestScanner(h.dir)
		infos, err := s.Scan(context.Background(), limit, nil)
		if err != nil || len(infos) != limit {
			t.Fatalf("limit %d: %d, %v", limit, len(infos), err)
		}
		if n := s.parsed.Load(); n != int64(limit) {
			t.Errorf("limit %d: parsed %d rollouts", limit, n)
		}
		if infos[0].ID != id(0) || infos[limit-1].ID != id(limit-1) {
			t.Errorf("limit %d: %s … %s", limit, infos[0].ID, infos[limit-1].ID)
		}
	}
}

// The head stops soon after the first prompt; the tail gives the last
// prompt and the latest model of a long session, and the count covers what
// head and tail saw.
func TestSummaryHeadAndTail(t *testing.T) {
	h := newHome(t)
	ls := []any{meta(0, id(1), "/p"), turnContext(0, "/p", "model-a")}
	for n := range 400 {
		ls = append(ls, turn(1+2*n, fmt.Sprintf("prompt %d %s", n, strings.Repeat("x", 400)), "ok")...)
	}
	ls = append(ls, turnContext(900, "/elsewhere", "model-b"), respMsg(901, "user", "the last prompt"), userItem(901, "the last prompt"))
	h.rollout(id(1), time.Now(), ls...)
	got := scanAll(t, newTestScanner(h.dir))[0]
	if !strings.HasPrefix(got.FirstPrompt, "prompt 0 ") || got.LastPrompt != "the last prompt" || got.Model != "model-b" || got.Cwd != "/p" {
		t.Errorf("%+v", got)
	}
	if got.PromptCount < 2 || got.PromptCount > 400 {
		t.Errorf("PromptCount %d", got.PromptCount)
	}
}

// Rollouts are found in every layout Codex used: sessions/YYYY/MM/DD,
// the flat sessions/, and archived_sessions/; names without a rollout
// shape, directories and .zst files are not sessions.
func TestLayouts(t *testing.T) {
	h := newHome(t)
	now := time.Now()
	h.file("sessions/rollout-"+id(1)+".jsonl", now, lines(meta(0, id(1), "/p"), turn(1, "flat", "a"))...)
	h.file("archived_sessions/rollout-2025-12-01T09-08-07-"+id(2)+".jsonl", now, lines(meta(0, id(2), "/p"), turn(1, "archived", "a"))...)
	h.file("sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(3)+".jsonl", now, lines(meta(0, id(3), "/p"), turn(1, "dated", "a"))...)
	h.file("sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(4)+".jsonl.zst", now, "compressed")
	h.file("sessions/2026/01/02/notes.jsonl", now, lines(turn(1, "not a rollout", "a"))...)
	h.file("sessions/2026/01/02/rollout-bad id.jsonl", now, lines(turn(1, "bad id", "a"))...)
	if err := os.MkdirAll(filepath.Join(h.dir, "sessions/2026/01/02/rollout-dir-"+id(5)+".jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newTestScanner(h.dir)
	if got := ids(scanAll(t, s)); !sameSet(got, id(1), id(2), id(3)) {
		t.Fatalf("listed %q", got)
	}
	// Session finds each without a scan's index.
	s = newTestScanner(h.dir)
	for _, n := range []int{1, 2, 3} {
		if info, err := s.Session(context.Background(), id(n)); err != nil || info.ID != id(n) {
			t.Errorf("Session(%d) = %+v, %v", n, info, err)
		}
	}
	// An id that merely ends another id names nothing.
	if _, err := s.Session(context.Background(), "0000-7000-8000-000000000001"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("suffix id: %v", err)
	}
}

func TestRolloutID(t *testing.T) {
	for name, want := range map[string]string{
		"rollout-2026-11-29T21-26-18-01a22933-9fa0-7061-a419-c6368c8164b9.jsonl": "01a22933-9fa0-7061-a419-c6368c8164b9",
		"rollout-44444444-4444-4444-8444-444444444444.jsonl":                     "44444444-4444-4444-8444-444444444444",
		"rollout-2026-01-02T10-00-00-fc-1.jsonl":                                 "fc-1",
		"rollout-2026-01-02T10-00-00-.jsonl":                                     "",
		"rollout-.jsonl":                                                         "",
		"rollout-x.jsonl.zst":                                                    "",
		"rollout-a/b.jsonl":                                                      "",
		"session-x.jsonl":                                                        "",
	} {
		got, ok := rolloutID(name)
		if got := map[bool]string{true: got}[ok]; got != want {
			t.Errorf("rolloutID(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestNoCodexHome(t *testing.T) {
	for _, dir := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		s := New(Options{Dir: dir})
		if got, err := s.Scan(context.Background(), 10, nil); err != nil || len(got) != 0 {
			t.Errorf("%q: %v, %v", dir, got, err)
		}
		if _, err := s.Session(context.Background(), id(1)); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("%q: Session %v", dir, err)
		}
		if len(s.WatchDirs()) != 0 {
			t.Errorf("%q: WatchDirs %v", dir, s.WatchDirs())
		}
	}
}

func TestDefaultOptions(t *testing.T) {
	t.Setenv("CODEX_HOME", "/x/codex")
	t.Setenv("CODEX_SQLITE_HOME", "")
	if o := DefaultOptions(); o.Dir != "/x/codex" || New(o).stateDir != "/x/codex" {
		t.Errorf("%+v", o)
	}
	t.Setenv("CODEX_SQLITE_HOME", "/y/state")
	if o := DefaultOptions(); New(o).stateDir != "/y/state" {
		t.Errorf("%+v", o)
	}
	t.Setenv("CODEX_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if o := DefaultOptions(); o.Dir != "/home/someone/.codex" {
		t.Errorf("%+v", o)
	}
}

func TestWatchDirs(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, meta(0, id(1), "/p"))
	h.file("archived_sessions/rollout-"+id(2)+".jsonl", time.Time{}, meta(0, id(2), "/p"))
	if err := os.MkdirAll(filepath.Join(h.dir, "thread-writer-locks"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := newTestScanner(h.dir).WatchDirs()
	want := []string{h.dir, filepath.Join(h.dir, "thread-writer-locks"), filepath.Join(h.dir, "sessions"),
		filepath.Join(h.dir, "sessions/2026"), filepath.Join(h.dir, "sessions/2026/01"),
		filepath.Join(h.dir, "sessions/2026/01/02"), filepath.Join(h.dir, "archived_sessions")}
	if !slices.Equal(got, want) {
		t.Errorf("WatchDirs = %q, want %q", got, want)
	}
}
