//go:build unix

package historytest

import (
	"syscall"
	"testing"
)

func mkfifo(tb testing.TB, path string) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		tb.Fatal(err)
	}
}
