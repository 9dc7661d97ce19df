package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"syscall"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// problemReporter is a Scanner that names what its last Scan could not
// read while it listed the rest: a directory it cannot list, a database
// it cannot copy or open. Each Reason completes a sentence about Source
// in words safe to show.
type problemReporter interface {
	Problems() []session.SourceProblem
}

// Problems are the parts of the agents' histories that cannot be read or
// watched just now, by runtime: a runtime whose last scan failed (its
// sessions are the last list read), what each scanner's last scan could
// not read, and the directories the file watcher cannot watch (changes
// there show at the next sweep). The words are safe to show: never an
// error's own text.
func (c *Catalog) Problems() []session.SourceProblem {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Concat(c.scanProblems, c.watchProblems)
}

// noteScanProblems records, for the runtimes scanned, the problems their
// scanners reported and why a failed scan failed, and reports whether
// the catalog's list of scan problems changed. The caller holds scanSem.
func (c *Catalog) noteScanProblems(results []scanResult) (changed bool) {
	for i, r := range results {
		rt := c.scanners[i].Runtime()
		switch {
		case r.skipped:
		case r.err != nil:
			c.failReason[rt] = history.Reason(r.err)
		default:
			delete(c.failReason, rt)
			c.reported[rt] = r.problems
		}
	}
	var probs []session.SourceProblem
	for _, s := range c.scanners {
		rt := s.Runtime()
		if reason, failed := c.failReason[rt]; failed {
			probs = append(probs, session.SourceProblem{Runtime: rt,
				Reason: "its history cannot be read (" + reason + "); showing the sessions read before"})
		}
		for _, p := range c.reported[rt] {
			p.Runtime = rt
			probs = append(probs, p)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Equal(probs, c.scanProblems) {
		return false
	}
	c.scanProblems = probs
	return true
}

// setWatchProblems records the watcher's problems and reports whether
// they changed. Run's goroutine calls it.
func (c *Catalog) setWatchProblems(probs []session.SourceProblem) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if slices.Equal(probs, c.watchProblems) {
		return false
	}
	c.watchProblems = probs
	return true
}

// watchProblems turns the directories that could not be watched (by
// directory: the error and the runtimes that asked) into problems: one
// per runtime and reason, naming the directory when it is the only one.
func watchProblems(failed map[string]watchFailure, names []string, sweep time.Duration) []session.SourceProblem {
	type group struct {
		runtime, reason string
	}
	dirs := make(map[group][]string)
	for dir, f := range failed {
		if errors.Is(f.err, fs.ErrNotExist) {
			continue // not there (yet): nothing to watch, nothing wrong
		}
		for _, i := range f.owners {
			g := group{names[i], watchReason(f.err)}
			dirs[g] = append(dirs[g], dir)
		}
	}
	later := fmt.Sprintf("; changes there show within %s", sweep.Round(time.Second))
	var out []session.SourceProblem
	for g, ds := range dirs {
		p := session.SourceProblem{Runtime: g.runtime}
		if len(ds) == 1 {
			p.Source, p.Reason = ds[0], "cannot be watched: "+g.reason+later
		} else {
			p.Reason = fmt.Sprintf("%d of its directories cannot be watched: %s%s", len(ds), g.reason, later)
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b session.SourceProblem) int {
		return cmp.Or(cmp.Compare(a.Runtime, b.Runtime), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Reason, b.Reason))
	})
	return out
}

// watchReason is why a directory cannot be watched, in a user's words.
// inotify says "no space left on device" when its watch limit is
// reached, which would send the user to look at their disk.
func watchReason(err error) string {
	if errors.Is(err, syscall.ENOSPC) {
		return "the system's limit of watched directories is reached"
	}
	return history.Reason(err)
}

// watchUnavailable is the problem of a catalog without a file watcher
// (it could not be made, or it stopped): every change shows at a sweep.
func watchUnavailable(err error, sweep time.Duration) session.SourceProblem {
	reason := "file watching stopped"
	if err != nil {
		reason = "file watching is unavailable (" + watchReason(err) + ")"
	}
	return session.SourceProblem{Reason: fmt.Sprintf("%s; the board updates every %s", reason, sweep.Round(time.Second))}
}
