package history

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	_ "modernc.org/sqlite"
)

func TestDSN(t *testing.T) {
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
		if got := SQLiteDSN(tt.path, tt.pragmas...); got != tt.want {
			t.Errorf("DSN(%q, %q) = %q, want %q", tt.path, tt.pragmas, got, tt.want)
		}
	}
}

// A WAL-mode database whose sidecars are there is read through DSN with
// its newest rows (those still in the -wal), and nothing is created or
// left beside it; a write through the read-only connection fails.
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

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
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
