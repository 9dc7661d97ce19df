package codex

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// dbRow is one threads row of a test state database.
type dbRow struct {
	id, name, title, source string
}

// writeStateDB creates a state_5.sqlite shaped like Codex 0.169's (the
// columns paddock reads, in WAL mode) and closes it, so no -wal is left.
func writeStateDB(t testing.TB, path string, rows []dbRow, edges [][2]string) {
	t.Helper()
	db := openWriter(t, path)
	defer db.Close()
	for _, r := range rows {
		insertThread(t, db, r)
	}
	for _, e := range edges {
		if _, err := db.Exec(`INSERT INTO thread_spawn_edges VALUES (?, ?, 'open')`, e[0], e[1]); err != nil {
			t.Fatal(err)
		}
	}
}

// openWriter opens (creating) a state database for writing, as Codex does.
func openWriter(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{
		`CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '',
			source TEXT NOT NULL DEFAULT 'cli', model TEXT, thread_source TEXT, name TEXT, first_user_message TEXT NOT NULL DEFAULT '')`,
		`CREATE TABLE IF NOT EXISTS thread_spawn_edges (parent_thread_id TEXT NOT NULL, child_thread_id TEXT NOT NULL PRIMARY KEY, status TEXT NOT NULL)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func insertThread(t testing.TB, db *sql.DB, r dbRow) {
	t.Helper()
	var name any
	if r.name != "" {
		name = r.name
	}
	if _, err := db.Exec(`INSERT OR REPLACE INTO threads (id, title, source, name) VALUES (?, ?, ?, ?)`,
		r.id, r.title, cmpOr(r.source, "cli"), name); err != nil {
		t.Fatal(err)
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// While Codex runs, thread names sit in the WAL until a checkpoint. The
// state database is read from a copy of it and its WAL, so they are seen,
// and a later rename is seen too.
func TestStateDBLiveWAL(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
	path := filepath.Join(h.dir, stateFile)
	writeStateDB(t, path, nil, nil) // the schema, checkpointed
	db := openWriter(t, path)
	defer db.Close()
	if _, err := db.Exec("PRAGMA wal_autocheckpoint = 0"); err != nil {
		t.Fatal(err)
	}
	insertThread(t, db, dbRow{id: id(1), name: "name in the WAL"})
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("no WAL content: %v", err)
	}
	s := newTestScanner(h.dir)
	if got := scanAll(t, s); got[0].Title != "name in the WAL" {
		t.Fatalf("title %q", got[0].Title)
	}
	insertThread(t, db, dbRow{id: id(1), name: "renamed in the WAL"})
	if got := scanAll(t, s); got[0].Title != "renamed in the WAL" || s.parsed.Load() != 1 {
		t.Fatalf("title %q, parsed %d", got[0].Title, s.parsed.Load())
	}
	// The reader wrote nothing: the writer can still write and checkpoint.
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
}

// The state database is read through a private copy, also at a path
// SQLite's URI syntax would otherwise misread: the copy cannot be written,
// and Codex's files — the -shm included — are left exactly as they were.
func TestStateDBReadIsReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "odd ?#% dir", stateFile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeStateDB(t, path, []dbRow{{id: id(1), name: "n"}}, nil)
	// Codex running: its -wal and -shm exist.
	w := openWriter(t, path)
	defer w.Close()
	insertThread(t, w, dbRow{id: id(2), name: "in the WAL"})
	before := historytest.TreeState(t, filepath.Dir(path))
	time.Sleep(10 * time.Millisecond) // so that a change shows in the times
	snaps := history.NewSnapshots(history.SnapshotOptions{Dir: t.TempDir()})
	r, err := openState(context.Background(), snaps, path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for id, want := range map[string]string{id(1): "n", id(2): "in the WAL"} {
		if got, err := r.thread(context.Background(), id); err != nil || got.name != want {
			t.Errorf("thread %s = %+v, %v; want %q", id, got, err, want)
		}
	}
	if _, err := r.db.Exec("INSERT INTO threads (id) VALUES ('x')"); err == nil || !strings.Contains(err.Error(), "readonly") {
		t.Errorf("write through the state reader: %v", err)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, filepath.Dir(path)))
}

// Without a WAL (Codex not running) the database is read from a copy:
// opening it in place would create a -wal and a -shm in Codex's directory.
func TestStateDBSnapshotCreatesNothing(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
	writeStateDB(t, filepath.Join(h.dir, stateFile), []dbRow{{id: id(1), name: "stored name"}}, nil)
	before := historytest.TreeState(t, h.dir)
	if got := scanAll(t, newTestScanner(h.dir)); got[0].Title != "stored name" {
		t.Fatalf("title %q", got[0].Title)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, h.dir))
}

// A -wal left without its -shm (a crash) is not opened in place either:
// SQLite would create the -shm beside Codex's database.
func TestStateDBWALWithoutSHMCreatesNothing(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
	path := filepath.Join(h.dir, stateFile)
	writeStateDB(t, path, []dbRow{{id: id(1), name: "stored name"}}, nil)
	if err := os.WriteFile(path+"-wal", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	before := historytest.TreeState(t, h.dir)
	if got := scanAll(t, newTestScanner(h.dir)); got[0].Title != "stored name" {
		t.Fatalf("title %q", got[0].Title)
	}
	if _, err := os.Stat(path + "-shm"); err == nil {
		t.Fatal("a -shm was created beside Codex's database")
	}
	historytest.SameTree(t, before, historytest.TreeState(t, h.dir))
}

// A state database that exists but cannot be read fails the scan, so the
// catalog keeps its last good list, never an empty one. Once it was read,
// a later failure keeps the titles it gave.
func TestStateDBUnreadable(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
	path := filepath.Join(h.dir, stateFile)
	writeFile(t, path, strings.Repeat("this is not a database. ", 100))
	s := newTestScanner(h.dir)
	if got, err := s.Scan(context.Background(), 10, nil); err == nil {
		t.Fatalf("unreadable database: %v, no error", got)
	}
	if _, err := s.Session(context.Background(), id(1)); err == nil || errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session with an unreadable database: %v", err)
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	writeStateDB(t, path, []dbRow{{id: id(1), name: "good name"}}, nil)
	if got := scanAll(t, s); got[0].Title != "good name" {
		t.Fatalf("title %q", got[0].Title)
	}
	writeFile(t, path, strings.Repeat("corrupted later. ", 300))
	if got := scanAll(t, s); got[0].Title != "good name" {
		t.Errorf("title after corruption %q, want the last good one", got[0].Title)
	}
}

// The schema drifts between Codex versions: columns are checked with
// PRAGMA table_info before use, and a missing one (or table) is no error.
func TestStateDBSchemaDrift(t *testing.T) {
	for name, schema := range map[string]string{
		"no name column": `CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT)`,
		"no threads":     `CREATE TABLE something_else (x INTEGER)`,
		"id only":        `CREATE TABLE threads (id TEXT PRIMARY KEY)`,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHome(t)
			h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "first prompt", "a"))...)
			db, err := sql.Open("sqlite", "file:"+filepath.Join(h.dir, stateFile))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(schema); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(schema, "title TEXT") {
				if _, err := db.Exec(`INSERT INTO threads VALUES (?, 'db title')`, id(9)); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			if got := scanAll(t, newTestScanner(h.dir)); got[0].Title != "first prompt" {
				t.Errorf("title %q", got[0].Title)
			}
		})
	}
}

// The real recording's database (Codex 0.169.0's full schema) gives the
// same threads without a WAL and with one (Codex running).
func TestStateDBRecordings(t *testing.T) {
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	path := filepath.Join(dir, stateFile)
	want := map[string]thread{
		"01a22933-9fa0-7061-a419-c6368c8164b9": {name: "Mock title: hello paddock one", title: "hello paddock one", model: "mock-model"},
		"01a22933-bf50-7ea3-bf85-2f0c612735bb": {name: "Mock title: please RUN the thing", title: "please RUN the thing", model: "mock-model"},
		"nonexistent":                          {},
	}
	snaps := history.NewSnapshots(history.SnapshotOptions{Dir: t.TempDir()})
	for _, mode := range []string{"no WAL", "an empty WAL"} {
		if mode == "an empty WAL" {
			writeFile(t, path+"-wal", "") // as if Codex were running
		}
		before := historytest.TreeState(t, dir)
		r, err := openState(context.Background(), snaps, path)
		if err != nil {
			t.Fatal(err)
		}
		for id, w := range want {
			if got, err := r.thread(context.Background(), id); err != nil || got != w {
				t.Errorf("%s: %s = %+v, %v; want %+v", mode, id, got, err, w)
			}
		}
		r.close()
		historytest.SameTree(t, before, historytest.TreeState(t, dir))
	}
	if r, err := openState(context.Background(), snaps, filepath.Join(dir, "none.sqlite")); r != nil || err != nil {
		t.Errorf("a missing state database: %v, %v; want none and no error", r, err)
	}
}
