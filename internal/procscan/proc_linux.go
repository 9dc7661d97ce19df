//go:build linux

package procscan

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// scan reads /proc/<pid>/stat of every process: one small read each gives
// the parent, state, flags, terminal, start time and resident size. (The
// rss field there is the same page count as statm's resident field, which
// gopsutil's MemoryInfo reads: get_mm_rss in both.)
func scan(ctx context.Context) (map[int]proc, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("procscan: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("procscan: read /proc: %w", err)
	}
	page := uint64(os.Getpagesize())
	procs := make(map[int]proc, len(names))
	buf := make([]byte, 1024)
	for i, name := range names {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		pid, ok := parseUint([]byte(name))
		if !ok || pid == 0 {
			continue
		}
		var data []byte
		data, buf, err = readFile("/proc/"+name+"/stat", buf)
		if err != nil {
			continue // exited since the directory was read
		}
		if p, ok := parseStat(data, page); ok {
			procs[int(pid)] = p
		}
	}
	return procs, nil
}

// readFile reads a whole (proc) file into buf, growing it as needed, and
// returns the data and the buffer to reuse. /proc files report size 0, so
// os.ReadFile's size hint does not help and one buffer for all is cheaper.
func readFile(name string, buf []byte) (data, grown []byte, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, buf, err
	}
	defer f.Close()
	n := 0
	for {
		if n == len(buf) {
			buf = append(buf, make([]byte, len(buf))...)
		}
		m, err := f.Read(buf[n:])
		n += m
		if err == io.EOF {
			return buf[:n], buf, nil
		}
		if err != nil {
			return nil, buf, err
		}
	}
}

// PF_KTHREAD in the flags field (9) marks a kernel thread.
const pfKthread = 0x00200000

// parseStat reads /proc/<pid>/stat: "pid (comm) state ppid pgrp session
// tty_nr tpgid flags … starttime(22) vsize rss(24) …". comm may hold spaces
// and parentheses, so fields are counted from the last ')'.
func parseStat(data []byte, page uint64) (proc, bool) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 {
		return proc{}, false
	}
	var p proc
	var state byte
	field := 2 // the comm just ended
	rest := data[end+1:]
	for len(rest) > 0 && field < 24 {
		rest = bytes.TrimLeft(rest, " ")
		tok := rest
		if i := bytes.IndexByte(rest, ' '); i >= 0 {
			tok, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		field++
		switch field {
		case 3:
			if len(tok) == 1 {
				state = tok[0]
			}
		case 4:
			v, _ := parseUint(tok)
			p.ppid = int(v)
		case 7:
			p.ttyNr, _ = parseUint(tok) // negative (never seen) reads as none
		case 9:
			v, _ := parseUint(tok)
			p.kernel = v&pfKthread != 0
		case 20:
			// A thread-group leader that exited shows as a zombie while
			// its other threads run on: only a lone zombie thread is dead.
			threads, _ := parseUint(tok)
			p.zombie = state == 'X' || state == 'Z' && threads <= 1
		case 22:
			p.startTicks, _ = parseUint(tok)
		case 24:
			v, _ := parseUint(tok)
			p.rss = v * page
		}
	}
	return p, field >= 24
}

func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// userHZ is the unit of /proc's clock-tick fields. The kernel fixes it at
// 100 for user space on every architecture Go runs Linux on (sysconf
// _SC_CLK_TCK answers the same).
const userHZ = 100

