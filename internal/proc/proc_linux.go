//go:build linux

package proc

import (
	"fmt"
	"os"
	"strconv"
)

// StartTicks returns the process's start time in clock ticks since boot,
// exactly as the decimal string the kernel prints in field 22 of
// /proc/<pid>/stat. Claude Code writes the same string as "procStart" in its
// session registry, so the two compare as strings.
func StartTicks(pid int) (string, error) {
	if pid <= 0 {
		return "", fmt.Errorf("proc: invalid pid %d", pid)
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	_, start, err := parseStat(data)
	return start, err
}

// Alive reports whether pid names a running process. A zombie (exited, not
// yet reaped) is not alive: it will never write another line.
func Alive(pid int) bool {
	if !signalZero(pid) {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// The null signal saw it; /proc may be hidden (hidepid). Trust the signal.
		return true
	}
	state, _, err := parseStat(data)
	return err != nil || (state != 'Z' && state != 'X')
}
