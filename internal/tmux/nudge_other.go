//go:build !unix

package tmux

// nudgeServer does nothing where there is no SIGCHLD.
func nudgeServer(int) {}
