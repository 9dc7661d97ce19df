package hookchannel

import (
	"paddock/internal/procscan"

	"bytes"
	"os"
	"strconv"
	"strings"
)

// ProbeProcess describes the agent from /proc: the relay's parent, or the
// parent of that when it is the `sh -c` the agent ran the hook command
// through (dash and bash usually exec the command instead, but not always).
// Two small reads; no process table scan.
func ProbeProcess() Process {
	pid := os.Getppid()
	st, ok := readStat(pid)
	if ok && isShell(st.comm) && st.ppid > 1 {
		if up, ok := readStat(st.ppid); ok {
			pid, st = st.ppid, up
		}
	}
	p := Process{PID: pid}
	if ok {
		p.PPID = st.ppid
		p.TTY = procscan.TTYName(pid, uint64(st.ttyNr))
	}
	return p
}

type procStat struct {
	comm  string
	ppid  int
	ttyNr int64
}

// readStat parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session
// tty_nr …"; comm may hold spaces and parentheses, so fields are counted
// from the last ')'.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 5 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	tty, err2 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{comm: string(b[open+1 : end]), ppid: ppid, ttyNr: tty}, true
}

func isShell(comm string) bool {
	switch comm {
	case "sh", "dash", "bash", "zsh", "ash", "ksh", "mksh", "busybox":
		return true
	}
	return false
}
