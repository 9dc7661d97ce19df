//go:build unix

package hookchannel

import "syscall"

// processAlive says whether pid is a live process of this user: signal 0
// checks without signalling. Another user's process (EPERM) is not the
// serve that wrote our serve.json.
func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