// Agents finds m's CLIs among the snapshot's processes: it reads each
// process's command line (argv[0] can be renamed, so the short comm name
// is not enough), then the working directory and environment of the
// agents only.
func (s *Snapshot) Agents(ctx context.Context, m *Matcher) ([]AgentProcess, error) {
	found := map[int]string{}
	invs := map[int]Invocation{}
	argvs := map[int][]string{}
	buf := make([]byte, 4096)
	i := 0
	for pid, p := range s.procs {
		if i++; i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if p.kernel || p.zombie {
			continue
		}
		var data []byte
		var err error
		data, buf, err = readFile("/proc/"+strconv.Itoa(pid)+"/cmdline", buf)
		if err != nil || len(data) == 0 {
			continue
		}
		argv := splitCmdline(data)
		inv, ok := m.Classify(argv)
		if !ok {
			continue
		}
		found[pid], invs[pid], argvs[pid] = inv.Runtime, inv, argv
	}
	tops, inner := s.outermost(found)
	boot := bootTime()
	out := make([]AgentProcess, 0, len(tops))
	for _, pid := range tops {
		p, inv := s.procs[pid], invs[pid]
		argv := argvs[pid]
		if inv.ArgsHidden {
			argv = argv[:1]
		}
		a := AgentProcess{
			PID:          pid,
			PPID:         p.ppid,
			Runtime:      inv.Runtime,
			Argv:         argv,
			ArgsHidden:   inv.ArgsHidden,
			TTY:          TTYName(pid, p.ttyNr),
			StartTicks:   strconv.FormatUint(p.startTicks, 10),
			ArgSessionID: inv.SessionID,
			Inner:        inner[pid],
		}
		a.Interactive = a.TTY != "" && inv.TUI
		if !boot.IsZero() {
			a.Started = boot.Add(time.Duration(p.startTicks) * (time.Second / userHZ))
		}
		a.Cwd, _ = os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
		a.TerminalID, a.SessionID = paddockEnv(pid)
		out = append(out, a)
	}
	return out, nil
}

// splitCmdline splits /proc/<pid>/cmdline at NULs. The terminating NUL ends
// the last argument; any NULs beyond it (a process title written over the
// argument area) come out as empty strings, which Classify reads as
// hidden arguments.
func splitCmdline(data []byte) []string {
	s := string(data)
	s = strings.TrimSuffix(s, "\x00")
	return strings.Split(s, "\x00")
}

// paddockEnv reads PADDOCK_TERMINAL_ID and PADDOCK_SESSION_ID from the
// environment the process started with; unreadable (another user's
// process) gives "".
func paddockEnv(pid int) (terminalID, sessionID string) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", ""
	}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("PADDOCK_TERMINAL_ID=")); ok {
			terminalID = string(v)
		} else if v, ok := bytes.CutPrefix(kv, []byte("PADDOCK_SESSION_ID=")); ok {
			sessionID = string(v)
		}
	}
	return terminalID, sessionID
}

// bootTime reads the boot time from /proc/stat's btime line; zero when it
// cannot.
func bootTime() time.Time {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if v, ok := bytes.CutPrefix(line, []byte("btime ")); ok {
			if sec, ok := parseUint(bytes.TrimSpace(v)); ok {
				return time.Unix(int64(sec), 0)
			}
		}
	}
	return time.Time{}
}

// startedAt turns a start time in clock ticks after boot into wall time,
// to the second (btime's precision); zero when the boot time is unknown.
func startedAt(ticks uint64) time.Time {
	boot := bootTime()
	if boot.IsZero() {
		return time.Time{}
	}
	return boot.Add(time.Duration(ticks) * (time.Second / userHZ))
}

// OpenFiles lists the regular files a process holds open, by their paths
// (the targets of /proc/<pid>/fd/*). Sockets, pipes, anonymous inodes and
// devices are left out, and so are deleted files (" (deleted)"). It is how
// a runtime tells which history file a live agent is writing (Codex's
// rollout, Cursor's store.db). ErrNotRunning when the process is gone;
// another user's process gives a permission error.
func OpenFiles(pid int) ([]string, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, ErrNotRunning
		}
		return nil, fmt.Errorf("procscan: open files of %d: %w", pid, err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		l, err := os.Readlink(dir + "/" + e.Name())
		if err != nil || !strings.HasPrefix(l, "/") || strings.HasPrefix(l, "/dev/") || strings.HasSuffix(l, " (deleted)") {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}
