package opencode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"paddock/internal/procscan"
)

// Rows OpenCode wrote but has not checkpointed live only in opencode.db-wal;
// a reader that skipped the WAL (immutable=1) would not list them.
func TestSeesWAL(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.chat(sess{id: "ses_a", dir: dir, created: t0}, "first", "one")
	w.exec("PRAGMA wal_checkpoint(TRUNCATE)")
	db := filepath.Join(dir, "opencode.db")
	before := statFile(db)

	s := New(Options{DataDir: dir})
	ctx := context.Background()
	if got, _ := s.Scan(ctx, 10, nil); !slices.Equal(ids(got), []string{"ses_a"}) {
		t.Fatalf("Scan = %v, want [ses_a]", ids(got))
	}
	w.chat(sess{id: "ses_b", dir: dir, created: t0.Add(time.Minute)}, "second", "two")
	if after := statFile(db); after != before {
		t.Fatalf("setup: the write reached opencode.db (%+v → %+v); it must stay in the -wal", before, after)
	}
	got, err := s.Scan(ctx, 10, nil)
	if err != nil || !slices.Equal(ids(got), []string{"ses_b", "ses_a"}) {
		t.Fatalf("Scan = %v, %v; want [ses_b ses_a]", ids(got), err)
	}
	msgs, err := s.Conversation(ctx, "ses_b")
	if err != nil || !slices.Equal(convText(msgs), []string{"user: second", "assistant: two"}) {
		t.Errorf("Conversation(ses_b) = %q, %v", convText(msgs), err)
	}
}

// A database written by a concurrent writer (as OpenCode writes while
// paddock rescans) stays readable: no read fails, and what was committed
// before a Scan started is in it.
func TestConcurrentWriter(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.chat(sess{id: "ses_0000", dir: dir, created: t0}, "prompt 0", "answer 0")

	var mu sync.Mutex
	committed := 1
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; ctx.Err() == nil; i++ {
			// One transaction per session, as OpenCode commits a turn's
			// rows: a reader sees all of it or none.
			w.exec("BEGIN")
			w.chat(sess{id: fmt.Sprintf("ses_%04d", i), dir: dir, created: t0.Add(time.Duration(i) * time.Second)},
				fmt.Sprintf("prompt %d", i), fmt.Sprintf("answer %d", i))
			w.exec("COMMIT")
			if i%10 == 0 {
				w.exec("PRAGMA wal_checkpoint(PASSIVE)")
			}
			mu.Lock()
			committed = i + 1
			mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	})
	s := New(Options{DataDir: dir})
	// A fixed number of scans, each after the writer committed again, so
	// that reads and writes interleave however slow the machine is.
	const scans = 20
	for range scans {
		mu.Lock()
		atLeast := committed
		mu.Unlock()
		infos, err := s.Scan(context.Background(), -1, nil)
		if err != nil {
			t.Fatalf("Scan during writes: %v", err)
		}
		if len(infos) < atLeast {
			again, err2 := New(Options{DataDir: dir}).Scan(context.Background(), -1, nil)
			t.Fatalf("Scan = %d sessions %v, %d were committed before it started; fresh scanner: %v %v", len(infos), ids(infos), atLeast, ids(again), err2)
		}
		msgs, err := s.Conversation(context.Background(), infos[0].ID)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("Conversation(%s) during writes = %d messages, %v", infos[0].ID, len(msgs), err)
		}
		for {
			mu.Lock()
			moved := committed > atLeast
			mu.Unlock()
			if moved {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	stop()
	wg.Wait()
}

// A database that exists but cannot be read is an error, never an empty
// list, so the catalog keeps the previous result; once it is
// readable again the next Scan reads it.
func TestUnreadableDatabaseIsAnError(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.chat(sess{id: "ses_a", dir: dir, created: t0}, "hello", "hi")
	w.Close()
	db := filepath.Join(dir, "opencode.db")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{DataDir: dir})
	ctx := context.Background()
	if got, err := s.Scan(ctx, 10, nil); err != nil || len(got) != 1 {
		t.Fatalf("Scan = %v, %v", ids(got), err)
	}

	for name, broken := range map[string][]byte{
		"not a database": []byte("this is not an SQLite database, it is a torn copy........................................................"),
		"no tables yet":  nil, // an empty file: OpenCode creating it
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(db, broken, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := s.Scan(ctx, 10, nil)
			if err == nil {
				t.Fatalf("Scan of a broken database = %v, nil; want an error", ids(got))
			}
			if _, err := s.Conversation(ctx, "ses_a"); err == nil {
				t.Error("Conversation of a broken database: no error")
			}
			if _, err := s.Session(ctx, "ses_a"); err == nil {
				t.Error("Session of a broken database: no error")
			}
			if err := os.WriteFile(db, good, 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Scan(ctx, 10, nil); err != nil || !slices.Equal(ids(got), []string{"ses_a"}) {
				t.Fatalf("Scan after repair = %v, %v", ids(got), err)
			}
		})
	}
}

