package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

func TestDSN(t *testing.T) {
	tests := []struct {
		path    string
		pragmas []string
		want    string
	}{
		{"/a/b.db", nil, "file:/a/b.db?mode=ro&readonly_shm=1"},
		{"/data/my dir?x/o#1%.db", []string{"busy_timeout(3000)", "query_only(1)"},
			"file:/data/my%20dir%3Fx/o%231%25.db?mode=ro&readonly_shm=1&_pragma=busy_timeout(3000)&_pragma=query_only(1)"},
	}
	for _, tt := range tests {
		if got := SQLiteDSN(tt.path, tt.pragmas...); got != tt.want {
			t.Errorf("DSN(%q, %q) = %q, want %q", tt.path, tt.pragmas, got, tt.want)
		}
	}
	if got, want := SQLiteCopyDSN("/a/b c.db", "query_only(1)"), "file:/a/b%20c.db?mode=ro&_pragma=query_only(1)"; got != want {
		t.Errorf("SQLiteCopyDSN = %q, want %q", got, want)
	}
}

// A WAL-mode database whose sidecars are there is read through DSN with
// its newest rows (those still in the -wal), and nothing is created, left
// or touched beside it (not even the -shm's mtime, which a reader storing
// its read mark there would change); a write through the read-only
// connection fails.
func TestReadOnlyOpen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd ?#% dir")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "agent.db")
	w, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, q := range []string{"CREATE TABLE t (id TEXT, name TEXT)", "INSERT INTO t VALUES ('1', 'in the wal')"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := names(t, dir)
	time.Sleep(10 * time.Millisecond) // so a write would show in the mtime

	r, err := sql.Open("sqlite", SQLiteDSN(filepath.ToSlash(path), "busy_timeout(1000)", "query_only(1)"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var name string
	if err := r.QueryRow("SELECT name FROM t WHERE id = '1'").Scan(&name); err != nil || name != "in the wal" {
		t.Fatalf("read %q, %v; want the row still in the WAL", name, err)
	}
	if _, err := r.Exec("INSERT INTO t VALUES ('2', 'x')"); err == nil {
		t.Error("a write through the read-only connection succeeded")
	}

	cols, err := Columns(context.Background(), r, "t")
	if err != nil || !maps.Equal(cols, map[string]bool{"id": true, "name": true}) {
		t.Errorf("Columns(t) = %v, %v", cols, err)
	}
	conn, err := r.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if cols, err := Columns(context.Background(), conn, "missing"); err != nil || len(cols) != 0 {
		t.Errorf("Columns(missing) = %v, %v; want none", cols, err)
	}
	if after := names(t, dir); !slices.Equal(before, after) {
		t.Errorf("files beside the database: %v, then %v", before, after)
	}
}

// The files a writer that died leave behind (a -wal and a -shm whose
// index no process holds) are read in place with the newest rows and left
// exactly as they were: the first reader would otherwise take over the
// -shm and rebuild it, truncating it first.
func TestReadOnlyAfterACrash(t *testing.T) {
	live := filepath.Join(t.TempDir(), "agent.db")
	w, err := sql.Open("sqlite", "file:"+(&url.URL{Path: live}).EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, q := range []string{"CREATE TABLE t (id TEXT, name TEXT)", "INSERT INTO t VALUES ('1', 'in the wal')"} {
		if _, err := w.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	// What a killed agent leaves: the three files as they were while it ran.
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.db")
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := CopyFile(live+suffix, path+suffix); err != nil {
			t.Fatal(err)
		}
	}
	before := names(t, dir)
	time.Sleep(10 * time.Millisecond) // so a write would show in the mtime
	r, err := sql.Open("sqlite", SQLiteDSN(filepath.ToSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	var name string
	err = r.QueryRow("SELECT name FROM t WHERE id = '1'").Scan(&name)
	r.Close()
	if err != nil || name != "in the wal" {
		t.Fatalf("read %q, %v; want the row still in the WAL", name, err)
	}
	if after := names(t, dir); !slices.Equal(before, after) {
		t.Errorf("files beside the database: %v, then %v", before, after)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s", e.Name(), info.Size(), info.ModTime().Format(time.RFC3339Nano)))
	}
	return out
}

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src"), filepath.Join(dir, "dst")
	if err := os.WriteFile(src, []byte("private"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CopyFile(src, dst); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(dst)
	if err != nil || string(data) != "private" {
		t.Fatalf("copy holds %q, %v", data, err)
	}
	if st, _ := os.Stat(dst); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("copy mode %v, want 0600", st.Mode().Perm())
	}
	if err := CopyFile(src, dst); !errors.Is(err, fs.ErrExist) {
		t.Errorf("copy over an existing file: %v, want ErrExist", err)
	}
	if err := CopyFile(filepath.Join(dir, "none"), filepath.Join(dir, "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("copy of a missing file: %v, want ErrNotExist", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a failed copy left a file")
	}
}
