//go:build linux

package procscan

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// StartTicks returns the process's start time in clock ticks since boot,
// exactly as the decimal string the kernel prints in field 22 of
// /proc/<pid>/stat. Claude Code writes the same string as "procStart" in its
// session registry, so the two compare as strings.
func StartTicks(pid int) (string, error) {
	if pid <= 0 {
		return "", fmt.Errorf("procscan: invalid pid %d", pid)
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", err
	}
	_, start, err := parsePidStat(data)
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
	state, _, err := parsePidStat(data)
	return err != nil || (state != 'Z' && state != 'X')
}

// TTYName names a controlling terminal from its device number: a pseudo
// terminal (/dev/pts/N, majors 136–143), a virtual console (/dev/ttyN) or a
// serial line (/dev/ttySN). Anything else is named by what the process's
// standard streams point at, or else by its /dev/char/MAJOR:MINOR link, so
// that a process with a terminal never reads as having none. nr is field 7
// (tty_nr) of /proc/<pid>/stat; "" when it is 0 (no terminal).
func TTYName(pid int, nr uint64) string {
	if nr == 0 {
		return ""
	}
	major := (nr >> 8) & 0xfff
	minor := (nr & 0xff) | ((nr >> 12) & 0xfff00)
	switch {
	case major >= 136 && major <= 143:
		return "/dev/pts/" + strconv.FormatUint((major-136)*256+minor, 10)
	case major == 4 && minor < 64:
		return "/dev/tty" + strconv.FormatUint(minor, 10)
	case major == 4:
		return "/dev/ttyS" + strconv.FormatUint(minor-64, 10)
	}
	for _, fd := range []string{"0", "1", "2"} {
		l, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/" + fd)
		if err == nil && (strings.HasPrefix(l, "/dev/tty") || strings.HasPrefix(l, "/dev/pts/") || l == "/dev/console") {
			return l
		}
	}
	return "/dev/char/" + strconv.FormatUint(major, 10) + ":" + strconv.FormatUint(minor, 10)
}
