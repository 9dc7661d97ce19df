package catalog

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// freshness remembers, per runtime, what its last successful scan saw, so
// a sweep can skip the runtimes nothing has touched since:
// stat-ing 10,000 history files every five seconds costs more than
// everything else the board does. A runtime is rescanned when
//
//   - a file event arrived in one of its directories since its scan began
//     (or shortly before: see racyWindow);
//   - one of its directories is not watched (the watcher failed, hit its
//     limit, is disabled, or the directory is new), so events may be lost;
//   - its agent processes changed (a process start or exit changes
//     liveness, and Claude's live registry outlives its processes);
//   - the sessions it must keep changed, or one of them was not in its
//     last scan (for up to keepMissingFor: a session whose agent runs but
//     has not written it yet, or writes it in a directory created after
//     the watches were set, such as a new Kimi session's folder);
//   - its last scan failed, or never happened;
//   - fullEvery passed since its last scan: the backstop for what no event
//     reports (a history file an agent appends to in a directory only the
//     sweep covers, such as an old Kimi or Cursor session's own folder).
//
// A catalog without a watcher or without Options.ProcessFingerprint has
// nothing to trust, and every sweep scans everything, as Rescan does.
type freshness struct {
	mu      sync.Mutex
	now     func() time.Time
	racy    time.Duration
	every   time.Duration
	rts     []runtimeFresh
	trusted bool // a watcher runs: events can be relied on
}

type runtimeFresh struct {
	gen       uint64    // bumped by every event for the runtime
	lastEvent time.Time // when gen was last bumped
	covered   bool      // every directory the runtime asked to watch is watched

	scanned  bool      // a scan succeeded; the fields below describe it
	seenGen  uint64    // gen when that scan began
	at       time.Time // when it began
	procs    uint64    // process fingerprint it saw
	procsOK  bool      // the fingerprint was known
	keep     string    // keep list it was given
	lastFail bool      // the last scan failed
	// missingSince is when a scan first missed a session of its keep
	// list (zero: none missing).
	missingSince time.Time
}

// keepMissingFor bounds how long a runtime is rescanned every sweep for a
// running session its history does not list: after that, the fullEvery
// backstop (a session that is never written, such as a hook-only one,
// costs a scan a sweep for no longer than this).
const keepMissingFor = 2 * time.Minute

// racyWindow: a change reported this shortly before a scan began may not
// have been visible to it. SQLite appends a commit to the -wal file before
// readers can see it (the shared index is updated after the write that
// raised the event), so a scan right after the event can miss the commit
// whose event it consumed: git's "racily clean" index entry.
const racyWindow = time.Second

// defaultFullSweep is how often every runtime is scanned whatever the
// events say.
const defaultFullSweep = time.Minute

func newFreshness(n int, every time.Duration, now func() time.Time) *freshness {
	return &freshness{now: now, racy: racyWindow, every: every, rts: make([]runtimeFresh, n)}
}

// touch records a file event for runtime i.
func (f *freshness) touch(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rts[i].gen++
	f.rts[i].lastEvent = f.now()
}

// stale makes runtime i due without dating an event: a directory of its
// was just watched, and what was written there before raised no event.
func (f *freshness) stale(i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rts[i].gen++
}

// touchAll records events for every runtime: the watcher overflowed or
// reported an event for a path no runtime owns.
func (f *freshness) touchAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	for i := range f.rts {
		f.rts[i].gen++
		f.rts[i].lastEvent = now
	}
}

// watching records whether a watcher runs and which runtimes have every
// directory watched.
func (f *freshness) watching(trusted bool, covered []bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.trusted = trusted
	for i := range f.rts {
		f.rts[i].covered = trusted && i < len(covered) && covered[i]
	}
}

// scanMark is what a scan of one runtime saw as it began.
type scanMark struct {
	gen     uint64
	at      time.Time
	procs   uint64
	procsOK bool
	keep    string
}

// due reports which runtimes a sweep must scan, given the process
// fingerprints and keep lists now, and the marks to record once each
// scan is done.
func (f *freshness) due(procs map[string]uint64, procsOK bool, runtimes []string, keeps []string) ([]bool, []scanMark) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	due := make([]bool, len(f.rts))
	marks := make([]scanMark, len(f.rts))
	for i := range f.rts {
		r := &f.rts[i]
		m := scanMark{gen: r.gen, at: now, procs: procs[runtimes[i]], procsOK: procsOK, keep: keeps[i]}
		marks[i] = m
		due[i] = !r.scanned || r.lastFail || !r.covered || !f.trusted ||
			r.seenGen != r.gen ||
			!r.procsOK || !procsOK || r.procs != m.procs ||
			r.keep != m.keep ||
			!r.missingSince.IsZero() && now.Sub(r.missingSince) < keepMissingFor ||
			now.Sub(r.at) >= f.every
	}
	return due, marks
}

// mark records runtime i's scan, begun with m: ok is whether it succeeded,
// missing whether a session of its keep list was not in it.
// An event shortly before the scan began keeps the runtime due (racyWindow).
func (f *freshness) mark(i int, m scanMark, ok, missing bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := &f.rts[i]
	if !ok {
		r.lastFail = true
		return
	}
	switch {
	case !missing:
		r.missingSince = time.Time{}
	case r.missingSince.IsZero() || r.keep != m.keep:
		r.missingSince = m.at // a new keep list: its sessions get the full time
	}
	seen := m.gen
	if !r.lastEvent.IsZero() && m.at.Sub(r.lastEvent) < f.racy {
		seen-- // not proven seen: the next sweep looks again
	}
	r.scanned, r.lastFail = true, false
	r.seenGen, r.at, r.procs, r.procsOK, r.keep = seen, m.at, m.procs, m.procsOK, m.keep
}

// keepKey is a keep list in a comparable form, order ignored.
func keepKey(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	s := slices.Clone(ids)
	slices.Sort(s)
	return strings.Join(s, "\x00")
}

// processFingerprints asks Options.ProcessFingerprint; ok is false without
// one or when it fails, which makes every runtime due.
func (c *Catalog) processFingerprints(ctx context.Context) (map[string]uint64, bool) {
	if c.opts.ProcessFingerprint == nil {
		return nil, false
	}
	fp, err := c.opts.ProcessFingerprint(ctx)
	if err != nil {
		return nil, false
	}
	return fp, true
}
