// Package procscan reads the local process table for the dashboard's
// process checks: how much memory the machine has and how much each agent
// holds with its CLI and MCP child processes, and which agent CLIs are
// running, in which directory and terminal, and whether interactively.
//
// It exists so that one walk of the process table serves a whole check: a
// Snapshot is taken once and answers the memory of every card's tree and the
// agent scan, instead of each question walking /proc again (gopsutil's
// Process.Children re-reads every /proc/<pid>/stat per call).
//
// It knows no agent by name: which programs are agents and how their flags
// read is each agent's CLI, given as data to a Matcher; procscan keeps the
// mechanism (interpreters, launchers, flag kinds, the process table).
//
// It also answers the two questions asked of a single pid (Alive,
// StartTicks, TTYName), which the relay, the scanners and hosting ask
// without a whole Snapshot.
//
// It only reads: it never signals (beyond the null signal 0 that tests a
// pid for existence), traces or writes to a process, and keeps no
// package-level state. Agent discovery needs /proc (Linux); elsewhere it
// reports ErrUnsupported, and the memory questions fall back to gopsutil.
package procscan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/shirou/gopsutil/v4/mem"
)

// ErrUnsupported is returned where the platform has no /proc to read.
var ErrUnsupported = errors.New("procscan: not supported on this platform")

// ErrNotRunning says the pid names no live process (it exited, or is a
// zombie waiting to be reaped).
var ErrNotRunning = errors.New("procscan: process not running")

// MachineMemory is the machine's physical memory in bytes, as the dashboard
// header shows it.
type MachineMemory struct {
	Total     uint64
	Available uint64 // what programs can still get without swapping (MemAvailable on Linux)
	Used      uint64 // Total - Available on Linux
}

// Machine reads the machine's memory through gopsutil (/proc/meminfo on
// Linux, sysctl on macOS).
func Machine(ctx context.Context) (MachineMemory, error) {
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return MachineMemory{}, fmt.Errorf("procscan: machine memory: %w", err)
	}
	return MachineMemory{Total: vm.Total, Available: vm.Available, Used: vm.Used}, nil
}

// TreeMemory is the resident memory of a process and all its descendants:
// an agent with its CLI child processes and MCP servers.
type TreeMemory struct {
	PID int
	// RSS is the sum of the processes' resident set sizes in bytes. Pages
	// shared between them (libraries, fork copy-on-write) count once per
	// process, as top and ps count them.
	RSS uint64
	// Processes is how many live processes were summed, the root included.
	Processes int
}

// proc is one row of the process table: what one read of /proc/<pid>/stat
// (or gopsutil elsewhere) tells.
type proc struct {
	ppid       int
	zombie     bool   // exited, not yet reaped: holds no memory, runs nothing
	kernel     bool   // a kernel thread: no command line, never an agent
	ttyNr      uint64 // controlling terminal's device number; 0 for none
	startTicks uint64 // clock ticks after boot
	rss        uint64 // bytes
}

// Snapshot is the process table as one walk found it. Processes start and
// exit meanwhile; a Snapshot is a view for one check, not a live object.
type Snapshot struct {
	procs    map[int]proc
	children map[int][]int
}

// Scan walks the process table once.
func Scan(ctx context.Context) (*Snapshot, error) {
	procs, err := scan(ctx)
	if err != nil {
		return nil, err
	}
	return newSnapshot(procs), nil
}

func newSnapshot(procs map[int]proc) *Snapshot {
	s := &Snapshot{procs: procs, children: make(map[int][]int, len(procs)/2)}
	for pid := range procs {
		if parent, ok := s.parent(pid); ok {
			s.children[parent] = append(s.children[parent], pid)
		}
	}
	return s
}

// parent returns pid's parent when the table holds it. A parent never
// starts after its child (an orphan's reaper is an older ancestor too), so a
// "parent" that did is a reused pid seen in a torn walk and is ignored; that
// also keeps the parent links free of loops, bar ties within one tick.
func (s *Snapshot) parent(pid int) (int, bool) {
	p, ok := s.procs[pid]
	if !ok || p.ppid == pid {
		return 0, false
	}
	up, ok := s.procs[p.ppid]
	if !ok || up.startTicks > p.startTicks {
		return 0, false
	}
	return p.ppid, true
}

// Trees returns the memory of each pid's process tree, keyed by pid. A pid
// that is not running is left out.
func (s *Snapshot) Trees(pids []int) map[int]TreeMemory {
	out := make(map[int]TreeMemory, len(pids))
	for _, pid := range pids {
		if t, ok := s.tree(pid); ok {
			out[pid] = t
		}
	}
	return out
}

func (s *Snapshot) tree(root int) (TreeMemory, bool) {
	if p, ok := s.procs[root]; !ok || p.zombie {
		return TreeMemory{}, false
	}
	t := TreeMemory{PID: root}
	// seen keeps the sum finite even if a torn walk made a loop.
	seen := map[int]bool{root: true}
	stack := []int{root}
	for len(stack) > 0 {
		pid := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p := s.procs[pid]; !p.zombie {
			t.RSS += p.rss
			t.Processes++
		}
		for _, c := range s.children[pid] {
			if !seen[c] {
				seen[c] = true
				stack = append(stack, c)
			}
		}
	}
	return t, true
}

