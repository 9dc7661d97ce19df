package cursor

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"time"
)

// Liveness. A running Cursor agent process names the
// chat it works on by exactly one of, in this order:
//
//  1. --resume <chatId> on its command line (AgentProcess.ArgSessionID);
//  2. the store.db it (or a process beneath it, AgentProcess.Inner) holds
//     open, read from /proc/<pid>/fd (procscan.OpenFiles);
//  3. the full session id paddock put in its environment
//     (AgentProcess.SessionID, PADDOCK_SESSION_ID).
//
// Nothing else binds: never the working directory (a blank new chat's
// process would otherwise be bound to an older chat of the same folder),
// never a prefix of an id (paddock's 8-character placeholders match no
// chat). A chat that is a subagent's (meta.json isSubagent, or store.db's
// subagentInfo) is not listed, but its live process marks the chat it ran
// under live: rootParentAgentId, else parentAgentId, read from the
// subagent's store.db only when a live process hits it. When several
// processes name one chat, the one that names it directly beats a
// subagent's, and one that did not need --resume (the original) beats a
// second `--resume` of it.

// evidence is what one running Cursor process says about its chat.
type evidence struct {
	pid     int
	started time.Time
	resume  string   // --resume <chatId>
	open    []string // ids of the chats whose store.db it holds open, sorted
	env     string   // PADDOCK_SESSION_ID
	cwd     string   // names a workspace folder only; never binds
}

// gatherEvidence asks Options.Processes for the running agents and reads
// the open files of Cursor's. A failure to list processes is logged and
// reads as "nothing is live": liveness must never fail a scan.
func (s *Scanner) gatherEvidence(ctx context.Context) []evidence {
	evs, err := s.evidence(ctx)
	if err != nil {
		s.problems.Error("processes", "cannot list agent processes; Cursor sessions shown as not running", "err", err)
		return nil
	}
	return evs
}

// evidence is gatherEvidence without the fallback: an error when the
// processes cannot be listed (Delete must not take that as "none").
func (s *Scanner) evidence(ctx context.Context) ([]evidence, error) {
	if s.processes == nil {
		return nil, nil
	}
	procs, err := s.processes(ctx)
	if err != nil {
		return nil, err
	}
	roots := s.chatsRoots()
	var out []evidence
	for _, p := range procs {
		if p.Runtime != runtimeName {
			continue
		}
		ev := evidence{pid: p.PID, started: p.Started, env: p.SessionID, cwd: p.Cwd}
		if validID(p.ArgSessionID) {
			ev.resume = p.ArgSessionID
		}
		seen := map[string]bool{}
		for _, pid := range append([]int{p.PID}, p.Inner...) {
			files, err := s.openFiles(pid)
			if err != nil {
				continue // exited, or another user's process
			}
			for _, f := range files {
				if id := storeChatID(f, roots); id != "" && !seen[id] {
					seen[id] = true
					ev.open = append(ev.open, id)
				}
			}
		}
		slices.Sort(ev.open)
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b evidence) int { return cmp.Compare(a.pid, b.pid) })
	return out, nil
}

// chatsRoots is chats/ as configured and with symlinks resolved: /proc
// shows the resolved path of an open file.
func (s *Scanner) chatsRoots() []string {
	root, err := filepath.Abs(s.chatsDir())
	if err != nil {
		root = filepath.Clean(s.chatsDir())
	}
	roots := []string{root}
	if r, err := filepath.EvalSymlinks(root); err == nil && r != root {
		roots = append(roots, r)
	}
	return roots
}

// storeChatID returns the chat id of an open file that is a chat's
// store.db (or its -wal or -shm) under one of roots; "" for anything else.
func storeChatID(path string, roots []string) string {
	base := filepath.Base(path)
	if base != "store.db" && base != "store.db-wal" && base != "store.db-shm" {
		return ""
	}
	chatDir := filepath.Dir(path)
	id := filepath.Base(chatDir)
	if !validID(id) {
		return ""
	}
	under := filepath.Dir(filepath.Dir(chatDir))
	for _, r := range roots {
		if under == r {
			return id
		}
	}
	return ""
}

// claim is one process's claim on a listed chat.
type claim struct {
	pid       int
	started   time.Time
	direct    bool // the process names this chat, not one of its subagents
	viaResume bool // named by --resume
}

