package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/history/historytest"
)

// agentDB is an agent's database as the agent keeps it: in WAL mode,
// written through a connection it holds open, so new rows sit in the -wal
// (no automatic checkpoint) and the -wal and -shm exist.
type agentDB struct {
	t    testing.TB
	dir  string
	path string
	db   *sql.DB
	rows int
}

func newAgentDB(t testing.TB) *agentDB {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "odd ?#% dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a := &agentDB{t: t, dir: dir, path: filepath.Join(dir, "agent.db")}
	a.open()
	return a
}

func (a *agentDB) open() {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: a.path}).EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)&_pragma=busy_timeout(5000)")
	if err != nil {
		a.t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	a.t.Cleanup(func() { db.Close() })
	a.db = db
}

func (a *agentDB) exec(q string, args ...any) {
	a.t.Helper()
	if _, err := a.db.Exec(q, args...); err != nil {
		a.t.Fatalf("%s: %v", q, err)
	}
}

// add commits n rows, of about size bytes each.
func (a *agentDB) add(n, size int) {
	a.t.Helper()
	a.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)")
	a.exec("BEGIN")
	for range n {
		a.rows++
		a.exec("INSERT INTO t (id, v) VALUES (?, ?)", a.rows, fmt.Sprintf("row %d %s", a.rows, strings.Repeat("x", size)))
	}
	a.exec("COMMIT")
}

// close closes the agent's connection: the last one checkpoints and
// removes the -wal and -shm, as an agent that exits cleanly leaves it.
func (a *agentDB) close() { a.db.Close() }

