package opencode

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"paddock/internal/procscan"
)

// OpenCode keeps no per-session marker on disk and every process holds the
// same opencode.db open, so which session a TUI shows is read from how it
// was started, by these rules in this order:
//
//  1. -s/--session <id> on the command line (procscan reads it, stopping at
//     --prompt: the text after it is a handed-over task that may say
//     "session", "run" or even "-s ses_…", and is never argv);
//  2. PADDOCK_SESSION_ID in its environment, when it is a full session id
//     (a short placeholder never prefix-matches a ses_ id);
//  3. -c/--continue: the newest session of its directory not already held;
//  4. any other TUI: one session each, created at or after the process
//     started, in its directory (the newest-started process chooses first).
//
// Never "the newest session of the directory" for a plain TUI, and run,
// serve and the other subcommands are not TUIs (procscan's Interactive).

// proc is one OpenCode process, as far as binding needs it.
type proc struct {
	pid        int
	startTicks string
	cwd        string
	started    time.Time
	tui        bool
	argID      string // -s/--session
	envID      string // PADDOCK_SESSION_ID
	cont       bool   // -c/--continue before any --prompt
	fork       bool   // --fork: the session is copied into a new one
}

func newProc(a procscan.AgentProcess) proc {
	p := proc{
		pid:        a.PID,
		startTicks: a.StartTicks,
		cwd:        a.Cwd,
		started:    a.Started,
		tui:        a.Interactive,
		argID:      a.ArgSessionID,
		envID:      a.SessionID,
	}
	if a.Cwd != "" {
		p.cwd = filepath.Clean(a.Cwd)
	}
	if !a.ArgsHidden {
		p.cont, p.fork = continueFlags(a.Argv)
	}
	return p
}

// continueFlags finds -c/--continue and --fork among OpenCode's arguments,
// stopping at --prompt (everything after it is the prompt's text) and at
// "--".
func continueFlags(argv []string) (cont, fork bool) {
	for i, a := range argv {
		if i == 0 {
			continue // the program
		}
		if a == "--" || a == "--prompt" || strings.HasPrefix(a, "--prompt=") {
			break
		}
		switch a {
		case "-c", "--continue", "--continue=true":
			cont = true
		case "--fork", "--fork=true":
			fork = true
		}
	}
	return cont, fork
}

// candidate is a session a process may be bound to.
type candidate struct {
	id, dir          string
	created, updated time.Time
}

// startSlack allows for the start time's precision: procscan derives it
// from the boot time, which /proc gives to the second.
const startSlack = time.Second

// readCandidates reads, from c, the sessions the TUI processes may show:
// those named by -s or PADDOCK_SESSION_ID, and the newest ones of each
// TUI's directory.
func (p *pass) readCandidates(ctx context.Context, c *conn) error {
	var ids, dirs []any
	for _, pr := range p.procs {
		if !pr.tui {
			continue
		}
		for _, id := range []string{pr.argID, pr.envID} {
			if id != "" && validID(id) && !slices.Contains(ids, any(id)) {
				ids = append(ids, id)
			}
		}
		if pr.cwd != "" && !slices.Contains(dirs, any(pr.cwd)) {
			dirs = append(dirs, pr.cwd)
		}
	}
	add := func(rows []sessionRow) {
		for _, r := range rows {
			if slices.ContainsFunc(p.cands, func(x candidate) bool { return x.id == r.id }) {
				continue
			}
			dir := r.dir
			if dir != "" {
				dir = filepath.Clean(dir)
			}
			p.cands = append(p.cands, candidate{id: r.id, dir: dir, created: r.created, updated: r.updated})
			if _, ok := p.connOf[r.id]; !ok {
				p.connOf[r.id] = c
			}
		}
	}
	if len(ids) > 0 {
		rows, err := querySessions(ctx, c, "id IN ("+placeholders(len(ids))+")", ids, "")
		if err != nil {
			return err
		}
		add(rows)
	}
	if len(dirs) > 0 && c.has("session", "directory") {
		// The newest sessions per directory are enough: a TUI shows a
		// session it created (or continued) since it started.
		rows, err := querySessions(ctx, c, "directory IN ("+placeholders(len(dirs))+")", dirs,
			"LIMIT "+strconv.Itoa(100*len(dirs)))
		if err != nil {
			return err
		}
		add(rows)
	}
	return nil
}

// bindLive binds the processes to sessions and reads the bound sessions
// that the window did not include.
func (p *pass) bindLive(ctx context.Context) error {
	p.live = bind(p.procs, p.cands)
	for id := range p.live {
		if _, ok := p.byID[id]; ok {
			continue
		}
		if c := p.connOf[id]; c != nil {
			if err := p.fetchIDs(ctx, c, []string{id}); err != nil {
				return err
			}
		}
	}
	return nil
}

// bind applies the four rules above and returns session id → pid.
func bind(procs []proc, cands []candidate) map[string]int {
	live := make(map[string]int)
	known := make(map[string]bool, len(cands))
	for _, c := range cands {
		known[c.id] = true
	}
	var tuis []proc
	for _, p := range procs {
		if p.tui {
			tuis = append(tuis, p)
		}
	}
	// Oldest first, so of two processes on one session the original
	// keeps it.
	slices.SortFunc(tuis, func(a, b proc) int {
		return cmp.Or(a.started.Compare(b.started), cmp.Compare(a.pid, b.pid))
	})
	bound := make(map[int]bool)
	claim := func(p proc, id string) {
		bound[p.pid] = true
		if _, taken := live[id]; !taken {
			live[id] = p.pid
		}
	}
	// 1. -s/--session names the session outright, listed or not.
	for _, p := range tuis {
		if p.argID != "" {
			claim(p, p.argID)
		}
	}
	// 2. PADDOCK_SESSION_ID, only as a whole id this database knows.
	for _, p := range tuis {
		if !bound[p.pid] && p.envID != "" && known[p.envID] {
			claim(p, p.envID)
		}
	}
	// 3 and 4 pick among the sessions of the process's directory, newest
	// process first.
	newestFirst := slices.Clone(tuis)
	slices.Reverse(newestFirst)
	pick := func(p proc, ok func(candidate) bool) bool {
		var best *candidate
		for i := range cands {
			c := &cands[i]
			if _, taken := live[c.id]; taken || c.dir == "" || c.dir != p.cwd || !ok(*c) {
				continue
			}
			if best == nil || c.updated.After(best.updated) || c.updated.Equal(best.updated) && c.id < best.id {
				best = c
			}
		}
		if best == nil {
			return false
		}
		claim(p, best.id)
		return true
	}
	// 3. -c/--continue: the newest unheld session of its directory.
	for _, p := range newestFirst {
		if !bound[p.pid] && p.cont && !p.fork && p.cwd != "" {
			pick(p, func(candidate) bool { return true })
		}
	}
	// 4. The rest: one session each, created since the process started.
	for _, p := range newestFirst {
		if bound[p.pid] || p.cwd == "" || p.started.IsZero() {
			continue
		}
		since := p.started.Add(-startSlack)
		pick(p, func(c candidate) bool { return !c.created.Before(since) })
	}
	return live
}
