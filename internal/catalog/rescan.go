package catalog

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"paddock/internal/session"
)

// scanResult is one runtime's answer to one rescan; skipped when the
// sweep found nothing that could have changed it.
type scanResult struct {
	infos    []session.Info
	err      error
	problems []session.SourceProblem // what the scan could not read (problemReporter)
	skipped  bool
	mark     scanMark // what the scan began with, recorded once it is applied
	// missing: a session the runtime must keep (one running now) is not
	// in infos yet — its agent has not written it, or wrote it where no
	// watch reports it (see freshness).
	missing bool
}

// Rescan scans every runtime now, updates the list and publishes one Change
// naming the sessions that were added, changed or removed (none when nothing
// differs). It returns when that is done, or early when ctx ends — a rescan
// cut short by ctx changes nothing. Rescans never overlap: a second caller
// waits for the first.
func (c *Catalog) Rescan(ctx context.Context) {
	c.refresh(ctx, true, c.opts.Limit)
	if ctx.Err() == nil {
		c.markComplete()
	}
}

// Sweep is Rescan for the runtimes something may have changed since their
// last scan (see freshness): a file event in their directories, a change
// of their agent processes or kept sessions, a directory not watched, or
// a minute gone by. With nothing changed it reads nothing but the process
// table. Run sweeps after file events and every SweepInterval.
func (c *Catalog) Sweep(ctx context.Context) { c.refresh(ctx, false, c.opts.Limit) }

// firstLook is Run's first scan when the list is long: the newest
// FirstLook sessions of each runtime, so the board has its first page
// at once. It reports whether it ran.
func (c *Catalog) firstLook(ctx context.Context) bool {
	n := c.opts.FirstLook
	if n <= 0 || (c.opts.Limit > 0 && c.opts.Limit <= n) {
		return false
	}
	c.refresh(ctx, true, n)
	return true
}

// refresh is Rescan (all) or Sweep, listing up to limit sessions per
// runtime; it reports whether any runtime was scanned.
func (c *Catalog) refresh(ctx context.Context, all bool, limit int) (scanned bool) {
	select {
	case c.scanSem <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	defer func() { <-c.scanSem }()

	results := c.scanAll(ctx, all, limit)
	if ctx.Err() != nil {
		// Runtimes cut short would look failed (or, on the first scan,
		// empty); better to apply nothing and leave Loaded false — and
		// record nothing as seen, so the next sweep scans them again.
		return false
	}
	for i, r := range results {
		if !r.skipped {
			scanned = true
			c.fresh.mark(i, r.mark, r.err == nil, r.missing)
		}
	}
	errsChanged := c.logErrors(results)
	if c.noteScanProblems(results) {
		errsChanged = true
	}
	change := c.apply(results)
	if errsChanged {
		// The board shows which runtimes fail and what cannot be read:
		// it must re-read.
		change.Full = true
	}
	first := !c.Loaded()
	c.markLoaded()
	if first {
		// The first scan always reports, even when it found nothing, so a
		// board showing its loading state learns it may now say "no sessions".
		change.Full = true
	}
	if first || errsChanged || len(change.Updated) > 0 || len(change.Removed) > 0 {
		c.publish(change)
	}
	return scanned
}

// scanAll runs the scanners that are due (all of them when all is set)
// concurrently — their disk I/O overlaps — and waits for
// them. No lock is held meanwhile.
func (c *Catalog) scanAll(ctx context.Context, all bool, limit int) []scanResult {
	names := make([]string, len(c.scanners))
	keeps := make([][]string, len(c.scanners))
	keyed := make([]string, len(c.scanners))
	for i, s := range c.scanners {
		names[i] = s.Runtime()
		keeps[i] = c.keep(names[i])
		keyed[i] = keepKey(keeps[i])
	}
	procs, procsOK := c.processFingerprints(ctx)
	due, marks := c.fresh.due(procs, procsOK, names, keyed)

	results := make([]scanResult, len(c.scanners))
	var wg sync.WaitGroup
	for i, s := range c.scanners {
		if !all && !due[i] {
			results[i].skipped = true
			continue
		}
		wg.Go(func() {
			sctx, cancel := context.WithTimeout(ctx, c.opts.ScanTimeout)
			defer cancel()
			results[i] = c.scanOne(sctx, s, limit, keeps[i])
			results[i].mark = marks[i]
		})
	}
	wg.Wait()
	return results
}

// scanOne turns a panic into an error: one runtime choking on an odd history
// file must not take the dashboard down with it.
func (c *Catalog) scanOne(ctx context.Context, s Scanner, limit int, keep []string) (r scanResult) {
	defer func() {
		if p := recover(); p != nil {
			r = scanResult{err: fmt.Errorf("scanner panicked: %v", p)}
		}
	}()
	infos, err := s.Scan(ctx, limit, keep)
	r = scanResult{infos: infos, err: err}
	if pr, ok := s.(problemReporter); ok && err == nil {
		r.problems = pr.Problems()
	}
	if len(keep) > 0 {
		listed := make(map[string]bool, len(infos))
		for _, in := range infos {
			listed[in.ID] = true
		}
		for _, id := range keep {
			r.missing = r.missing || !listed[id]
		}
	}
	return r
}

// keep returns the IDs a runtime must list even past the limit: what
// Options.Keep names.
func (c *Catalog) keep(runtime string) []string {
	if c.opts.Keep == nil {
		return nil
	}
	return c.opts.Keep(runtime)
}

// logErrors logs a runtime's Scan error once per distinct message: the sweep
// retries every few seconds and the same failure should not flood the log.
// Recovery is logged too, so the log shows when the runtime's list is fresh
// again. It reports whether the set of failing runtimes or their messages
// changed, and keeps them for Errors.
func (c *Catalog) logErrors(results []scanResult) (changed bool) {
	for i, r := range results {
		rt := c.scanners[i].Runtime()
		switch {
		case r.skipped:
			// Nothing was read: its last state stands.
		case r.err != nil:
			msg := r.err.Error()
			if c.lastErr[rt] != msg {
				c.lastErr[rt] = msg
				changed = true
				c.log.Warn("scan failed; keeping previous result",
					slog.String("runtime", rt), slog.Any("err", r.err))
			}
		case c.lastErr[rt] != "":
			delete(c.lastErr, rt)
			changed = true
			c.log.Info("scan recovered", slog.String("runtime", rt))
		}
	}
	if changed {
		errs := make([]RuntimeError, 0, len(c.lastErr))
		for rt, msg := range c.lastErr {
			errs = append(errs, RuntimeError{Runtime: rt, Message: msg})
		}
		slices.SortFunc(errs, func(a, b RuntimeError) int { return cmp.Compare(a.Runtime, b.Runtime) })
		c.mu.Lock()
		c.errs = errs
		c.mu.Unlock()
	}
	return changed
}

// RuntimeError is a runtime whose last scan failed: its sessions are the
// last good list, perhaps stale.
type RuntimeError struct {
	Runtime string
	Message string
}

// Errors lists the runtimes whose last scan failed, by runtime.
func (c *Catalog) Errors() []RuntimeError {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.errs)
}

