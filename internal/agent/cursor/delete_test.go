package cursor

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// deleteTree is liveTree (a parent chat, its subagents' chats, an orphan
// subagent, two other chats) plus transcripts: the parent's in both
// layouts (the nested one holding a subagent transcript) and another
// chat's. SYNTHETIC, in the shapes third-party readers document.
func deleteTree(t *testing.T) (root, proj string) {
	root, proj = liveTree(t)
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	tdir := filepath.Join(root, "projects", enc, "agent-transcripts")
	writeFile(t, filepath.Join(tdir, idParent, idParent+".jsonl"), []byte(`{"role":"user","content":"hi"}`+"\n"))
	writeFile(t, filepath.Join(tdir, idParent, "subagents", idSub+".jsonl"), []byte(`{"role":"user","content":"sub task"}`+"\n"))
	writeFile(t, filepath.Join(root, "projects", "other-proj", "agent-transcripts", idParent+".txt"), []byte("user:\n<user_query>hi</user_query>\n"))
	writeFile(t, filepath.Join(tdir, idTop2+".jsonl"), []byte(`{"role":"user","content":"hi"}`+"\n"))
	// Cursor's other files: never touched.
	writeFile(t, filepath.Join(root, "cli-config.json"), []byte(`{}`))
	writeFile(t, filepath.Join(root, "prompt_history.json"), []byte(`[]`))
	return root, proj
}

// TestDelete removes the parent chat's folder, its subagents' folders (the
// ones whose store.db leads to it, not the orphan) and its transcripts;
// every other file is byte-identical, Scan (with the cache warm) lists it
// no more and Session, Events and Delete say ErrNotFound.
func TestDelete(t *testing.T) {
	root, proj := deleteTree(t)
	ws := filepath.Join(root, "chats", wsOf(proj))
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	tdir := filepath.Join(root, "projects", enc, "agent-transcripts")
	gone := []string{
		filepath.Join(ws, idParent), filepath.Join(ws, idSub), filepath.Join(ws, idNested), filepath.Join(ws, idChain),
		filepath.Join(tdir, idParent), filepath.Join(root, "projects", "other-proj", "agent-transcripts", idParent+".txt"),
	}
	// The folders that held what is deleted change their mtime; nothing
	// else may change.
	changedDirs := []string{ws, tdir, filepath.Join(root, "projects", "other-proj", "agent-transcripts")}
	tree := historytest.Tree{Omit: func(p string) bool { return slices.Contains(changedDirs, p) }}
	before := tree.State(t, root)

	s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return nil, nil }})
	s.openFiles = func(int) ([]string, error) { return nil, procscan.ErrNotRunning }
	ctx := context.Background()
	if got := scanAll(t, s, idParent); len(got) != 3 {
		t.Fatalf("before: listed %v", slices.Collect(maps.Keys(got)))
	}
	if err := s.Delete(ctx, idParent); err != nil {
		t.Fatal(err)
	}

	for _, p := range gone {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", p, err)
		}
	}
	want := maps.Clone(before)
	for p := range before {
		for _, g := range gone {
			if p == g || strings.HasPrefix(p, g+string(filepath.Separator)) {
				delete(want, p)
			}
		}
	}
	historytest.SameTree(t, want, tree.State(t, root))

	got := scanAll(t, s, idParent)
	if _, ok := got[idParent]; ok || len(got) != 2 {
		t.Errorf("after Delete: listed %v", slices.Collect(maps.Keys(got)))
	}
	if _, err := s.Session(ctx, idParent); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session after Delete = %v", err)
	}
	if _, err := s.Events(ctx, idParent); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Events after Delete = %v", err)
	}
	if err := s.Delete(ctx, idParent); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Delete again = %v", err)
	}
}

// The last chat in chats/ deleted: its transcript, which Scan would list
// once chats/ is empty, went with it.
func TestDeleteLastChat(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	writeChat(t, root, chatSpec{id: "only", cwd: proj, meta: map[string]any{"cwd": proj, "hasConversation": true},
		store: &storeSpec{meta: map[string]any{"agentId": "only"}, messages: []any{cursorUser("hi")}}})
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	writeFile(t, filepath.Join(root, "projects", enc, "agent-transcripts", "only.jsonl"), []byte(`{"role":"user","content":"hi"}`+"\n"))
	s := New(Options{Dir: root})
	if got := scanAll(t, s); len(got) != 1 {
		t.Fatalf("before: %v", got)
	}
	if err := s.Delete(context.Background(), "only"); err != nil {
		t.Fatal(err)
	}
	if got := scanAll(t, s); len(got) != 0 {
		t.Errorf("after Delete: %v", got)
	}
	if !isDir(filepath.Join(root, "chats", wsOf(proj))) {
		t.Error("the workspace folder is shared: it must stay")
	}
}

