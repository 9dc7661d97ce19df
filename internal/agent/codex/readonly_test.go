package codex

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/history/historytest"
)

// exercise calls every public method twice (the second time on warm
// caches) for every session the scanner lists and for ids it does not.
func exercise(t *testing.T, s *Scanner, extra ...string) {
	t.Helper()
	ctx := context.Background()
	for range 2 {
		infos, err := s.Scan(ctx, -1, extra)
		if err != nil {
			t.Fatal(err)
		}
		ids := append(ids(infos), extra...)
		for _, id := range ids {
			_, _ = s.Session(ctx, id)
			_, _ = s.Conversation(ctx, id)
		}
		if _, err := s.Scan(ctx, 1, ids); err != nil {
			t.Fatal(err)
		}
		s.WatchDirs()
	}
}

// Scanning and previews are read-only. Every public
// method, on every recording and with its state database in either mode,
// leaves the Codex home exactly as it was: no file written, touched,
// created or removed.
func TestReadOnly(t *testing.T) {
	cases := map[string]func(t *testing.T) string{
		"repo recording": func(t *testing.T) string { return copyTree(t, filepath.Join(repoRecording, "codex")) },
		"shared real home": func(t *testing.T) string {
			return copyTree(t, sharedtestFixtures(t, "real", "codex-0.169.0", "codex-home"))
		},
		"shared public": func(t *testing.T) string {
			return copyTree(t, sharedtestFixtures(t, "public", "codex", "claude-code-log", "test", "test_data", "codex"))
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := setup(t)
			// A live new thread (its lock) and a live written one.
			lock := filepath.Join(dir, "thread-writer-locks", id(99)+".lock")
			writeFile(t, lock, "")
			infos := scanAll(t, newTestScanner(dir))
			f := &fakeProcs{}
			f.add(4242, true, lock)
			if len(infos) > 0 {
				f.add(4343, true, infos[0].Path)
			}
			before := historytest.TreeState(t, dir)
			exercise(t, f.scanner(dir), id(99), "33333333-3333-4333-8333-333333333333", "nonexistent")
			exercise(t, New(Options{Dir: dir}), "nonexistent")
			historytest.SameTree(t, before, historytest.TreeState(t, dir))
		})
	}
}

// With Codex running (its state database open with a WAL), the database,
// its WAL and its -shm (SQLite's shared-memory index of the WAL, which
// every reader opening the database takes locks in) are left as they were:
// paddock reads a copy.
func TestReadOnlyLiveWAL(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
	path := filepath.Join(h.dir, stateFile)
	writeStateDB(t, path, nil, nil)
	db := openWriter(t, path)
	defer db.Close()
	if _, err := db.Exec("PRAGMA wal_autocheckpoint = 0"); err != nil {
		t.Fatal(err)
	}
	insertThread(t, db, dbRow{id: id(1), name: "in the WAL"})
	before := historytest.TreeState(t, h.dir)
	time.Sleep(10 * time.Millisecond) // so that a change shows in the times
	exercise(t, newTestScanner(h.dir))
	historytest.SameTree(t, before, historytest.TreeState(t, h.dir))
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatal(err)
	}
}
