//go:build unix

package tmux

import "syscall"

// nudgeServer sends SIGCHLD to paddock's tmux server so that it reaps
// exited panes (see settle). Only a real pid is signalled.
func nudgeServer(pid int) {
	if pid > 1 {
		_ = syscall.Kill(pid, syscall.SIGCHLD)
	}
}