// Trees walks the process table once and returns the memory of each pid's
// tree (see Snapshot.Trees).
func Trees(ctx context.Context, pids []int) (map[int]TreeMemory, error) {
	s, err := Scan(ctx)
	if err != nil {
		return nil, err
	}
	return s.Trees(pids), nil
}

// TreeRSS returns the memory of one agent's process tree. Use Trees or a
// Snapshot for several: each TreeRSS call walks the whole table.
func TreeRSS(ctx context.Context, pid int) (TreeMemory, error) {
	s, err := Scan(ctx)
	if err != nil {
		return TreeMemory{}, err
	}
	t, ok := s.tree(pid)
	if !ok {
		return TreeMemory{}, fmt.Errorf("%w: pid %d", ErrNotRunning, pid)
	}
	return t, nil
}

// AgentProcess is one running agent CLI. A launcher and the program it
// starts (Codex's node wrapper and its native binary) are one AgentProcess:
// the outermost, with the others in Inner.
type AgentProcess struct {
	PID  int
	PPID int
	// Runtime is the Runtime of the CLI that matched: the agent's name,
	// as session keys spell it.
	Runtime string
	// Argv is the command line as /proc shows it. Node CLIs that set
	// process.title (pi, kimi-code, Claude Code's cli.js) overwrite it with
	// their name; ArgsHidden says so.
	Argv []string
	// ArgsHidden: the process replaced its arguments with a title, so its
	// flags cannot be read: ArgSessionID is empty and Interactive rests on
	// the terminal alone.
	ArgsHidden bool
	// Cwd is the working directory; "" when it cannot be read (another
	// user's process).
	Cwd string
	// TTY is the controlling terminal ("/dev/pts/3"); "" when it has none.
	TTY string
	// StartTicks is the start time in clock ticks after boot, as the
	// decimal string of /proc/<pid>/stat field 22: the same string
	// StartTicks returns and Claude Code records as
	// procStart. With PID it names the process even after pid reuse.
	StartTicks string
	Started    time.Time
	// Interactive: a terminal UI a person works in. It has a controlling
	// terminal and its arguments ask for the TUI: not a print or one-shot
	// run (claude -p, codex exec, opencode run/serve, kimi -p, pi -p,
	// cursor-agent -p) and not a management subcommand (mcp, login, …).
	Interactive bool
	// ArgSessionID is the session named on the command line, as written
	// (claude --resume/--session-id, codex resume ID, opencode -s, kimi -S,
	// cursor-agent --resume, pi --session, which may be a file path). Empty
	// when none was named or the session is forked into a new one.
	ArgSessionID string
	// TerminalID and SessionID are PADDOCK_TERMINAL_ID and
	// PADDOCK_SESSION_ID from the environment it started with, when it can
	// be read (same user or root).
	TerminalID string
	SessionID  string
	// Inner are the pids of the same runtime's processes beneath this one,
	// in ascending order: the native binary under a node launcher, Codex's
	// app-server daemon while still attached, a nested `claude -p` run by a
	// tool. Their memory is in this process's tree; Codex's rollout file is
	// held open by the inner native process.
	Inner []int
}

// Agents scans the process table once for the matcher's CLIs, sorted by
// pid.
func (m *Matcher) Agents(ctx context.Context) ([]AgentProcess, error) {
	s, err := Scan(ctx)
	if err != nil {
		return nil, err
	}
	return s.Agents(ctx, m)
}

// outermost groups classified agent processes: each one whose ancestor is
// an agent of the same runtime joins that ancestor's Inner list, and only
// the outermost of each chain is kept. found maps pid to runtime.
func (s *Snapshot) outermost(found map[int]string) (tops []int, inner map[int][]int) {
	inner = map[int][]int{}
	for pid, rt := range found {
		top := pid
		seen := map[int]bool{pid: true}
		for up, ok := s.parent(pid); ok && !seen[up]; up, ok = s.parent(up) {
			seen[up] = true
			if found[up] == rt {
				top = up
			}
		}
		if top == pid {
			tops = append(tops, pid)
		} else {
			inner[top] = append(inner[top], pid)
		}
	}
	sort.Ints(tops)
	for _, pids := range inner {
		sort.Ints(pids)
	}
	return tops, inner
}

// Running reports whether pid is in the snapshot and not a zombie, with its
// start time in clock ticks after boot (to tell a reused pid apart).
func (s *Snapshot) Running(pid int) (startTicks uint64, ok bool) {
	p, ok := s.procs[pid]
	if !ok || p.zombie {
		return 0, false
	}
	return p.startTicks, true
}

// DescendantsSince counts pid's running descendants that started at or
// after since (to the second): the processes of a tool call still at work.
// Where start times cannot be placed in wall time, every descendant counts.
func (s *Snapshot) DescendantsSince(pid int, since time.Time) int {
	n := 0
	seen := map[int]bool{pid: true}
	stack := []int{pid}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range s.children[p] {
			if seen[c] {
				continue
			}
			seen[c] = true
			stack = append(stack, c)
			cp := s.procs[c]
			if cp.zombie {
				continue
			}
			if at := startedAt(cp.startTicks); at.IsZero() || !at.Before(since.Truncate(time.Second)) {
				n++
			}
		}
	}
	return n
}
