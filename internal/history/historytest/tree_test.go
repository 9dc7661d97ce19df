package historytest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recorder is a testing.TB that collects errors instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestTreeState(t *testing.T) {
	root := t.TempDir()
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", "one")
	write("db-shm", "index")
	before := TreeState(t, root)
	if len(before) != 3 {
		t.Fatalf("state has %d entries, want 3 (root, a, db-shm)", len(before))
	}

	check := func(name string, tr Tree, change func(), want ...string) {
		t.Helper()
		before := tr.State(t, root)
		change()
		r := &recorder{TB: t}
		SameTree(r, before, tr.State(t, root))
		got := strings.Join(r.errs, "\n")
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: reported %q, want it to mention %q", name, got, w)
			}
		}
		if len(want) == 0 && got != "" {
			t.Errorf("%s: reported %q, want nothing", name, got)
		}
	}
	check("unchanged", Tree{}, func() {})
	check("content", Tree{}, func() { write("a", "two") }, filepath.Join(root, "a")+" changed")
	check("mtime", Tree{}, func() {
		at := time.Now().Add(-time.Hour)
		os.Chtimes(filepath.Join(root, "a"), at, at)
	}, filepath.Join(root, "a")+" changed")
	check("created", Tree{}, func() { write("b", "") }, filepath.Join(root, "b")+" created", root+" changed")
	if HasCtime() {
		// What SQLite does as root to a -wal or -shm it opens: a chown to
		// the owner the file already has. Only the ctime shows it.
		check("chown to the same owner", Tree{}, func() {
			time.Sleep(10 * time.Millisecond) // past the clock's tick
			if err := os.Chown(filepath.Join(root, "a"), os.Getuid(), os.Getgid()); err != nil {
				t.Fatal(err)
			}
		}, filepath.Join(root, "a")+" changed")
	}

	shm := func(p string) bool { return strings.HasSuffix(p, "-shm") }
	check("omitted file changes", Tree{Omit: shm}, func() { write("db-shm", "other") })
	check("presence-only file changes", Tree{PresenceOnly: shm}, func() { write("db-shm", "again") })
	os.Remove(filepath.Join(root, "db-shm"))
	check("presence-only file created", Tree{PresenceOnly: shm}, func() { write("db-shm", "") }, "db-shm created")
}
