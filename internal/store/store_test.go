package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// t0 is a fixed clock for tests; whole milliseconds, as stored.
var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func openTest(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "paddock.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func hash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func TestOpenFileMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "paddock.db")
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Force a write so the -wal file exists too.
	if err := s.Audit(context.Background(), t0, "test", "write", ""); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != 0o600 {
			t.Errorf("%s mode = %o, want 600", filepath.Base(p), got)
		}
	}
	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o700 {
		t.Errorf("data dir mode = %o, want 700", got)
	}
}

func TestOpenTightensLooseFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "paddock.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // umask-proof
		t.Fatal(err)
	}
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != 0o600 {
		t.Errorf("mode = %o, want 600", got)
	}
}

// Every pooled connection, not only the first, must carry the DSN pragmas.
func TestPragmasOnEveryConnection(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	var conns []*sql.Conn
	for range maxOpenConns {
		c, err := s.db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i, c := range conns {
		for _, tc := range []struct {
			pragma string
			want   string
		}{
			{"journal_mode", "wal"},
			{"busy_timeout", "5000"},
			{"foreign_keys", "1"},
			{"synchronous", "1"}, // NORMAL
		} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("conn %d: PRAGMA %s = %q, want %q", i, tc.pragma, got, tc.want)
			}
		}
	}
}

// A data dir with URI-special characters must still open the right file.
func TestOpenAwkwardPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "we?ird #dir %41 &x=1")
	path := filepath.Join(dir, "paddock.db")
	s, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Audit(context.Background(), t0, "test", "write", ""); err != nil {
		t.Fatal(err)
	}
	s.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	if !names["paddock.db"] {
		t.Fatalf("database not created at %q; dir holds %v", path, names)
	}
	// Reopen sees the same data.
	s, err = Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	log, err := s.AuditLog(context.Background(), 10)
	if err != nil || len(log) != 1 {
		t.Fatalf("reopened audit log = %v, %v; want 1 entry", log, err)
	}
}

func TestOpenEmptyPath(t *testing.T) {
	if _, err := Open(context.Background(), "", nil); err == nil {
		t.Fatal("Open(\"\") succeeded")
	}
}

func TestConcurrentWriters(t *testing.T) {
	// Many writers at once must queue on busy_timeout, never fail with
	// SQLITE_BUSY.
	s := openTest(t)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		wg.Go(func() {
			errs <- s.Audit(context.Background(), t0.Add(time.Duration(i)*time.Millisecond), "test", "write", "")
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
