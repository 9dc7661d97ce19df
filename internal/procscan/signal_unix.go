//go:build unix

package procscan

import (
	"errors"
	"syscall"
)

// signalZero sends the null signal, which checks existence and permission
// without touching the process. EPERM still means the pid exists (it belongs
// to another user).
func signalZero(pid int) bool {
	// pid 0 and negative pids address process groups, never one process.
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
