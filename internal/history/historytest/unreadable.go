package historytest

import (
	"os"
	"path/filepath"
	"testing"
)

// Unreadable is a way to make a history file that cannot be read, and
// the Error a scanner must list its session with.
type Unreadable struct {
	Name string
	// Make puts the unreadable thing at path (its directory exists),
	// given the content a readable file would have; it skips the test
	// where the platform or the user cannot make it.
	Make func(tb testing.TB, path string, content []byte)
	Want string
}

// Unreadables are the ways a history file cannot be read: a file the
// user may not read (root may read anything, so that one is skipped as
// root — CI runs as root — and the others do not depend on it), a named
// pipe (never opened: that would wait for a writer), and a symlink loop.
func Unreadables() []Unreadable {
	return []Unreadable{
		{Name: "permission denied", Want: "the file cannot be read: permission denied", Make: func(tb testing.TB, path string, content []byte) {
			tb.Helper()
			if os.Geteuid() == 0 {
				tb.Skip("running as root: a file's permissions do not stop root reading it (the pipe and the symlink loop cases cover an unreadable file)")
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				tb.Fatal(err)
			}
			if err := os.Chmod(path, 0); err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { _ = os.Chmod(path, 0o644) })
		}},
		{Name: "named pipe", Want: "the file cannot be read: it is not a regular file", Make: func(tb testing.TB, path string, _ []byte) {
			tb.Helper()
			mkfifo(tb, path)
		}},
		{Name: "symlink loop", Want: "the file cannot be read: too many levels of symbolic links", Make: func(tb testing.TB, path string, _ []byte) {
			tb.Helper()
			if err := os.Symlink(filepath.Base(path), path); err != nil {
				tb.Skipf("cannot make a symlink here: %v", err)
			}
		}},
	}
}
