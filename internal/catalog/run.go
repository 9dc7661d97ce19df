package catalog

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"paddock/internal/session"
)

// Run loads the catalog and keeps it current until ctx is done: the first
// scan (all runtimes at once, each failure isolated), then a rescan shortly
// after any change in a watched directory and a sweep every SweepInterval.
// Start it on its own goroutine: the first scan can take a while and the
// board must not wait for it (Loaded and WaitLoaded say when it is done).
//
// Run returns nil once ctx is done, after every goroutine it started has
// ended; it returns an error only when it is already running.
func (c *Catalog) Run(ctx context.Context) error {
	if !c.running.CompareAndSwap(false, true) {
		return errors.New("catalog: Run is already running")
	}
	defer c.running.Store(false)

	ws := c.newWatchSet()
	defer ws.close()

	// Watch before the first scan, so a change made while it runs is not
	// lost; the kernel queues the events until the loop below reads them.
	ws.sync(c.scanners)
	c.firstLook(ctx)
	c.Rescan(ctx)
	if ctx.Err() != nil {
		return nil
	}

	// A write to a file after a quiet spell is rescanned at once, then at
	// most once per Debounce while changes keep coming (each rescan reads
	// what came since the last). An agent streaming an answer writes many
	// times a second, and one rescan stats every session of its agent: a
	// rescan per write would cost too much, a timer reset by every write
	// would postpone the update until the agent stops, and waiting out a
	// window before the first rescan would delay every append by it. A
	// new file (or anything but a write) is gathered for one window
	// first: it is usually being written as it is created, and read at
	// once it would show as an empty session.
	window := time.NewTimer(time.Hour)
	window.Stop()
	inWindow, pending := false, false
	defer window.Stop()
	var rescan func()
	open := func() {
		inWindow = true
		window.Reset(c.opts.Debounce)
	}
	arm := func(now bool) {
		switch {
		case inWindow:
			pending = true
		case now:
			rescan()
			open()
		default:
			pending = true
			open()
		}
	}

	sweep := time.NewTicker(c.opts.SweepInterval)
	defer sweep.Stop()

	rescan = func() {
		// Only a scan can change what the scanners ask to watch (a new
		// directory's creation is itself an event, or is found by the
		// minute's full sweep).
		if !c.refresh(ctx, false, c.opts.Limit) {
			return
		}
		// A directory that just appeared may already hold changes written
		// before its watch existed: sync marks its runtime due, and one
		// more (cheap) sweep picks them up.
		if ws.sync(c.scanners) {
			pending = true
			if !inWindow {
				open()
			}
		}
	}
	// Directories that appeared during the first scan: one more sweep
	// now, not a window that would hold back the first changes.
	if ws.sync(c.scanners) {
		rescan()
	}

	var lastWatchErr string
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-ws.events():
			if !ok {
				ws.stop() // watcher gone: the sweep carries on alone
				continue
			}
			if ev.Op == fsnotify.Chmod {
				continue // attribute noise; content changes come as Write/Create/Remove/Rename
			}
			ws.route(ev.Name)
			arm(ev.Op.Has(fsnotify.Write) && !ev.Op.Has(fsnotify.Create))
		case err, ok := <-ws.errors():
			if !ok {
				ws.stop()
				continue
			}
			// Overflow or any other watcher error means events were lost;
			// every rescan is a full one, so a rescan recovers.
			level := slog.LevelWarn
			if err.Error() == lastWatchErr {
				level = slog.LevelDebug
			}
			lastWatchErr = err.Error()
			c.log.Log(ctx, level, "file watcher error; rescanning",
				slog.Bool("overflow", errors.Is(err, fsnotify.ErrEventOverflow)), slog.Any("err", err))
			c.fresh.touchAll()
			arm(false)
		case <-window.C:
			inWindow = false
			if pending {
				pending = false
				arm(true)
			}
		case <-sweep.C:
			rescan()
		}
	}
}

// watchSet is Run's fsnotify watcher and its directory bookkeeping; it is
// used only on Run's goroutine. A nil watcher means "sweep only".
type watchSet struct {
	c      *Catalog
	w      *fsnotify.Watcher
	failed map[string]watchFailure // dir → its last Add error, logged once, so retries stay quiet
	owners map[string][]int        // watched dir → the scanners (by index) that asked for it
	// unavailable: there is no watcher (it could not be made: err, or it
	// stopped).
	unavailable bool
	err         error

	// resolved caches each asked-for directory's real path (symlinks
	// followed) for a minute: inotify keeps one watch per directory under
	// the first name it was given, so two names for one directory must be
	// one entry, or the second would look unwatched forever.
	resolved   map[string]string
	resolvedAt time.Time
}

// watchFailure is a directory the watcher could not watch: the error,
// and the scanners (by index) that asked for it.
type watchFailure struct {
	err    error
	owners []int
}

func (c *Catalog) newWatchSet() *watchSet {
	ws := &watchSet{c: c, failed: make(map[string]watchFailure)}
	if c.opts.DisableWatch {
		return ws
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		// Typically the inotify instance limit; the sweep still keeps the
		// board current, only slower.
		c.log.Warn("file watching unavailable; relying on the periodic sweep",
			slog.Duration("sweep", c.opts.SweepInterval), slog.Any("err", err))
		ws.unavailable, ws.err = true, err
		return ws
	}
	ws.w = w
	return ws
}