// apply merges successful results into the list and returns what changed.
// A failed runtime keeps its previous good result: an empty list would tell
// the user their sessions are gone.
func (c *Catalog) apply(results []scanResult) Change {
	var ch Change
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, r := range results {
		if r.err != nil || r.skipped {
			continue
		}
		rt := c.scanners[i].Runtime()
		next := make(map[string]session.Info, len(r.infos))
		for _, info := range r.infos {
			if info.ID == "" {
				continue // unaddressable; nothing could link to it
			}
			// The scanner's own name wins so one runtime's result can never
			// overwrite another's keys.
			info.Runtime = rt
			if _, dup := next[info.ID]; dup {
				continue // scanners list newest first: keep the first
			}
			next[info.ID] = info
		}
		prev := c.byRuntime[rt]
		for id, info := range next {
			if old, ok := prev[id]; !ok || !sameInfo(old, info) {
				ch.Updated = append(ch.Updated, info.Key())
			}
		}
		for id := range prev {
			if _, ok := next[id]; !ok {
				ch.Removed = append(ch.Removed, session.Key{Runtime: rt, ID: id})
			}
		}
		c.byRuntime[rt] = next
	}
	if len(ch.Updated) > 0 || len(ch.Removed) > 0 {
		c.rebuildSorted()
	}
	// Map order is random; sorted keys make Changes repeatable.
	slices.SortFunc(ch.Updated, compareKeys)
	slices.SortFunc(ch.Removed, compareKeys)
	return ch
}

func compareKeys(a, b session.Key) int {
	if c := cmp.Compare(a.Runtime, b.Runtime); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// sameInfo is field-wise equality, with times compared as instants: a
// scanner may produce the same moment with another location or without the
// monotonic reading, which == would call a change. Comparing the rest with ==
// also means a future non-comparable field in session.Info breaks the build
// here instead of silently being ignored.
func sameInfo(a, b session.Info) bool {
	if !a.Created.Equal(b.Created) || !a.Updated.Equal(b.Updated) {
		return false
	}
	a.Created, a.Updated = b.Created, b.Updated
	return a == b
}
