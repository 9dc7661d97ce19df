package cursor

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/procscan"
	"paddock/internal/testkit/sharedtest"
)

// exercise calls every public method on every chat, twice (the second time
// on warm caches).
func exercise(t *testing.T, s *Scanner, ids []string) {
	t.Helper()
	ctx := context.Background()
	for range 2 {
		if _, err := s.Scan(ctx, -1, ids); err != nil {
			t.Fatal(err)
		}
		for _, id := range ids {
			_, _ = s.Session(ctx, id)
			_, _ = s.Conversation(ctx, id)
		}
		s.WatchDirs()
	}
}

// Every public method leaves Cursor's folder exactly as it was (scanning
// is read-only): in particular, previewing a closed chat's store.db
// creates no -wal or -shm beside it, which a plain read-only SQLite open
// would; and the private copies are gone once read. The real public
// transcript fixture is part of the tree; the chats are SYNTHETIC (in the
// shapes third-party readers document).
func TestReadOnly(t *testing.T) {
	tmp := t.TempDir()
	root, proj := t.TempDir(), t.TempDir()
	copyTree(t, sharedtest.Fixtures(t, "public", "cursor", "deja-vu", "fixtures", "registry", "cursor"), root)
	writeChat(t, root, chatSpec{id: "parent", cwd: proj, meta: map[string]any{"title": "P", "cwd": proj, "hasConversation": true},
		store:   &storeSpec{meta: map[string]any{"agentId": "parent"}, messages: []any{cursorUser("q"), assistantMsg(textPart("r"))}},
		prompts: []any{"q"}})
	writeChat(t, root, chatSpec{id: "sub", cwd: proj, meta: map[string]any{"cwd": proj, "isSubagent": true},
		store: &storeSpec{meta: map[string]any{"agentId": "sub", "subagentInfo": map[string]any{"parentAgentId": "parent", "rootParentAgentId": "parent"}}}})
	writeChat(t, root, chatSpec{id: "meta-only", cwd: proj, meta: map[string]any{"cwd": proj}})
	ids := []string{"parent", "sub", "meta-only", "registry-cursor", "missing"}

	// A live Cursor process on the subagent's chat makes store reads for
	// liveness happen too.
	self := os.Getpid()
	procs := func(context.Context) ([]procscan.AgentProcess, error) {
		return []procscan.AgentProcess{{PID: self, Runtime: "cursor", ArgSessionID: "sub"}}, nil
	}
	before := historytest.TreeState(t, root)
	s := New(Options{Dir: root, Processes: procs, Snapshots: history.NewSnapshots(history.SnapshotOptions{Dir: tmp})})
	exercise(t, s, ids)
	if got := scanAll(t, s); !got["parent"].Live {
		t.Error("the subagent's process did not mark its parent live")
	}
	historytest.SameTree(t, before, historytest.TreeState(t, root))
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("temporary store copies left behind: %v", left)
	}
}

// While Cursor has a chat open (its -wal and -shm exist), store.db, its
// -wal and its -shm (SQLite's shared index of the WAL, which every reader
// opening the database takes locks in) are untouched: paddock reads a
// copy. SYNTHETIC (writer = Cursor).
func TestReadOnlyWhileOpen(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	dir := writeChat(t, root, chatSpec{id: "open", cwd: proj, meta: map[string]any{"cwd": proj, "hasConversation": true},
		store: &storeSpec{meta: map[string]any{"agentId": "open"}, messages: []any{cursorUser("q")}}})
	w := openWriter(t, filepath.Join(dir, "store.db"))
	defer w.Close()
	fillStore(t, w, &storeSpec{meta: map[string]any{"agentId": "open"}, messages: []any{cursorUser("q"), assistantMsg(textPart("r"))}})
	// The writer's own mtimes must not be what changes between snapshots.
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{"store.db", "store.db-wal"} {
		setMtime(t, filepath.Join(dir, f), old)
	}
	before := historytest.TreeState(t, root)
	s := New(Options{Dir: root})
	exercise(t, s, []string{"open"})
	if msgs, err := s.Conversation(context.Background(), "open"); err != nil || len(msgs) != 2 {
		t.Errorf("Conversation = %v, %v; want both messages, the second still in the -wal", msgs, err)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, root))
}

// copyTree copies the regular files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