func openSnapshotDB(t testing.TB, s *Snapshots, path string) *SnapshotDB {
	t.Helper()
	db, err := s.OpenDB(context.Background(), path, "query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t testing.TB, db interface {
	QueryRow(string, ...any) *sql.Row
}) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A database read through a snapshot shows the rows still in the agent's
// -wal, cannot be written, and leaves the agent's directory as it was to
// the byte, mtime and ctime: SQLite never opened the agent's files.
func TestSnapshotLeavesAgentFilesAlone(t *testing.T) {
	for _, layout := range []struct {
		name  string
		setup func(a *agentDB)
	}{
		{"WAL held open by the agent", func(a *agentDB) { a.add(3, 10) }},
		{"WAL, -wal and -shm left by an agent that died", func(a *agentDB) {
			a.add(3, 10)
			// The three files as they were while it ran, without it.
			live := a.path
			a.path = filepath.Join(t.TempDir(), "agent.db")
			a.dir = filepath.Dir(a.path)
			for _, suffix := range []string{"", "-wal", "-shm"} {
				data, err := os.ReadFile(live + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(a.path+suffix, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"WAL closed cleanly: no -wal or -shm", func(a *agentDB) { a.add(3, 10); a.close() }},
		{"WAL with its -wal and no -shm", func(a *agentDB) {
			a.add(3, 10)
			live := a.path
			a.path = filepath.Join(t.TempDir(), "agent.db")
			a.dir = filepath.Dir(a.path)
			for _, suffix := range []string{"", "-wal"} {
				data, _ := os.ReadFile(live + suffix)
				if err := os.WriteFile(a.path+suffix, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"rollback journal", func(a *agentDB) {
			a.add(3, 10)
			a.exec("PRAGMA journal_mode=DELETE")
		}},
	} {
		t.Run(layout.name, func(t *testing.T) {
			a := newAgentDB(t)
			layout.setup(a)
			before := historytest.TreeState(t, a.dir)
			time.Sleep(10 * time.Millisecond) // so that a change shows in the times

			tmp := t.TempDir()
			s := NewSnapshots(SnapshotOptions{Dir: tmp, KeepBytes: 1 << 30})
			db := openSnapshotDB(t, s, a.path)
			if n := count(t, db); n != 3 {
				t.Errorf("read %d rows, want 3", n)
			}
			if _, err := db.Exec("INSERT INTO t (v) VALUES ('x')"); err == nil {
				t.Error("a write through the snapshot succeeded")
			}
			historytest.SameTree(t, before, historytest.TreeState(t, a.dir))

			// The copies are private to paddock's user.
			if runtime.GOOS != "windows" {
				err := filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
					if err != nil || p == tmp {
						return err
					}
					st, err := os.Stat(p)
					if err != nil {
						return err
					}
					if perm := st.Mode().Perm(); d.IsDir() && perm != 0o700 || !d.IsDir() && perm&0o077 != 0 {
						t.Errorf("%s: mode %v", p, perm)
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			s.Close()
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("Close left %v", left)
			}
		})
	}
}

// While a reader holds a snapshot in a read transaction, the agent can
// still checkpoint its whole WAL and truncate it: paddock holds no lock
// and no read mark in the agent's files.
func TestSnapshotHoldsNoLock(t *testing.T) {
	a := newAgentDB(t)
	a.add(5, 100)
	db := openSnapshotDB(t, NewSnapshots(SnapshotOptions{Dir: t.TempDir()}), a.path)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if n := count(t, tx); n != 5 {
		t.Fatalf("read %d rows", n)
	}
	var busy, logFrames, done int
	if err := a.db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil || busy != 0 {
		t.Fatalf("the agent's checkpoint: busy=%d, %v; a reader holds its WAL", busy, err)
	}
	if st, err := os.Stat(a.path + "-wal"); err != nil || st.Size() != 0 {
		t.Errorf("the agent's -wal after TRUNCATE: %v, %v", st, err)
	}
	if n := count(t, tx); n != 5 {
		t.Errorf("the snapshot changed under its reader: %d rows", n)
	}
}

// A copy is reused while the agent's files are unchanged; when only the
// WAL grew, only the -wal is copied again; when the WAL restarted after a
// checkpoint (or the database changed without one), the database is copied
// again too. Every read shows every committed row.
func TestSnapshotRefreshesWhatChanged(t *testing.T) {
	a := newAgentDB(t)
	a.add(10, 100)
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir(), KeepBytes: 1 << 30})
	// Every copy taken long after the files were written: a copy of files
	// written just before is taken again (TestSnapshotRacyCopyIsTakenAgain).
	s.now = func() time.Time { return time.Now().Add(time.Minute) }
	var copied [2]int64
	read := func(what string, wantDB, wantWAL int64) {
		t.Helper()
		db, err := s.OpenDB(context.Background(), a.path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if n := count(t, db); n != a.rows {
			t.Errorf("%s: read %d rows, want %d", what, n, a.rows)
		}
		now := [2]int64{s.dbCopies.Load(), s.walCopies.Load()}
		if got := [2]int64{now[0] - copied[0], now[1] - copied[1]}; got != [2]int64{wantDB, wantWAL} {
			t.Errorf("%s: copied the database %d times and the -wal %d times, want %d and %d", what, got[0], got[1], wantDB, wantWAL)
		}
		copied = now
	}
	read("first read", 1, 1)
	read("nothing changed", 0, 0)
	a.add(5, 100)
	read("rows appended to the WAL", 0, 1)
	a.exec("PRAGMA wal_checkpoint(PASSIVE)")
	read("a checkpoint that kept the WAL", 0, 0)
	a.add(1, 100) // the WAL restarts from its start, with a new header
	read("the WAL restarted", 1, 1)
	a.exec("PRAGMA wal_checkpoint(TRUNCATE)")
	read("the WAL truncated", 1, 0)
	a.add(2, 100)
	read("a new WAL after none", 1, 1)
	a.close()
	read("the agent exited: its last rows checkpointed, no -wal", 1, 0)
	read("nothing changed, no -wal", 0, 0)
}

// A file written just before it was copied may change again without its
// signature showing it: such a copy is taken again at its next use.
func TestSnapshotRacyCopyIsTakenAgain(t *testing.T) {
	a := newAgentDB(t)
	a.add(3, 10)
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir(), KeepBytes: 1 << 30})
	for i := range 2 {
		db := openSnapshotDB(t, s, a.path)
		db.Close()
		if got := s.walCopies.Load(); got != int64(i+1) {
			t.Fatalf("read %d: %d -wal copies, want %d", i, got, i+1)
		}
	}
	s.now = func() time.Time { return time.Now().Add(time.Minute) }
	openSnapshotDB(t, s, a.path).Close()
	openSnapshotDB(t, s, a.path).Close()
	if got := s.walCopies.Load(); got != 3 {
		t.Errorf("%d -wal copies after the files aged, want 3", got)
	}
}

// A copy the agent tore — its WAL restarted between the copy of the
// database and the copy of the -wal, so the two do not go together — is
// seen and taken again; the read is whole.
func TestSnapshotTornCopyIsTakenAgain(t *testing.T) {
	a := newAgentDB(t)
	a.add(50, 1000)
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir()})
	tears := 1
	s.betweenCopies = func() {
		if tears == 0 {
			return
		}
		tears--
		// Everything written back to the database, then the WAL starts
		// again with rows the database copy already taken lacks.
		a.exec("PRAGMA wal_checkpoint(RESTART)")
		a.add(50, 1000)
	}
	db := openSnapshotDB(t, s, a.path)
	if n := count(t, db); n != 100 {
		t.Errorf("read %d rows, want 100", n)
	}
	var ok string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Errorf("integrity_check = %q, %v", ok, err)
	}
	if got := s.dbCopies.Load(); got != 2 {
		t.Errorf("the database was copied %d times, want 2 (the torn copy, then a whole one)", got)
	}

	// An agent that tears every copy: the open fails rather than reading
	// a torn one.
	s.betweenCopies = func() { a.exec("PRAGMA wal_checkpoint(RESTART)"); a.add(1, 10) }
	if _, err := s.Open(context.Background(), a.path); err == nil || !strings.Contains(err.Error(), "kept changing") {
		t.Errorf("Open while every copy is torn: %v", err)
	}
}

// With the agent writing all the time (and checkpointing often), every
// read succeeds, sees at least what was committed before it began, and is
// a consistent database.
func TestSnapshotConcurrentWriter(t *testing.T) {
	a := newAgentDB(t)
	a.exec("PRAGMA wal_autocheckpoint=20")
	a.add(1, 10)
	var mu sync.Mutex
	committed := a.rows
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			a.add(3, 500)
			mu.Lock()
			committed = a.rows
			mu.Unlock()
		}
	})
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir(), KeepBytes: 1 << 30})
	var readers sync.WaitGroup
	for r := range 3 {
		readers.Go(func() {
			for i := range 15 {
				mu.Lock()
				atLeast := committed
				mu.Unlock()
				db, err := s.OpenDB(context.Background(), a.path)
				if err != nil {
					t.Errorf("reader %d, read %d: %v", r, i, err)
					return
				}
				var n int
				var ok string
				err = db.QueryRow("SELECT count(*) FROM t").Scan(&n)
				if err == nil {
					err = db.QueryRow("PRAGMA quick_check").Scan(&ok)
				}
				db.Close()
				if err != nil || n < atLeast || ok != "ok" {
					t.Errorf("reader %d, read %d: %d rows (%d committed before), check %q, %v", r, i, n, atLeast, ok, err)
					return
				}
			}
		})
	}
	readers.Wait()
	stop()
	wg.Wait()
}