// Of several databases (OpenCode channels: opencode.db, opencode-dev.db), a
// broken one that was never readable does not hide the others; one that
// was readable and fails fails the Scan (transient: keep the last result).
func TestSeveralDatabases(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.chat(sess{id: "ses_main", dir: dir, created: t0}, "main", "ok")
	w.Close()
	dev := t.TempDir()
	w = newDB(t, dev)
	w.chat(sess{id: "ses_dev", dir: dir, created: t0.Add(time.Hour)}, "dev channel", "ok")
	w.Close()
	if err := os.Rename(filepath.Join(dev, "opencode.db"), filepath.Join(dir, "opencode-dev.db")); err != nil {
		t.Fatal(err)
	}
	extra := filepath.Join(t.TempDir(), "custom.db") // $OPENCODE_DB
	w = openWriter(t, extra)
	for _, stmt := range realSchema(t) {
		w.exec(stmt)
	}
	w.chat(sess{id: "ses_extra", dir: dir, created: t0.Add(2 * time.Hour)}, "extra", "ok")
	w.Close()
	broken := filepath.Join(dir, "opencode-broken.db")
	if err := os.WriteFile(broken, []byte("garbage garbage garbage garbage garbage garbage garbage garbage garbage garbage garbage garbage"), 0o644); err != nil {
		t.Fatal(err)
	}

	s := New(Options{DataDir: dir, ExtraDBs: []string{extra}})
	ctx := context.Background()
	got, err := s.Scan(ctx, 10, nil)
	if err != nil || !slices.Equal(ids(got), []string{"ses_extra", "ses_dev", "ses_main"}) {
		t.Fatalf("Scan = %v, %v; want all three readable databases", ids(got), err)
	}
	if got[1].Path != filepath.Join(dir, "opencode-dev.db") || got[0].Path != extra {
		t.Errorf("Paths = %q, %q", got[0].Path, got[1].Path)
	}
	if msgs, err := s.Conversation(ctx, "ses_dev"); err != nil || len(msgs) != 2 {
		t.Errorf("Conversation(ses_dev) = %v, %v", msgs, err)
	}
	// The broken database made the result incomplete: not cached.
	reads := s.reads.Load()
	s.Scan(ctx, 10, nil)
	if s.reads.Load() == reads {
		t.Error("a Scan with an unreadable database was cached")
	}

	// A database that was read before and fails now fails the Scan.
	if err := os.WriteFile(filepath.Join(dir, "opencode-dev.db"), []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Scan(ctx, 10, nil); err == nil {
		t.Errorf("Scan with a once-good database broken = %v, nil; want an error", ids(got))
	}
}

// No data directory, or one without a database: OpenCode is not installed
// or never ran. That is an empty list, not an error.
func TestNoDatabase(t *testing.T) {
	ctx := context.Background()
	for _, dir := range []string{"", filepath.Join(t.TempDir(), "missing"), t.TempDir()} {
		s := New(Options{DataDir: dir})
		got, err := s.Scan(ctx, 10, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("Scan(%q) = %v, %v; want nothing", dir, got, err)
		}
		if _, err := s.Conversation(ctx, "ses_x"); err == nil {
			t.Errorf("Conversation(%q): no error", dir)
		}
	}
}

// DefaultOptions resolves the data directory as OpenCode does, with
// $OPENCODE_DATA_DIR first, and adds $OPENCODE_DB.
func TestDefaultOptions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	cases := []struct {
		dataDir, xdg, db string
		wantDir          string
		wantExtra        []string
	}{
		{"", "", "", filepath.Join(home, ".local", "share", "opencode"), nil},
		{"", "/x", "", "/x/opencode", nil},
		{"/d", "/x", "", "/d", nil},
		{"", "/x", "/abs/my.db", "/x/opencode", []string{"/abs/my.db"}},
		{"", "/x", "rel.db", "/x/opencode", []string{"/x/opencode/rel.db"}},
		{"", "/x", ":memory:", "/x/opencode", nil},
	}
	for _, c := range cases {
		t.Setenv("OPENCODE_DATA_DIR", c.dataDir)
		t.Setenv("XDG_DATA_HOME", c.xdg)
		t.Setenv("OPENCODE_DB", c.db)
		o := DefaultOptions()
		if o.DataDir != c.wantDir || !slices.Equal(o.ExtraDBs, c.wantExtra) || o.Processes != nil {
			t.Errorf("%+v: DefaultOptions = %q %q", c, o.DataDir, o.ExtraDBs)
		}
	}
}

