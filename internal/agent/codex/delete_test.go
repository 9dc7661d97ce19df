package codex

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/agenttest"
)

// fileState records every regular file under root (directories' mtimes
// change when a file in them goes, so they are left out).
func fileState(t *testing.T, root string) map[string]string {
	t.Helper()
	return historytest.Tree{Omit: func(p string) bool {
		st, err := os.Lstat(p)
		return err == nil && st.IsDir()
	}}.State(t, root)
}

// checkOnlyGone asserts that the files in gone are gone and every other
// file of before is byte-identical after; changed lists files the agent's
// own command may rewrite (its index).
func checkOnlyGone(t *testing.T, before, after map[string]string, gone []string, changed ...string) {
	t.Helper()
	for p, was := range before {
		now, ok := after[p]
		switch {
		case slices.Contains(gone, p):
			if ok {
				t.Errorf("%s still there", p)
			}
		case slices.Contains(changed, filepath.Base(p)):
		case !ok:
			t.Errorf("%s removed", p)
		case now != was:
			t.Errorf("%s changed", p)
		}
	}
}

// recordingRollout returns the path of a recorded session's rollout in a
// copy of the recording.
func recordingRollout(t *testing.T, dir, id string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	if len(m) != 1 {
		t.Fatalf("rollouts of %s: %v", id, m)
	}
	return m[0]
}

// Without the codex command Delete removes the session's rollouts (every
// copy) and nothing else: the other session, the state database and the
// index are byte-identical; Scan, Session, Conversation and Events no
// longer find it.
func TestDeleteFiles(t *testing.T) {
	ctx := context.Background()
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	s := newTestScanner(dir)
	if got := ids(scanAll(t, s)); len(got) != 2 {
		t.Fatalf("listed %v", got)
	}
	main := recordingRollout(t, dir, recChat)
	archived := filepath.Join(dir, archiveDir, filepath.Base(main))
	if err := os.MkdirAll(filepath.Dir(archived), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := copyFile(main, archived); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, indexFile), `{"id":"`+recChat+`","thread_name":"chat"}`+"\n")
	before := fileState(t, dir)

	if err := s.Delete(ctx, recChat); err != nil {
		t.Fatal(err)
	}
	checkOnlyGone(t, before, fileState(t, dir), []string{main, archived})
	if got := ids(scanAll(t, s)); !slices.Equal(got, []string{recTools}) {
		t.Errorf("listed after Delete: %v", got)
	}
	if _, err := s.Session(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session: %v", err)
	}
	if _, err := s.Conversation(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Conversation: %v", err)
	}
	if _, err := s.Events(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Events: %v", err)
	}
	if err := s.Delete(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
}

func TestDeleteUnknown(t *testing.T) {
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	s := newTestScanner(dir)
	before := fileState(t, dir)
	for _, id := range []string{"", "nope", "../../etc/passwd", "*", "rollout-*", "01a22933-9fa0-7061-a419-c6368c8164b0", "9fa0-7061-a419-c6368c8164b9"} {
		if err := s.Delete(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if err := New(Options{}).Delete(context.Background(), recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("no Codex home: %v", err)
	}
	checkOnlyGone(t, before, fileState(t, dir), nil)
}

// A session a live codex process holds is refused, as is one whose
// subagent it runs, a new session with only its writer lock held, and any
// session while the processes cannot be listed. Nothing is removed.
func TestDeleteLive(t *testing.T) {
	ctx := context.Background()
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	chat := recordingRollout(t, dir, recChat)
	tools := recordingRollout(t, dir, recTools)
	before := fileState(t, dir)

	var f fakeProcs
	f.add(100, true, chat)
	s := f.scanner(dir)
	if err := s.Delete(ctx, recChat); !errors.Is(err, session.ErrLive) {
		t.Errorf("held rollout: %v, want ErrLive", err)
	}
	if err := s.Delete(ctx, recTools); err != nil {
		t.Errorf("the other session: %v", err)
	}
	checkOnlyGone(t, before, fileState(t, dir), []string{tools})

	// A subagent of the chat session runs: the parent is live.
	const sub = "c0ffee00-0000-4000-8000-0000000000a1"
	subPath := filepath.Join(dir, "sessions", "2026", "11", "29", "rollout-2026-11-29T22-00-00-"+sub+".jsonl")
	writeFile(t, subPath, `{"timestamp":"2026-11-29T22:00:00Z","type":"session_meta","payload":{"id":"`+sub+`","cwd":"/p","thread_source":"subagent","parent_thread_id":"`+recChat+`"}}`+"\n")
	f = fakeProcs{}
	f.add(101, false, subPath)
	if err := f.scanner(dir).Delete(ctx, recChat); !errors.Is(err, session.ErrLive) {
		t.Errorf("running subagent: %v, want ErrLive", err)
	}

	// A new session: its writer lock is held, no rollout yet.
	const fresh = "c0ffee00-0000-4000-8000-0000000000a2"
	f = fakeProcs{}
	f.add(102, true, filepath.Join(dir, "thread-writer-locks", fresh+".lock"))
	if err := f.scanner(dir).Delete(ctx, fresh); !errors.Is(err, session.ErrLive) {
		t.Errorf("new live session: %v, want ErrLive", err)
	}

	// Liveness unknown.
	broken := New(Options{Dir: dir, KeepMissingCwd: true, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
		return nil, errors.New("no /proc")
	}})
	if err := broken.Delete(ctx, recChat); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Errorf("processes unreadable: %v, want an error", err)
	}
	// An unsupported platform has no liveness at all: nothing is live.
	unsupported := New(Options{Dir: dir, KeepMissingCwd: true, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
		return nil, procscan.ErrUnsupported
	}})
	if err := unsupported.Delete(ctx, recChat); err != nil {
		t.Errorf("unsupported platform: %v", err)
	}
	if _, err := os.Stat(chat); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("chat rollout after Delete: %v", err)
	}
}

