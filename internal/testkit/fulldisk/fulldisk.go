// Package fulldisk gives a test a small disk of its own that it can fill
// and free again: a tmpfs mounted under the test's temporary directory.
// Mounting needs root (or CAP_SYS_ADMIN); where it is not allowed the test
// skips with a clear message, unless TMPFS_REQUIRED=1 (set by CI) turns
// that into a failure.
package fulldisk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes on a new directory under tb's
// temporary directory and returns it; it is unmounted when the test ends.
func Mount(tb testing.TB, size int64) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := mount(dir, size); err != nil {
		msg := fmt.Sprintf("a small disk could not be mounted here (%v): this test needs root or CAP_SYS_ADMIN; set TMPFS_REQUIRED=1 to make this a failure", err)
		if os.Getenv("TMPFS_REQUIRED") == "1" {
			tb.Fatal("TMPFS_REQUIRED=1 but " + msg)
		}
		tb.Skip(msg)
	}
	// Registered after TempDir's own clean-up, so it runs first.
	tb.Cleanup(func() {
		if err := unmount(dir); err != nil {
			tb.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// Fill writes a file in dir until the disk has no byte left, and returns
// the func that deletes it again.
func Fill(tb testing.TB, dir string) (free func()) {
	tb.Helper()
	f, err := os.CreateTemp(dir, "fill-*")
	if err != nil {
		tb.Fatalf("fill %s: %v", dir, err)
	}
	path := f.Name()
	// Big writes first, then ever smaller ones, so that no page is left.
	for size := 1 << 20; size >= 1; size /= 16 {
		buf := make([]byte, size)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					_ = f.Close()
					tb.Fatalf("fill %s: %v", dir, err)
				}
				break
			}
		}
	}
	if err := f.Close(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		tb.Fatalf("fill %s: %v", dir, err)
	}
	return func() {
		tb.Helper()
		if err := os.Remove(path); err != nil {
			tb.Fatalf("free %s: %v", dir, err)
		}
	}
}