// better reports whether a should hold the chat rather than b.
func (a claim) better(b claim) bool {
	if a.direct != b.direct {
		return a.direct
	}
	if a.viaResume != b.viaResume {
		return !a.viaResume
	}
	if !a.started.Equal(b.started) && !a.started.IsZero() && !b.started.IsZero() {
		return a.started.Before(b.started)
	}
	return a.pid < b.pid
}

// maxSubagentDepth bounds the walk up a chain of subagents' parents.
const maxSubagentDepth = 8

// binder resolves evidence to the top-level chats it makes live.
type binder struct {
	s      *Scanner
	ctx    context.Context
	lookup func(id string) *chat // a chat or transcript by id, nil if none
}

// bind returns, by top-level chat id, the pid that holds it.
func (b *binder) bind(evs []evidence) map[string]int {
	claims := make(map[string]claim)
	for _, ev := range evs {
		top, c, ok := b.choose(ev)
		if !ok {
			continue
		}
		c.pid, c.started = ev.pid, ev.started
		if old, held := claims[top]; !held || c.better(old) {
			claims[top] = c
		}
	}
	out := make(map[string]int, len(claims))
	for id, c := range claims {
		out[id] = c.pid
	}
	return out
}

// choose picks the chat one process works on, by the evidence order, and
// resolves it to its top-level chat.
func (b *binder) choose(ev evidence) (string, claim, bool) {
	if ev.resume != "" && b.lookup(ev.resume) != nil {
		top, direct, ok := b.top(ev.resume)
		return top, claim{direct: direct, viaResume: true}, ok
	}
	if len(ev.open) > 0 {
		// A process may hold more than one store (its own and an
		// in-process subagent's): they lead to one chat. Should they lead
		// to two, the most recently active one wins.
		var best string
		var bestClaim claim
		var bestActivity int64 = -1
		for _, id := range ev.open {
			c := b.lookup(id)
			if c == nil {
				continue
			}
			top, direct, ok := b.top(id)
			if !ok {
				continue
			}
			if c.activityNs > bestActivity {
				best, bestClaim, bestActivity = top, claim{direct: direct}, c.activityNs
			}
		}
		if best != "" {
			return best, bestClaim, true
		}
	}
	if validID(ev.env) && b.lookup(ev.env) != nil {
		top, direct, ok := b.top(ev.env)
		return top, claim{direct: direct}, ok
	}
	return "", claim{}, false
}

// top follows a subagent's chat up to the chat of the user's own it ran
// under. ok is false when the chain cannot be followed (a subagent whose
// store names no parent, a parent that is gone): nothing is guessed then.
func (b *binder) top(id string) (top string, direct, ok bool) {
	seen := map[string]bool{}
	for depth := 0; depth < maxSubagentDepth; depth++ {
		c := b.lookup(id)
		if c == nil || seen[id] {
			return "", false, false
		}
		seen[id] = true
		if c.transcript != "" || !b.s.summary(b.ctx, c).subagent {
			return id, depth == 0, true
		}
		parent := b.s.parentOf(b.ctx, c)
		if parent == "" {
			return "", false, false
		}
		id = parent
	}
	return "", false, false
}

// parentOf reads the parent of a subagent's chat from its store.db,
// cached by the store's signature. "" when it names none or cannot be read.
func (s *Scanner) parentOf(ctx context.Context, c *chat) string {
	if !c.store.ok {
		return ""
	}
	path := c.storePath()
	sig := [2]fileStat{c.store, c.wal}
	s.mu.Lock()
	e, ok := s.parents[path]
	s.mu.Unlock()
	if ok && e.sig == sig {
		return e.parent
	}
	s.storeReads.Add(1)
	parent, err := s.storeParent(ctx, path)
	if err != nil {
		s.problems.Error(path, "cannot read Cursor store.db for a subagent's parent", "err", err)
		return ""
	}
	if parent == c.id {
		parent = ""
	}
	s.mu.Lock()
	s.parents[path] = parentEntry{sig: sig, parent: parent}
	s.mu.Unlock()
	return parent
}

type parentEntry struct {
	sig    [2]fileStat
	parent string
}
