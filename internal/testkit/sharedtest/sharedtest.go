// Package sharedtest finds the read-only ../shared material (fixtures from
// other projects and from the real CLIs) for tests. A user's clone has no
// ../shared: tests then skip with a clear message, unless SHARED_REQUIRED=1
// (set by CI) turns the absence into a failure.
package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the absolute path of ../shared (relative to the module root),
// or skips (fails under SHARED_REQUIRED=1) when it is not there.
func Dir(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("sharedtest: cannot locate source file")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..", "..")
	dir, err := filepath.Abs(filepath.Join(root, "..", "shared"))
	if err != nil {
		tb.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "fixtures")); err != nil || !st.IsDir() {
		msg := "../shared/fixtures not found (a user's clone has none); set SHARED_REQUIRED=1 to make this a failure"
		if os.Getenv("SHARED_REQUIRED") == "1" {
			tb.Fatal("SHARED_REQUIRED=1 but " + msg)
		}
		tb.Skip(msg)
	}
	return dir
}

// Fixtures returns ../shared/fixtures/<elem...>.
func Fixtures(tb testing.TB, elem ...string) string {
	tb.Helper()
	return filepath.Join(append([]string{Dir(tb), "fixtures"}, elem...)...)
}