// events and errors return nil channels (never ready) without a watcher.
func (ws *watchSet) events() <-chan fsnotify.Event {
	if ws.w == nil {
		return nil
	}
	return ws.w.Events
}

func (ws *watchSet) errors() <-chan error {
	if ws.w == nil {
		return nil
	}
	return ws.w.Errors
}

func (ws *watchSet) stop() {
	ws.close()
	ws.w = nil
	ws.owners = nil
	ws.unavailable, ws.err = true, nil
	ws.c.fresh.watching(false, nil)
	ws.publishProblems()
}

// publishProblems hands the catalog what cannot be watched, and tells
// subscribers to re-read when that changed (the board names them).
func (ws *watchSet) publishProblems() {
	c := ws.c
	var probs []session.SourceProblem
	if ws.unavailable {
		probs = append(probs, watchUnavailable(ws.err, c.opts.SweepInterval))
	} else {
		names := make([]string, len(c.scanners))
		for i, s := range c.scanners {
			names[i] = s.Runtime()
		}
		probs = watchProblems(ws.failed, names, c.opts.SweepInterval)
	}
	if c.setWatchProblems(probs) && c.Loaded() {
		c.publish(Change{Full: true})
	}
}

// realPath is dir with symlinks followed (dir itself when that fails: a
// directory that does not exist yet is simply not watched).
func (ws *watchSet) realPath(dir string) string {
	if r, ok := ws.resolved[dir]; ok {
		return r
	}
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return dir
	}
	ws.resolved[dir] = r
	return r
}

// route records an event for the runtimes whose directory holds path (or
// is path). A path no runtime owns cannot be placed: all are told.
func (ws *watchSet) route(path string) {
	path = filepath.Clean(path)
	idx := ws.owners[filepath.Dir(path)]
	idx = append(slices.Clone(idx), ws.owners[path]...)
	if len(idx) == 0 {
		ws.c.fresh.touchAll()
		return
	}
	for _, i := range idx {
		ws.c.fresh.touch(i)
	}
}

func (ws *watchSet) close() {
	if ws.w != nil {
		// Close waits for fsnotify's reader goroutine to end.
		_ = ws.w.Close()
	}
}

// sync makes the watched set match what the scanners ask for now: it adds
// new directories (and ones that did not exist before — a runtime installed
// after paddock started), drops ones no longer asked for, and reports
// whether it added any. fsnotify is not recursive, so each directory is
// watched on its own. The watcher's own list is the truth: inotify drops the
// watch of a deleted directory, and a recreated one is then added again.
func (ws *watchSet) sync(scanners []Scanner) (added bool) {
	if ws.w == nil {
		ws.c.fresh.watching(false, nil)
		ws.publishProblems()
		return false
	}
	if ws.resolved == nil || time.Since(ws.resolvedAt) >= time.Minute {
		ws.resolved, ws.resolvedAt = make(map[string]string), time.Now()
	}
	want := make(map[string]bool)
	owners := make(map[string][]int)
	for i, s := range scanners {
		for _, d := range s.WatchDirs() {
			if d != "" {
				d = ws.realPath(filepath.Clean(d))
				want[d] = true
				if !slices.Contains(owners[d], i) {
					owners[d] = append(owners[d], i)
				}
			}
		}
	}
	// A runtime is covered when every directory it asked for is watched:
	// only then can a sweep trust that no event means no change.
	covered := make([]bool, len(scanners))
	for i := range covered {
		covered[i] = true
	}
	defer func() {
		ws.owners = owners
		ws.c.fresh.watching(true, covered)
		ws.publishProblems()
	}()
	have := make(map[string]bool)
	for _, d := range ws.w.WatchList() {
		have[d] = true
	}
	log := ws.c.log
	for d := range want {
		if have[d] {
			continue
		}
		if err := ws.w.Add(d); err != nil {
			for _, i := range owners[d] {
				covered[i] = false
			}
			// A missing directory is normal (runtime not installed or not
			// used yet, or gone since it was asked for): no problem to
			// name. Anything else, such as the inotify watch limit, is
			// worth a warning and a line on the board.
			missing := errors.Is(err, fs.ErrNotExist)
			if old, seen := ws.failed[d]; !seen || old.err.Error() != err.Error() {
				level := slog.LevelWarn
				if missing {
					level = slog.LevelDebug
				}
				log.Log(context.Background(), level, "cannot watch directory; the sweep covers it",
					slog.String("dir", d), slog.Any("err", err))
			}
			ws.failed[d] = watchFailure{err: err, owners: owners[d]}
			continue
		}
		delete(ws.failed, d)
		added = true
		if ws.c.Loaded() {
			// Whatever was written in it before now raised no event.
			for _, i := range owners[d] {
				ws.c.fresh.stale(i)
			}
		}
		log.Debug("watching directory", slog.String("dir", d))
		if ws.c.watchAdded != nil {
			ws.c.watchAdded(d)
		}
	}
	for d := range have {
		if !want[d] {
			_ = ws.w.Remove(d)
		}
	}
	for d := range ws.failed {
		if !want[d] {
			delete(ws.failed, d)
		}
	}
	return added
}
