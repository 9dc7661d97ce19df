package agentenv

import (
	"os"
	"strconv"
	"syscall"
	"time"
)

// Alive reports whether pid is a running process: a zombie that only waits
// to be reaped is not (make demo checks its shutdown with it).
func Alive(pid int) bool { return alive(pid) }

// terminate sends SIGTERM, waits up to grace for the processes to go, then
// SIGKILLs the rest and waits briefly again.
func terminate(pids []int, grace time.Duration) {
	if len(pids) == 0 {
		return
	}
	signalAll(pids, syscall.SIGTERM)
	if waitGone(pids, grace) {
		return
	}
	signalAll(pids, syscall.SIGKILL)
	waitGone(pids, 2*time.Second)
}

func signalAll(pids []int, sig syscall.Signal) {
	for _, p := range pids {
		signal(p, sig)
	}
}

// signal sends sig to one process. pid 0 or -1 would signal our own process
// group or everything, so only real pids pass (a Tmux whose start failed
// has none). ESRCH means it is already gone; anything that survives is
// reported by Close.
func signal(pid int, sig syscall.Signal) {
	if pid > 1 {
		_ = syscall.Kill(pid, sig)
	}
}

// waitReaped waits until pid has left the process table entirely.
func waitReaped(pid int, within time.Duration) {
	if pid <= 0 {
		return
	}
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitGone(pids []int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		gone := true
		for _, p := range pids {
			if alive(p) {
				gone = false
				break
			}
		}
		if gone {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