// A copy in use is not changed under its reader: a refresh waits briefly
// for it, then makes a new copy beside it, and the old one goes when its
// reader is done.
func TestSnapshotInUseIsNotChanged(t *testing.T) {
	a := newAgentDB(t)
	a.add(3, 10)
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir(), KeepBytes: 1 << 30})
	first := openSnapshotDB(t, s, a.path)
	if n := count(t, first); n != 3 {
		t.Fatal(n)
	}
	a.add(2, 10)
	second := openSnapshotDB(t, s, a.path)
	if n := count(t, second); n != 5 {
		t.Errorf("the new read saw %d rows, want 5", n)
	}
	if n := count(t, first); n != 3 {
		t.Errorf("the reader of the first copy saw %d rows, want its 3", n)
	}
	firstDir := filepath.Dir(first.snap.Path())
	if firstDir == filepath.Dir(second.snap.Path()) {
		t.Fatal("both reads share one copy")
	}
	first.Close()
	if _, err := os.Stat(firstDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the replaced copy stayed after its reader was done: %v", err)
	}

	// A reader done within the wait: the copy is refreshed in place.
	a.add(1, 10)
	done := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		second.Close()
		close(done)
	}()
	third := openSnapshotDB(t, s, a.path)
	<-done
	if n := count(t, third); n != 6 {
		t.Errorf("read %d rows, want 6", n)
	}
	if filepath.Dir(third.snap.Path()) != filepath.Dir(second.snap.Path()) {
		t.Error("a copy whose reader finished was not refreshed in place")
	}
}

// KeepBytes bounds the copies nobody reads, least recently used first; 0
// keeps none, and the private directory goes with the last copy.
func TestSnapshotKeepBytes(t *testing.T) {
	var dbs []*agentDB
	for range 3 {
		a := newAgentDB(t)
		a.add(20, 1000) // about 25 KB each
		dbs = append(dbs, a)
	}
	dir := t.TempDir()
	s := NewSnapshots(SnapshotOptions{Dir: dir, KeepBytes: 1 << 30})
	openSnapshotDB(t, s, dbs[0].path).Close()
	var one int64
	for v := range s.versions {
		one = v.bytes
	}
	s.opts.KeepBytes = 5 * one / 2 // room for two copies, not three
	for _, a := range dbs[1:] {
		openSnapshotDB(t, s, a.path).Close()
	}
	s.mu.Lock()
	kept := len(s.versions)
	_, firstKept := s.sources[dbs[0].path]
	firstKept = firstKept && s.sources[dbs[0].path].cur != nil
	s.mu.Unlock()
	if kept != 2 || firstKept {
		t.Errorf("kept %d copies (the least recently used one: %v), want the 2 newest", kept, firstKept)
	}

	s0 := NewSnapshots(SnapshotOptions{Dir: dir})
	db := openSnapshotDB(t, s0, dbs[0].path)
	if n := count(t, db); n != 20 {
		t.Fatal(n)
	}
	private := filepath.Dir(filepath.Dir(db.snap.Path()))
	db.Close()
	if _, err := os.Stat(private); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("KeepBytes 0: the private directory stayed after the read: %v", err)
	}
}

