//go:build !unix

package historytest

import "testing"

func mkfifo(tb testing.TB, _ string) { tb.Skip("no named pipes on this platform") }