// When the codex command fails, Delete reports its error and leaves the
// files alone. For an id that is not a UUID (which `codex delete --force`
// refuses), and for rollouts Codex cannot find (the legacy flat layout,
// the bare pre-envelope format), the command is not run and the rollout is
// removed here.
func TestDeleteCommand(t *testing.T) {
	ctx := context.Background()
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	bin := filepath.Join(t.TempDir(), "codex")
	called := filepath.Join(t.TempDir(), "called")
	writeFile(t, bin, "#!/bin/sh\necho \"$CODEX_HOME $*\" >> "+called+"\necho 'WARNING: noise' >&2\necho 'Error: failed to delete session' >&2\nprintf '\\nStack backtrace:\\n  0: <unknown>\\n' >&2\nexit 1\n")
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir, KeepMissingCwd: true, Bin: bin})
	before := fileState(t, dir)
	err := s.Delete(ctx, recChat)
	if err == nil || !strings.Contains(err.Error(), "Error: failed to delete session") ||
		strings.Contains(err.Error(), "backtrace") || strings.Contains(err.Error(), "WARNING") {
		t.Errorf("failing command: %v", err)
	}
	checkOnlyGone(t, before, fileState(t, dir), nil)
	if got, _ := os.ReadFile(called); string(got) != dir+" delete --force "+recChat+"\n" {
		t.Errorf("command ran as %q", got)
	}

	bare := `{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}` + "\n"
	for _, c := range []struct{ id, rel, first string }{
		{"legacy-flat-1", "sessions/rollout-legacy-flat-1.jsonl", `{"id":"legacy-flat-1","timestamp":"2025-01-01T00:00:00Z"}`},
		{"c0ffee00-0000-4000-8000-0000000000b1", "sessions/rollout-c0ffee00-0000-4000-8000-0000000000b1.jsonl",
			`{"id":"c0ffee00-0000-4000-8000-0000000000b1","timestamp":"2025-01-01T00:00:00Z"}`},
		{"c0ffee00-0000-4000-8000-0000000000b2", "sessions/2025/01/01/rollout-2025-01-01T00-00-00-c0ffee00-0000-4000-8000-0000000000b2.jsonl",
			`{"id":"c0ffee00-0000-4000-8000-0000000000b2","timestamp":"2025-01-01T00:00:00Z"}`},
	} {
		path := filepath.Join(dir, filepath.FromSlash(c.rel))
		writeFile(t, path, c.first+"\n"+bare)
		before = fileState(t, dir)
		if err := s.Delete(ctx, c.id); err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		checkOnlyGone(t, before, fileState(t, dir), []string{path})
	}
	if got, _ := os.ReadFile(called); strings.Count(string(got), "\n") != 1 {
		t.Errorf("command ran for a session it cannot find: %q", got)
	}
}

// The real, pinned Codex CLI deletes a recorded session through Delete:
// its rollout and its thread row go; the other session's rollout is
// byte-identical and still listed with its title from the state database.
// Codex itself creates its usual files in the home (skills, logs).
func TestDeleteRealCLI(t *testing.T) {
	bin := agenttest.Bin(t, agenttest.Codex)
	ctx := context.Background()
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	chat := recordingRollout(t, dir, recChat)
	// A legacy session Codex itself cannot delete any more.
	const legacy = "44444444-4444-4444-8444-444444444444"
	old := filepath.Join(dir, "sessions", "rollout-"+legacy+".jsonl")
	if err := copyFile(filepath.Join(sharedtestFixtures(t, "public", "codex", "claude-code-log", "test", "test_data", "codex", "sessions"), filepath.Base(old)), old); err != nil {
		t.Fatal(err)
	}
	before := fileState(t, dir)
	s := New(Options{Dir: dir, KeepMissingCwd: true, Bin: bin})
	if err := s.Delete(ctx, recChat); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	checkOnlyGone(t, before, fileState(t, dir), []string{chat, old}, stateFile, stateFile+"-wal", stateFile+"-shm")
	infos := scanAll(t, s)
	if len(infos) != 1 || infos[0].ID != recTools || infos[0].Title != "Mock title: please RUN the thing" {
		t.Errorf("listed after Delete: %+v", infos)
	}
	r, err := openState(ctx, s.snapshots, filepath.Join(dir, stateFile))
	if err != nil || r == nil {
		t.Fatalf("state database: %v", err)
	}
	defer r.close()
	for id, want := range map[string]bool{recChat: false, recTools: true} {
		th, err := r.thread(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.title != ""; got != want {
			t.Errorf("thread %s in the state database: %v, want %v", id, got, want)
		}
	}
	if err := s.Delete(ctx, recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
}
