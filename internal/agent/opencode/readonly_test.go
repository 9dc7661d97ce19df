package opencode

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
)

// Every public method leaves the data directory exactly as it was (scanning
// is read-only): no file changed (bytes, mtime, ctime), none created, for
// each state OpenCode leaves its database in; and the private copies are
// gone once read.
func TestReadOnly(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"rollback journal (VACUUM INTO, the testdata recording)", func(t *testing.T, dir string) {
			copyTree(t, filepath.Dir(recordedDB(t)), dir)
		}},
		{"WAL without -wal and -shm (closed by another program)", func(t *testing.T, dir string) {
			w := newDB(t, dir)
			w.chat(sess{id: "ses_a", dir: dir, created: t0}, "hello", "hi")
			w.Close()
			if _, err := os.Stat(filepath.Join(dir, "opencode.db-wal")); err == nil {
				t.Fatal("setup: the -wal file survived the last close")
			}
		}},
		{"WAL with -wal only", func(t *testing.T, dir string) {
			w := newDB(t, dir)
			w.chat(sess{id: "ses_a", dir: dir, created: t0}, "hello", "hi")
			// Copy the live files, then drop the -shm: a -wal with rows
			// and no index.
			live := t.TempDir()
			for _, f := range []string{"opencode.db", "opencode.db-wal"} {
				copyTree(t, filepath.Join(dir, f), filepath.Join(live, f))
			}
			w.Close()
			os.RemoveAll(dir)
			copyTree(t, live, dir)
		}},
		{"WAL with both sidecars, a writer holding them (OpenCode running)", func(t *testing.T, dir string) {
			w := newDB(t, dir)
			w.chat(sess{id: "ses_a", dir: dir, created: t0}, "hello", "hi")
			// The writer stays open until the test ends: rows in the
			// -wal, -shm in use.
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			before := historytest.TreeState(t, dir)
			time.Sleep(10 * time.Millisecond) // so that a change shows in the times
			tmp := t.TempDir()
			s := New(Options{DataDir: dir, KeepMissingCwd: true, Snapshots: history.NewSnapshots(history.SnapshotOptions{Dir: tmp})})
			exercise(t, s)
			infos, err := s.Scan(context.Background(), -1, nil)
			if err != nil || len(infos) == 0 {
				t.Fatalf("Scan = %v, %v; want sessions", ids(infos), err)
			}
			historytest.SameTree(t, before, historytest.TreeState(t, dir))
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("private copies left after the reads: %v", left)
			}
		})
	}
}

// A data directory the reader cannot write to (another user's, a
// read-only mount, a backup) is read anyway, from private copies, whether
// OpenCode left its -wal and -shm (even read-only for us) or a WAL
// database has neither (read in place, SQLite would fail with
// SQLITE_READONLY_CANTINIT). As root, directory permissions do not apply,
// so the reading runs in a child process as nobody.
func TestUnwritableDataDir(t *testing.T) {
	base, err := os.MkdirTemp("", "paddock-opencode-ro-*")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(base, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	os.Chmod(base, 0o755)

	noSidecars := filepath.Join(base, "no-sidecars")
	w := newDB(t, noSidecars)
	w.chat(sess{id: "ses_closed", dir: base, created: t0}, "closed cleanly", "ok")
	w.Close()

	withSidecars := filepath.Join(base, "with-sidecars")
	w = newDB(t, withSidecars)
	w.chat(sess{id: "ses_running", dir: base, created: t0}, "still in the wal", "ok")
	// w stays open: the rows are only in the -wal, as with a running
	// OpenCode.

	for _, dir := range []string{noSidecars, withSidecars} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			os.Chmod(filepath.Join(dir, e.Name()), 0o444)
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o777)

	want := map[string][]string{
		noSidecars:   {"ses_closed", "user: closed cleanly", "assistant: ok"},
		withSidecars: {"ses_running", "user: still in the wal", "assistant: ok"},
	}
	for dir, w := range want {
		before := historytest.TreeState(t, dir)
		var got []string
		if os.Getuid() == 0 {
			got = readAsNobody(t, base, dir, tmp)
		} else {
			got = readDir(dir, tmp)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: read %q, want %q", filepath.Base(dir), got, w)
		}
		historytest.SameTree(t, before, historytest.TreeState(t, dir))
	}
}

// readDir lists dir's sessions and the first one's conversation, as
// "id", "role: text"...; an error is returned as "error: …".
func readDir(dir, tmp string) []string {
	s := New(Options{DataDir: dir, KeepMissingCwd: true, Snapshots: history.NewSnapshots(history.SnapshotOptions{Dir: tmp})})
	ctx := context.Background()
	infos, err := s.Scan(ctx, 10, nil)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	if len(infos) == 0 {
		return []string{"no sessions"}
	}
	msgs, err := s.Conversation(ctx, infos[0].ID)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	return append([]string{infos[0].ID}, convText(msgs)...)
}

// readAsNobody runs readDir in a copy of this test binary as uid 65534.
func readAsNobody(t *testing.T, base, dir, tmp string) []string {
	t.Helper()
	bin := filepath.Join(base, "opencode.test")
	if _, err := os.Stat(bin); err != nil {
		in, err := os.Open(os.Args[0])
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		out, err := os.OpenFile(bin, os.O_WRONLY|os.O_CREATE, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		out.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^TestHelperReadDir$", "-test.count=1")
	cmd.Env = []string{"OPENCODE_TEST_READ_DIR=" + dir, "OPENCODE_TEST_TMP=" + tmp, "HOME=" + tmp}
	cmd.Dir = tmp
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reading as nobody: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if j, ok := strings.CutPrefix(line, "READ "); ok {
			var got []string
			if err := json.Unmarshal([]byte(j), &got); err != nil {
				t.Fatal(err)
			}
			return got
		}
	}
	t.Fatalf("no result from the child:\n%s", out)
	return nil
}

// TestHelperReadDir is TestUnwritableDataDir's child process; it does
// nothing unless that test started it.
func TestHelperReadDir(t *testing.T) {
	dir := os.Getenv("OPENCODE_TEST_READ_DIR")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "probe"), nil, 0o644); err == nil {
		t.Fatalf("%s is writable by uid %d: the test proves nothing", dir, os.Getuid())
	}
	got, _ := json.Marshal(readDir(dir, os.Getenv("OPENCODE_TEST_TMP")))
	os.Stdout.WriteString("READ " + string(got) + "\n")
}
