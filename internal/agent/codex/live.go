package codex

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"paddock/internal/procscan"
)

// binding is the live process of one thread.
type binding struct {
	pid     int
	cwd     string    // the process's working directory
	started time.Time // when the process started
	// fromFile: the thread was bound by a file the process holds open (a
	// rollout or a writer lock), not by an id on its command line.
	fromFile bool
	// interactive: a TUI in a terminal; wins over other holders.
	interactive bool
}

// liveSet is what one look at the codex processes found.
type liveSet struct {
	threads map[string]binding // thread id → its process
	// locked are threads whose writer lock a process holds while no rollout
	// of theirs was seen open: Codex creates the rollout only with the
	// first prompt, so these are new sessions nobody has typed into yet.
	locked map[string]bool
	key    string // a canonical form of the above, for the scan signature
}

// openFilesFunc lists the regular files a process holds open
// (procscan.OpenFiles).
type openFilesFunc func(pid int) ([]string, error)

// cmdlineFunc returns a process's command line (nil when unreadable).
type cmdlineFunc func(pid int) []string

// bindProcesses finds which threads the codex processes have open: the
// rollout-*.jsonl and thread-writer-locks/<id>.lock files a
// live codex process holds, read from /proc/<pid>/fd of the process and of
// its Inner pids (the native binary under the npm launcher holds them).
//
// Codex 0.169's managed app-server daemon is left out: it loads the threads
// of every TUI that connects to it and keeps them open after the TUI has
// quit, so its open files say "loaded once", not "someone has this open
// now". A TUI served by the daemon holds no thread file itself; for it,
// and wherever /proc cannot be read, only an exact id is evidence: the one
// on its command line (`codex resume ID`) or in PADDOCK_SESSION_ID. Nothing
// is ever guessed from the working directory, an id prefix or start order.
//
// Only files under the Codex home count (within): a codex process of
// another CODEX_HOME holds threads this Scanner does not list.
func bindProcesses(procs []procscan.AgentProcess, openFiles openFilesFunc, cmdline cmdlineFunc, within func(string) bool) liveSet {
	ls := liveSet{threads: make(map[string]binding), locked: make(map[string]bool)}
	rollouts := make(map[string]bool)
	for _, p := range procs {
		if p.Runtime != runtimeName || managedDaemon(p.Argv) {
			continue
		}
		b := binding{pid: p.PID, cwd: p.Cwd, started: p.Started, fromFile: true, interactive: p.Interactive}
		held := false
		for _, pid := range append([]int{p.PID}, p.Inner...) {
			if pid != p.PID && managedDaemon(cmdline(pid)) {
				continue // the daemon while still a child of the TUI that started it
			}
			files, err := openFiles(pid)
			if err != nil {
				continue
			}
			for _, f := range files {
				id, kind := heldThread(f)
				if id == "" || !within(f) {
					continue
				}
				held = true
				ls.bind(id, b)
				if kind == heldRollout {
					rollouts[id] = true
				} else {
					ls.locked[id] = true
				}
			}
		}
		if held {
			continue
		}
		b.fromFile = false
		for _, id := range []string{p.SessionID, p.ArgSessionID} {
			if validID(id) {
				ls.bind(id, b)
			}
		}
	}
	for id := range rollouts {
		delete(ls.locked, id)
	}
	ls.key = ls.canonical()
	return ls
}

// bind records b as the process of id unless a better one holds it: a
// file beats a command line, a TUI beats a background run, then the lower
// pid (a stable choice).
func (ls liveSet) bind(id string, b binding) {
	old, ok := ls.threads[id]
	if !ok || better(b, old) {
		ls.threads[id] = b
	}
}

func better(a, b binding) bool {
	if a.fromFile != b.fromFile {
		return a.fromFile
	}
	if a.interactive != b.interactive {
		return a.interactive
	}
	return a.pid < b.pid
}

func (ls liveSet) canonical() string {
	var parts []string
	for id, b := range ls.threads {
		parts = append(parts, id+"="+strconv.Itoa(b.pid)+"/"+strconv.FormatBool(b.fromFile)+"/"+strconv.FormatBool(ls.locked[id]))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

type heldKind uint8

const (
	heldRollout heldKind = iota + 1
	heldLock
)

// heldThread names the thread of an open file: a rollout-*.jsonl (any
// layout) or a thread-writer-locks/<id>.lock.
func heldThread(path string) (string, heldKind) {
	name := filepath.Base(path)
	if id, ok := rolloutID(name); ok {
		return id, heldRollout
	}
	if filepath.Base(filepath.Dir(path)) == "thread-writer-locks" {
		if id, ok := strings.CutSuffix(name, ".lock"); ok && validID(id) {
			return id, heldLock
		}
	}
	return "", 0
}

// ownProcesses is Codex's command-line table as a matcher: managedDaemon
// also reads the command lines of Inner pids, which procscan does not
// classify.
var ownProcesses = procscan.NewMatcher(process())

// managedDaemon reports whether argv runs Codex's managed app-server
// daemon (`codex app-server --listen unix:// --managed-daemon`) or its
// updater (`codex app-server daemon …`). A plain `codex app-server` is an
// IDE's own server for its open conversation and counts as a holder.
func managedDaemon(argv []string) bool {
	inv, ok := ownProcesses.Classify(argv)
	if !ok || inv.Runtime != runtimeName || len(inv.Args) == 0 || inv.Args[0] != "app-server" {
		return false
	}
	return slices.Contains(inv.Args, "--managed-daemon") || len(inv.Args) > 1 && inv.Args[1] == "daemon"
}

// under returns a test for "path is inside dir", for dir as given and as
// its symlinks resolve (/proc shows resolved paths).
func under(dir string) func(string) bool {
	roots := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	return func(path string) bool {
		for _, r := range roots {
			if strings.HasPrefix(path, r+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
}

// procCmdline reads /proc/<pid>/cmdline (Linux; nil elsewhere or when the
// process is gone). procscan reads the command lines of the outermost agent
// processes only; this is for their Inner pids.
func procCmdline(pid int) []string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

// addParents binds, for each bound subagent thread, its parent thread to
// the same process, unless the parent has a process of its own: Codex runs
// subagents inside the parent's process, and the parent is what the list
// shows.
func (ls liveSet) addParents(parentOf func(id string) string) {
	type add struct {
		id string
		b  binding
	}
	var adds []add
	for id, b := range ls.threads {
		if p := parentOf(id); p != "" && p != id {
			adds = append(adds, add{p, b})
		}
	}
	slices.SortFunc(adds, func(x, y add) int {
		return cmp.Or(cmp.Compare(x.id, y.id), cmp.Compare(x.b.pid, y.b.pid))
	})
	for _, a := range adds {
		if _, ok := ls.threads[a.id]; !ok {
			ls.threads[a.id] = a.b
		}
	}
}