// A chat a running Cursor process holds — itself or one of its
// subagents, by --resume, open store.db or PADDOCK_SESSION_ID — is
// refused with ErrLive; so is every chat when the processes cannot be
// listed; an unknown id, or a subagent's own id (never listed), is
// ErrNotFound. Nothing changes.
func TestDeleteRefuses(t *testing.T) {
	root, proj := deleteTree(t)
	before := historytest.TreeState(t, root)
	cur := func(pid int) procscan.AgentProcess {
		return procscan.AgentProcess{PID: pid, Runtime: "cursor", Cwd: proj, Interactive: true, Started: time.Unix(1_700_000_000, 0)}
	}
	with := func(p procscan.AgentProcess, f func(*procscan.AgentProcess)) procscan.AgentProcess { f(&p); return p }
	tests := []struct {
		name  string
		procs []procscan.AgentProcess
		open  map[int][]string
		err   error
		id    string
		want  error
	}{
		{name: "resume", procs: []procscan.AgentProcess{with(cur(100), func(p *procscan.AgentProcess) { p.ArgSessionID = idParent })}, id: idParent, want: session.ErrLive},
		{name: "open store", procs: []procscan.AgentProcess{cur(101)}, open: map[int][]string{101: {storeOf(root, proj, idTop2) + "-wal"}}, id: idTop2, want: session.ErrLive},
		{name: "subagent open", procs: []procscan.AgentProcess{cur(102)}, open: map[int][]string{102: {storeOf(root, proj, idNested)}}, id: idParent, want: session.ErrLive},
		{name: "subagent env", procs: []procscan.AgentProcess{with(cur(103), func(p *procscan.AgentProcess) { p.SessionID = idChain })}, id: idParent, want: session.ErrLive},
		{name: "no process list", err: errors.New("no /proc"), id: idTop3},
		{name: "unknown", id: idMissing, want: session.ErrNotFound},
		{name: "subagent id", id: idSub, want: session.ErrNotFound},
		{name: "bad id", id: "../" + idParent, want: session.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return tc.procs, tc.err }})
			s.openFiles = func(pid int) ([]string, error) {
				if f, ok := tc.open[pid]; ok {
					return f, nil
				}
				return nil, procscan.ErrNotRunning
			}
			err := s.Delete(context.Background(), tc.id)
			if err == nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Delete = %v, want %v", err, tc.want)
			}
			historytest.SameTree(t, before, historytest.TreeState(t, root))
		})
	}
}

// Finding a chat's subagents opens the store.db of the workspace's
// subagents' chats only (idSub, idNested, idChain, idOrphan): opening a
// store may copy it, and a top-level sibling's names no parent anyway.
// The deleted chat's own subagents go whatever the count.
func TestDeleteOpensOnlySubagentStores(t *testing.T) {
	const subagentChats = 4
	tests := []struct {
		id   string
		gone []string // chat folders Delete removes
	}{
		{id: idParent, gone: []string{idParent, idSub, idNested, idChain}},
		{id: idTop3, gone: []string{idTop3}},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			root, proj := liveTree(t)
			s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return nil, nil }})
			s.openFiles = func(int) ([]string, error) { return nil, procscan.ErrNotRunning }
			if err := s.Delete(context.Background(), tc.id); err != nil {
				t.Fatal(err)
			}
			if n := s.storeReads.Load(); n != subagentChats {
				t.Errorf("Delete(%s) opened %d stores, want the %d subagents' chats'", tc.id, n, subagentChats)
			}
			ws := filepath.Join(root, "chats", wsOf(proj))
			for _, id := range []string{idParent, idTop2, idTop3, idSub, idNested, idChain, idOrphan} {
				if want := !slices.Contains(tc.gone, id); isDir(filepath.Join(ws, id)) != want {
					t.Errorf("Delete(%s): chat %s there = %v, want %v", tc.id, id, !want, want)
				}
			}
		})
	}
}
