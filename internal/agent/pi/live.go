package pi

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"paddock/internal/procscan"
)

// Pi's liveness: Pi sets process.title, so /proc shows
// "pi" with its arguments overwritten (AgentProcess.ArgsHidden), and it
// opens its session file only to append, so no file is ever held open.
// Neither the command line nor open files can say which session a plain
// `pi` in some terminal runs, and guessing by cwd, mtime or "newest file
// in the folder" binds the wrong session, so nothing is guessed. A
// process is bound only by positive evidence, in this order:
//
//  1. the session that the live-state layer knows its hosted terminal
//     (PADDOCK_TERMINAL_ID) runs: Options.TerminalSession;
//  2. PADDOCK_SESSION_ID from its environment: a header id or a session
//     file path;
//  3. --session on its command line, when Pi did not hide it: a file
//     path (relative to the process's cwd), a header id, or an id prefix
//     that names exactly one session file.
//
// Only interactive processes count: `pi -p`, `--mode json|rpc` and the
// package commands are not a session someone works in.

type claimKind uint8

const (
	claimID     claimKind = iota + 1 // value is a header id
	claimPath                        // value is an absolute, clean file path
	claimPrefix                      // value is a prefix of a header id (argv only)
)

// claim is one process's evidence for the session it runs.
type claim struct {
	pid   int
	kind  claimKind
	value string
}

// claims reads the process snapshot and turns every interactive Pi
// process's evidence into a claim, best evidence first. A failed snapshot
// is no evidence (and is logged once): sessions show as not live rather
// than disappear.
func (s *Scanner) claims(ctx context.Context) (out []claim, ok bool) {
	if s.procs == nil {
		return nil, true
	}
	procs, err := s.procs(ctx)
	if err != nil {
		s.problems.Error("processes", "cannot read the process table for Pi liveness", "err", err)
		return nil, false
	}
	s.problems.Forget("processes")
	for _, p := range procs {
		if p.Runtime != runtimeName || !p.Interactive || p.PID <= 0 {
			continue
		}
		if c, ok := s.claimOf(p); ok {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b claim) int { return cmp.Compare(a.pid, b.pid) })
	return out, true
}

func (s *Scanner) claimOf(p procscan.AgentProcess) (claim, bool) {
	if s.termSession != nil && p.TerminalID != "" {
		if v := s.termSession(p.TerminalID); v != "" {
			return exactClaim(p.PID, v, p.Cwd)
		}
	}
	if p.SessionID != "" {
		return exactClaim(p.PID, p.SessionID, p.Cwd)
	}
	if p.ArgSessionID != "" && !p.ArgsHidden {
		c, ok := exactClaim(p.PID, p.ArgSessionID, p.Cwd)
		if ok && c.kind == claimID {
			c.kind = claimPrefix // Pi's --session takes a partial id too
		}
		return c, ok
	}
	return claim{}, false
}

// exactClaim reads v the way Pi reads --session: path-like (a separator or
// a .jsonl suffix) is a file, anything else an id.
func exactClaim(pid int, v, cwd string) (claim, bool) {
	if strings.ContainsAny(v, `/\`) || strings.HasSuffix(v, ".jsonl") {
		if !filepath.IsAbs(v) {
			if cwd == "" {
				return claim{}, false // relative to a directory we cannot see
			}
			v = filepath.Join(cwd, v)
		}
		return claim{pid: pid, kind: claimPath, value: filepath.Clean(v)}, true
	}
	if !validID(v) {
		return claim{}, false
	}
	return claim{pid: pid, kind: claimID, value: v}, true
}

// resolvePrefixes turns each id-prefix claim into a path claim on the one
// file whose name carries a matching id. When no file or more than one
// does, only a session whose header id is exactly the value can match: a
// prefix that fits several sessions proves nothing (UUIDv7 prefixes are
// timestamps, shared by sessions started together).
func resolvePrefixes(claims []claim, cands []candidate) []claim {
	out := claims[:0:0]
	for _, c := range claims {
		if c.kind != claimPrefix {
			out = append(out, c)
			continue
		}
		match := ""
		n := 0
		for _, cd := range cands {
			if strings.HasPrefix(cd.nameID, c.value) {
				match = cd.path
				n++
			}
		}
		if n == 1 {
			out = append(out, claim{pid: c.pid, kind: claimPath, value: match})
		} else {
			out = append(out, claim{pid: c.pid, kind: claimID, value: c.value})
		}
	}
	return out
}

// pidFor returns the process bound to the session with this header id in
// this file, if any: the first claim (lowest pid) that names it.
func pidFor(claims []claim, id, path string) (int, bool) {
	for _, c := range claims {
		if c.kind == claimID && c.value == id || c.kind == claimPath && c.value == path {
			return c.pid, true
		}
	}
	return 0, false
}
