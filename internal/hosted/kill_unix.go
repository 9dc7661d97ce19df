//go:build unix

package hosted

import (
	"errors"
	"syscall"
)

// kill sends SIGKILL to pid (a positive pid only: never a process group).
func kill(pid int) error {
	if pid <= 0 {
		return errors.New("hosted: refusing to signal pid <= 0")
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}