// The cheap signature: an unchanged database and process set return the
// last result without reading; a write to the -wal, a replaced database, a
// process starting or another limit or keep read again; and a cached
// result is a copy the caller may change.
func TestSignatureCache(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.chat(sess{id: "ses_a", dir: dir, created: t0}, "hello", "hi")
	var procs []procscan.AgentProcess
	var pmu sync.Mutex
	s := New(Options{DataDir: dir, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
		pmu.Lock()
		defer pmu.Unlock()
		return slices.Clone(procs), nil
	}})
	s.settle = 0 // see TestJustWritten
	ctx := context.Background()
	scan := func(limit int, keep ...string) []string {
		t.Helper()
		got, err := s.Scan(ctx, limit, keep)
		if err != nil {
			t.Fatal(err)
		}
		return ids(got)
	}
	expectRead := func(what string, want bool, f func()) {
		t.Helper()
		before := s.reads.Load()
		f()
		if read := s.reads.Load() != before; read != want {
			t.Errorf("%s: read the database = %v, want %v", what, read, want)
		}
	}

	expectRead("first scan", true, func() { scan(10) })
	expectRead("nothing changed", false, func() { scan(10) })

	first, _ := s.Scan(ctx, 10, nil)
	first[0].Title = "changed by the caller"
	again, _ := s.Scan(ctx, 10, nil)
	if again[0].Title == "changed by the caller" {
		t.Error("the cached result is shared with the caller")
	}

	expectRead("a row written to the -wal", true, func() {
		w.chat(sess{id: "ses_b", dir: dir, created: t0.Add(time.Minute)}, "more", "ok")
		if got := scan(10); !slices.Equal(got, []string{"ses_b", "ses_a"}) {
			t.Errorf("after the write: %v", got)
		}
	})
	expectRead("a checkpoint (the database file changes)", true, func() {
		w.exec("PRAGMA wal_checkpoint(TRUNCATE)")
		scan(10)
	})
	expectRead("another limit", true, func() { scan(1) })
	expectRead("another keep", true, func() { scan(1, "ses_a") })
	expectRead("the same keep", false, func() { scan(1, "ses_a") })
	expectRead("an OpenCode process started", true, func() {
		pmu.Lock()
		procs = append(procs, tui(4242, dir, t0, "opencode"))
		pmu.Unlock()
		scan(1, "ses_a")
	})
	expectRead("the same processes", false, func() { scan(1, "ses_a") })
	expectRead("a second TUI in the same directory", true, func() {
		pmu.Lock()
		procs = append(procs, tui(4243, dir, t0, "opencode"))
		pmu.Unlock()
		scan(1, "ses_a")
	})
	expectRead("another runtime's process", false, func() {
		pmu.Lock()
		procs = append(procs, procscan.AgentProcess{PID: 99, Runtime: "claude", Cwd: dir})
		pmu.Unlock()
		scan(1, "ses_a")
	})
}

// A Scan right after a write is not reused: SQLite appends a commit to the
// -wal before readers can see it, so a read in that moment may have missed
// a commit whose file change the signature already holds. Once the files
// have been quiet for a while the result is reused.
func TestJustWritten(t *testing.T) {
	dir := t.TempDir()
	w := newDB(t, dir)
	w.chat(sess{id: "ses_a", dir: dir, created: t0}, "hello", "hi")
	s := New(Options{DataDir: dir})
	ctx := context.Background()
	for i := range 3 {
		before := s.reads.Load()
		if _, err := s.Scan(ctx, 10, nil); err != nil {
			t.Fatal(err)
		}
		if s.reads.Load() == before {
			t.Fatalf("scan %d just after a write reused a result", i)
		}
	}
	s.now = func() time.Time { return time.Now().Add(defaultSettle + time.Second) }
	s.Scan(ctx, 10, nil)
	before := s.reads.Load()
	s.Scan(ctx, 10, nil)
	if s.reads.Load() != before {
		t.Error("a quiet database was read again")
	}
}