// Private directories left by a paddock that died are removed when a new
// one is made; those of a live one are not.
func TestSnapshotSweepsDeadDirectories(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock: directories left by a dead process stay")
	}
	parent := t.TempDir()
	a := newAgentDB(t)
	a.add(1, 10)
	live := NewSnapshots(SnapshotOptions{Dir: parent, KeepBytes: 1 << 30})
	openSnapshotDB(t, live, a.path).Close()
	dead := filepath.Join(parent, dirPrefix+"dead")
	if err := os.MkdirAll(filepath.Join(dead, "1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dead, "lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, "not-ours")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}

	s := NewSnapshots(SnapshotOptions{Dir: parent})
	db := openSnapshotDB(t, s, a.path)
	defer db.Close()
	if _, err := os.Stat(dead); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a dead process's directory stayed: %v", err)
	}
	for _, keep := range []string{other, live.dir} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s was removed: %v", keep, err)
		}
	}
}

// A missing database is fs.ErrNotExist; a closed Snapshots opens nothing.
func TestSnapshotErrors(t *testing.T) {
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir()})
	if _, err := s.Open(context.Background(), filepath.Join(t.TempDir(), "none.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing database: %v", err)
	}
	if _, err := s.Open(context.Background(), t.TempDir()); err == nil {
		t.Error("a directory opened as a database")
	}
	a := newAgentDB(t)
	a.add(1, 10)
	s.Close()
	if _, err := s.Open(context.Background(), a.path); err == nil {
		t.Error("Open after Close succeeded")
	}
}

// Readers that open one copy at the same moment all read it: the first
// connection to a copy rebuilds its WAL index, and the others wait for it
// rather than fail with "database is locked".
func TestSnapshotSharedByConcurrentReaders(t *testing.T) {
	a := newAgentDB(t)
	a.add(200, 1000)
	for round := range 5 {
		s := NewSnapshots(SnapshotOptions{Dir: t.TempDir()})
		hold, err := s.Open(context.Background(), a.path) // one copy for all
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for r := range 8 {
			wg.Go(func() {
				<-start
				db, err := s.OpenDB(context.Background(), a.path)
				if err != nil {
					t.Errorf("round %d, reader %d: %v", round, r, err)
					return
				}
				defer db.Close()
				var n int
				if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 200 {
					t.Errorf("round %d, reader %d: %d rows, %v", round, r, n, err)
				}
			})
		}
		close(start)
		wg.Wait()
		hold.Release()
	}
}

// A WAL file keeps the size of its largest generation: after a restart
// only its first frames are current, and only those are copied.
func TestSnapshotCopiesTheCurrentWALGeneration(t *testing.T) {
	a := newAgentDB(t)
	a.add(300, 1000) // a large generation
	a.exec("PRAGMA wal_checkpoint(PASSIVE)")
	a.add(1, 10) // the WAL restarts from its start
	st, err := os.Stat(a.path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSnapshots(SnapshotOptions{Dir: t.TempDir(), KeepBytes: 1 << 30})
	db := openSnapshotDB(t, s, a.path)
	if n := count(t, db); n != 301 {
		t.Errorf("read %d rows, want 301", n)
	}
	copied, err := os.Stat(db.snap.Path() + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if copied.Size() >= st.Size()/10 {
		t.Errorf("copied %d bytes of a %d-byte -wal whose current generation is one commit", copied.Size(), st.Size())
	}
}

func TestSnapshotDSN(t *testing.T) {
	tests := []struct {
		path    string
		pragmas []string
		want    string
	}{
		{"/a/b.db", nil, "file:/a/b.db?mode=ro"},
		{"/data/my dir?x/o#1%.db", []string{"busy_timeout(3000)", "query_only(1)"},
			"file:/data/my%20dir%3Fx/o%231%25.db?mode=ro&_pragma=busy_timeout(3000)&_pragma=query_only(1)"},
	}
	for _, tt := range tests {
		if got := snapshotDSN(tt.path, tt.pragmas...); got != tt.want {
			t.Errorf("snapshotDSN(%q, %q) = %q, want %q", tt.path, tt.pragmas, got, tt.want)
		}
	}
}
