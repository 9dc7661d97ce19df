package kimi

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"time"

	"paddock/internal/procscan"
)

// Liveness binds a running kimi TUI to the session
// it works on, from positive evidence only, in this order:
//
//  1. the session named on its command line (-S/--session ID, or the
//     hidden alias -r/--resume ID);
//  2. PADDOCK_SESSION_ID, matched in full (an 8-character placeholder
//     never matches a session by prefix);
//  3. -c/--continue: the newest session of its working directory that no
//     process of rules 1–2 holds;
//  4. any other TUI: one to one, in order of start, each process the
//     earliest unheld session of its working directory created at or
//     after the process started (kimi-code creates its session as it
//     starts), so a session a later `kimi -p` run or a TUI that has since
//     exited left in the same directory is not taken instead.
//
// "Newest session of the same cwd" alone is never used. -p print runs and
// the server/web subcommands are not TUIs (procscan's Interactive). A
// process whose named or announced session is not on disk yet binds
// nothing and takes no other session. kimi-code overwrites its argv with
// its process title ("kimi-code"), so rules 1 and 3 apply only where the
// arguments can still be read; rule 4 is what binds a plain `kimi`.
//
// Rule 4 keeps to the process's own working directory (kimi files a
// session under its cwd): a bound on the newest-session rule, not a guess by cwd,
// so a TUI in one project never claims a session another project's `kimi
// -p` run just created.

// startSlack absorbs small errors of a process start time (boot time plus
// clock ticks, the boot time in whole seconds) in rule 4.
const startSlack = time.Second

// kimiProc is a kimi process with what its arguments say beyond procscan.
type kimiProc struct {
	procscan.AgentProcess
	resume string // -S/--session or -r/--resume ID
	cont   bool   // -c/--continue (kimi-cli: -C)
}

// kimiProcs keeps the interactive kimi processes.
func kimiProcs(all []procscan.AgentProcess) []kimiProc {
	var out []kimiProc
	for _, p := range all {
		if p.Runtime != runtimeName || !p.Interactive {
			continue
		}
		kp := kimiProc{AgentProcess: p, resume: p.ArgSessionID}
		if !p.ArgsHidden {
			resume, cont := parseArgs(p.Argv)
			kp.resume = cmp.Or(kp.resume, resume)
			kp.cont = cont
		}
		out = append(out, kp)
	}
	return out
}

// parseArgs reads the session flags procscan does not: kimi-code's hidden
// -r/--resume alias and -c/--continue (-C in kimi-cli). It starts after the
// program (or the interpreter's script) and stops at -p/--prompt, whose
// value is free text.
func parseArgs(argv []string) (resume string, cont bool) {
	start := 1
	for i, a := range argv {
		base := strings.TrimSuffix(strings.TrimSuffix(path.Base(a), ".mjs"), ".js")
		if base == "kimi" || base == "kimi-code" || strings.Contains(a, "/kimi-code/") || strings.Contains(a, "/kimi_cli/") {
			start = i + 1
			break
		}
	}
	takesValue := map[string]bool{
		"-m": true, "--model": true, "--output-format": true, "--skills-dir": true,
		"--agent": true, "--agent-file": true, "--add-dir": true,
	}
	for i := start; i < len(argv); i++ {
		a := argv[i]
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--" || name == "-p" || name == "--prompt":
			return resume, cont
		case takesValue[name]:
			if !hasVal {
				i++
			}
		case name == "-r" || name == "--resume" || name == "-S" || name == "--session":
			if !hasVal && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
				i++
				val, hasVal = argv[i], true
			}
			if hasVal && val != "" {
				resume = val
			}
		case a == "-c" || a == "-C" || a == "--continue":
			cont = true
		}
	}
	return resume, cont
}

// buckets are the session directories a process in cwd writes to: the
// kimi-code workdir key and the kimi-cli md5 bucket.
func (p kimiProc) buckets() (currentKey, legacyKey string) {
	return workDirKey(p.Cwd), legacyBucket(p.Cwd)
}

func (p kimiProc) inBucket(c *candidate) bool {
	if p.Cwd == "" {
		return false
	}
	cur, leg := p.buckets()
	if c.layout == current {
		return c.bucket == cur
	}
	return c.bucket == leg || strings.HasSuffix(c.bucket, "_"+leg)
}

// bindLive returns session id → pid for the sessions in cands (newest
// mtime first) that a live kimi TUI holds. created gives a session's
// creation time, read only for the few sessions rule 4 looks at.
func bindLive(all []procscan.AgentProcess, cands []candidate, created func(*candidate) time.Time) map[string]int {
	procs := kimiProcs(all)
	if len(procs) == 0 {
		return nil
	}
	byID := make(map[string]*candidate, len(cands))
	for i := range cands {
		if _, dup := byID[cands[i].id]; !dup {
			byID[cands[i].id] = &cands[i]
		}
	}
	bound := make(map[string]int)
	done := make(map[int]bool) // processes rules 1–3 settled
	exact := func(p kimiProc, id string) {
		done[p.PID] = true
		if _, ok := byID[id]; ok && bound[id] == 0 {
			bound[id] = p.PID
		}
	}
	// Rule 1, then rule 2.
	for _, p := range procs {
		if p.resume != "" {
			exact(p, p.resume)
		}
	}
	for _, p := range procs {
		if !done[p.PID] && p.SessionID != "" {
			exact(p, p.SessionID)
		}
	}
	// Rule 3: candidates are newest first.
	for _, p := range procs {
		if done[p.PID] || !p.cont {
			continue
		}
		done[p.PID] = true
		for i := range cands {
			c := &cands[i]
			if bound[c.id] == 0 && p.inBucket(c) {
				bound[c.id] = p.PID
				break
			}
		}
	}
	// Rule 4: processes and sessions paired in time order, the
	// earliest-started process first.
	rest := slices.DeleteFunc(slices.Clone(procs), func(p kimiProc) bool {
		return done[p.PID] || p.Cwd == "" || p.Started.IsZero()
	})
	slices.SortFunc(rest, func(a, b kimiProc) int {
		return cmp.Or(a.Started.Compare(b.Started), cmp.Compare(a.PID, b.PID))
	})
	for _, p := range rest {
		floor := p.Started.Add(-startSlack)
		var best *candidate
		var bestAt time.Time
		for i := range cands {
			c := &cands[i]
			if c.mtime().Before(floor) {
				break // written before the process started: so was everything after it
			}
			if bound[c.id] != 0 || !p.inBucket(c) {
				continue
			}
			at := created(c)
			if at.IsZero() || at.Before(floor) {
				continue
			}
			if best == nil || at.Before(bestAt) {
				best, bestAt = c, at
			}
		}
		if best != nil {
			bound[best.id] = p.PID
		}
	}
	return bound
}
