package pi

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// recordedAgentDir copies every recording's agent dir into one temp dir
// and returns it with the recorded files' header ids by session name.
func recordedAgentDir(t *testing.T) (string, map[string]string) {
	t.Helper()
	agent := t.TempDir()
	ids := map[string]string{}
	for _, dir := range piRecordings(t) {
		copyTree(t, filepath.Join(dir, "pi"), agent)
		for _, rs := range readRecording(t, dir).Sessions {
			id, err := IDOf(filepath.Join(dir, rs.Files[0]))
			if err != nil {
				t.Fatal(err)
			}
			ids[rs.Name] = id
		}
	}
	return agent, ids
}

// TestDelete deletes the recorded `tools` session from a copy: its file is
// gone, every other file is byte for byte as it was (the folder itself
// stays), Scan — whose unchanged-result shortcut had the session — no
// longer lists it, and deleting it again is session.ErrNotFound.
func TestDelete(t *testing.T) {
	agent, ids := recordedAgentDir(t)
	id := ids["tools"]
	var procs []procscan.AgentProcess // a Pi runs, bound to another session
	s := newTestScanner(agent, func(o *Options) {
		o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }
	})
	procs = []procscan.AgentProcess{{PID: 4242, Runtime: "pi", Interactive: true, ArgsHidden: true, SessionID: ids["chat"]}}
	for range 2 { // the second scan is the unchanged shortcut's
		if got := scanAll(t, s); got[id].ID != id || !got[ids["chat"]].Live {
			t.Fatalf("before: %+v", got)
		}
	}
	path, err := s.FileOf(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	before := historytest.TreeState(t, agent)
	if err := s.Delete(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	after := historytest.TreeState(t, agent)
	if _, ok := after[path]; ok {
		t.Errorf("%s is still there", path)
	}
	delete(before, path)
	delete(before, filepath.Dir(path)) // the folder's mtime changes with the removal
	delete(after, filepath.Dir(path))
	if !isDir(filepath.Dir(path)) {
		t.Errorf("the session's folder went too")
	}
	historytest.SameTree(t, before, after)

	got := scanAll(t, s)
	if _, ok := got[id]; ok {
		t.Errorf("Scan still lists %s", id)
	}
	if !got[ids["chat"]].Live {
		t.Errorf("Scan lost the other session: %v", slices.Collect(maps.Keys(got)))
	}
	for _, f := range []func() error{
		func() error { _, err := s.Session(t.Context(), id); return err },
		func() error { _, err := s.Conversation(t.Context(), id); return err },
		func() error { return s.Delete(t.Context(), id) },
	} {
		if err := f(); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("after Delete: %v, want ErrNotFound", err)
		}
	}
}

// TestDeleteEveryCopy: a session copied out of a legacy isolation folder
// is one session in two files (Scan lists the newer); Delete removes both,
// or the older would be listed in its place. A file whose name carries the
// id but whose header names another session is not it.
func TestDeleteEveryCopy(t *testing.T) {
	agent := t.TempDir()
	cwd := t.TempDir()
	a := writeChat(t, agent, "s1", cwd, 0, "hello")
	b := filepath.Join(agent, "sessions", "corral-x", filepath.Base(a))
	writeFile(t, b, chat("s1", cwd, 0, "hello"))
	other := filepath.Join(agent, "sessions", "--x--", "2026_s1.jsonl") // named s1, is s2
	writeFile(t, other, chat("s2", cwd, 5, "other"))
	s := newTestScanner(agent)
	if err := s.Delete(t.Context(), "s1"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there", p)
		}
	}
	if got := scanAll(t, s); len(got) != 1 || got["s2"].Path != other {
		t.Errorf("after Delete(s1), Scan lists %v", slices.Collect(maps.Keys(got)))
	}
}

// TestDeleteLive refuses a session a running Pi is bound to — by
// PADDOCK_SESSION_ID (id or file) or its hosted terminal — and one whose
// liveness cannot be known because the process table is unreadable; the
// agent dir is left as it was.
func TestDeleteLive(t *testing.T) {
	agent, ids := recordedAgentDir(t)
	id := ids["tools"]
	path, err := newTestScanner(agent).FileOf(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	pi := func(p procscan.AgentProcess) procscan.AgentProcess {
		p.PID, p.Runtime, p.Interactive, p.ArgsHidden = 777, "pi", true, true
		return p
	}
	tests := []struct {
		name  string
		procs []procscan.AgentProcess
		err   error
	}{
		{"PADDOCK_SESSION_ID id", []procscan.AgentProcess{pi(procscan.AgentProcess{SessionID: id})}, nil},
		{"PADDOCK_SESSION_ID file", []procscan.AgentProcess{pi(procscan.AgentProcess{SessionID: path})}, nil},
		{"hosted terminal", []procscan.AgentProcess{pi(procscan.AgentProcess{TerminalID: "pdk-1"})}, nil},
		{"unreadable process table", nil, errors.New("no /proc")},
	}
	before := historytest.TreeState(t, agent)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestScanner(agent, func(o *Options) {
				o.Processes = func(context.Context) ([]procscan.AgentProcess, error) { return tt.procs, tt.err }
				o.TerminalSession = func(term string) string {
					if term == "pdk-1" {
						return id
					}
					return ""
				}
			})
			err := s.Delete(t.Context(), id)
			switch {
			case tt.err != nil:
				if err == nil || errors.Is(err, session.ErrLive) || !strings.Contains(err.Error(), "process table") {
					t.Errorf("Delete without a process table: %v", err)
				}
			case !errors.Is(err, session.ErrLive) || !strings.Contains(err.Error(), "777"):
				t.Errorf("Delete of a live session: %v, want ErrLive naming pid 777", err)
			}
		})
	}
	historytest.SameTree(t, before, historytest.TreeState(t, agent))
}

// TestDeleteUnknown: an id no header has, or one no header could have, is
// session.ErrNotFound and nothing is touched — not even a file whose name
// carries the id but whose first line is no session header.
func TestDeleteUnknown(t *testing.T) {
	agent, _ := recordedAgentDir(t)
	writeFile(t, filepath.Join(agent, "sessions", "--x--", "2026_dump.jsonl"), `{"type":"agent_start","id":"dump"}`+"\n")
	before := historytest.TreeState(t, agent)
	s := newTestScanner(agent)
	for _, id := range []string{"nope", "dump", "", "..", "a/b", "01a22934"} {
		if err := s.Delete(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if err := New(Options{}).Delete(context.Background(), "x"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Delete without a dir: %v", err)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, agent))
}
