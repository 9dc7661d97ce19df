// Package catalog is paddock's in-memory list of every agent session: it asks
// each runtime's Scanner for its sessions, keeps the last good answer per
// runtime, rescans when the agents' history directories change (fsnotify,
// debounced) and on a periodic sweep, and tells subscribers which sessions
// changed so the live board can update within a second.
//
// It never reads or writes an agent's files itself beyond os.Stat (the
// scanners own the formats and are read-only), it never blocks a scan on a
// slow reader, and it owns every goroutine it starts: all of them end when
// Run's context is done.
package catalog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/broadcast"
	"paddock/internal/session"
)

// Scanner is what each runtime package (internal/agent/claude, ...) provides.
// Its methods may be called concurrently: Get and Messages run on request
// goroutines while a rescan is in progress.
type Scanner interface {
	// Runtime names the runtime ("claude", "codex", ...); it must be constant.
	Runtime() string
	// Scan lists the newest sessions, at most limit of them plus the ids in
	// keep (pinned sessions, and sessions running now, must survive the
	// limit).
	Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error)
	// Session finds one session even when it is too old for Scan's limit;
	// session.ErrNotFound when the runtime has no such session.
	Session(ctx context.Context, id string) (session.Info, error)
	// Conversation reads a session's full conversation: real human input
	// and readable answers only.
	Conversation(ctx context.Context, id string) ([]session.Message, error)
	// WatchDirs lists the directories whose changes may change Scan's answer.
	// The set may grow (a new project directory appears); the catalog asks
	// again after every rescan.
	WatchDirs() []string
}

// Options tune a Catalog. Zero values take the defaults noted.
type Options struct {
	Limit         int           // sessions per runtime; 0 lists every session
	Debounce      time.Duration // the least time between two rescans for file events (a change after a quiet spell is rescanned at once); default 100ms
	SweepInterval time.Duration // periodic sweep: a process exit is no file event; default 5s
	// FullSweepInterval: how often a sweep scans every runtime whatever
	// the file events and processes say; default 1m.
	FullSweepInterval time.Duration
	// ProcessFingerprint summarises each runtime's agent processes (what
	// liveness rests on), by runtime name: a sweep skips a runtime only
	// when its fingerprint, its files and its kept sessions are unchanged.
	// nil: every sweep scans every runtime.
	ProcessFingerprint func(ctx context.Context) (map[string]uint64, error)
	ScanTimeout        time.Duration // bound on one runtime's Scan, so one hung runtime cannot freeze the board; default 30s
	DisableWatch       bool          // rely on the sweep alone (tests; systems without inotify)
	// CacheDir keeps conversations on disk (derived data, safe to
	// delete); "" keeps them in memory only. CacheBytes bounds it
	// (default 256 MiB).
	CacheDir   string
	CacheBytes int64
	// FirstLook is how many sessions per runtime Run's first scan lists
	// before it lists them all (when Limit is larger, or 0): the board
	// shows its first page while the rest is read. Default 60 (a board
	// page); negative: one scan, the whole list.
	FirstLook int
	// Keep names the sessions of a runtime that must be listed even past
	// the limit (pinned ones, those running now); nil: none.
	Keep   func(runtime string) []string
	Logger *slog.Logger // default: discard
}

const (
	defaultFirstLook   = 60
	defaultDebounce    = 100 * time.Millisecond
	defaultSweep       = 5 * time.Second
	defaultScanTimeout = 30 * time.Second
)

// Catalog holds the merged session list. Create it with New, start it with
// Run; List, Get, Messages and Subscribe are safe for concurrent use.
type Catalog struct {
	opts     Options
	log      *slog.Logger
	scanners []Scanner
	byName   map[string]Scanner

	// scanSem (capacity 1) serialises rescans so two diffs never interleave
	// and Changes go out in scan order. A channel rather than a mutex so a
	// caller waiting for it can give up when its context ends.
	scanSem chan struct{}
	// lastErr is the last logged Scan error per runtime; touched only while
	// holding scanSem, so it needs no other lock. So are failReason (why
	// a runtime's last scan failed, in safe words) and reported (what its
	// scanner's last good scan could not read).
	lastErr    map[string]string
	failReason map[string]string
	reported   map[string][]session.SourceProblem

	mu        sync.RWMutex
	byRuntime map[string]map[string]session.Info // last good Scan result per runtime, by ID
	sorted    []entry                            // all of byRuntime, newest first
	all       []session.Info                     // sorted's infos, shared by All: replaced, never changed
	errs      []RuntimeError                     // runtimes whose last scan failed
	// scanProblems and watchProblems are what Problems returns: replaced,
	// never changed.
	scanProblems, watchProblems []session.SourceProblem

	loaded     atomic.Bool
	loadedCh   chan struct{}
	loadedOnce sync.Once
	// complete: a scan has listed every session the options ask for (the
	// first look lists only the newest).
	completeCh   chan struct{}
	completeOnce sync.Once
	running      atomic.Bool

	changes *broadcast.Broadcaster[Change]
	fresh   *freshness

	conv *convCache
	disk *diskCache // nil without Options.CacheDir

	// watchAdded, when set (tests only), is told each directory the watcher
	// starts watching. It runs on Run's goroutine.
	watchAdded func(dir string)
}

// New returns a Catalog over the given scanners. It panics when two scanners
// share a runtime name or one has none: that is a wiring mistake, and
// silently dropping a runtime would hide its sessions.
func New(opts Options, scanners ...Scanner) *Catalog {
	if opts.Limit <= 0 {
		opts.Limit = -1 // the scanners' "every session"
	}
	if opts.FirstLook == 0 {
		opts.FirstLook = defaultFirstLook
	}
	if opts.Debounce <= 0 {
		opts.Debounce = defaultDebounce
	}
	if opts.SweepInterval <= 0 {
		opts.SweepInterval = defaultSweep
	}
	if opts.ScanTimeout <= 0 {
		opts.ScanTimeout = defaultScanTimeout
	}
	if opts.FullSweepInterval <= 0 {
		opts.FullSweepInterval = defaultFullSweep
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Catalog{
		opts:       opts,
		log:        log.With(slog.String("component", "catalog")),
		byName:     make(map[string]Scanner, len(scanners)),
		scanSem:    make(chan struct{}, 1),
		lastErr:    make(map[string]string),
		failReason: make(map[string]string),
		reported:   make(map[string][]session.SourceProblem),
		byRuntime:  make(map[string]map[string]session.Info),
		loadedCh:   make(chan struct{}),
		completeCh: make(chan struct{}),
		changes:    newBroadcaster(),
		conv:       newConvCache(conversationCacheSize),
	}
	if opts.CacheDir != "" {
		if opts.CacheBytes <= 0 {
			opts.CacheBytes = defaultDiskCacheBytes
		}
		d, err := newDiskCache(opts.CacheDir, opts.CacheBytes)
		if err != nil {
			c.log.Warn("conversations are cached in memory only", "dir", opts.CacheDir, "error", err)
		} else {
			c.disk = d
		}
	}
	for _, s := range scanners {
		name := s.Runtime()
		if name == "" {
			panic("catalog: scanner with an empty runtime name")
		}
		if _, dup := c.byName[name]; dup {
			panic(fmt.Sprintf("catalog: two scanners for runtime %q", name))
		}
		c.byName[name] = s
		c.scanners = append(c.scanners, s)
	}
	c.fresh = newFreshness(len(c.scanners), opts.FullSweepInterval, time.Now)
	return c
}

// Loaded reports whether the first scan has finished (even if some runtime
// failed). Until then the board must show a loading state, never "no
// sessions".
func (c *Catalog) Loaded() bool { return c.loaded.Load() }

// WaitLoaded blocks until the first scan has finished or ctx is done.
func (c *Catalog) WaitLoaded(ctx context.Context) error {
	select {
	case <-c.loadedCh:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WaitComplete blocks until a scan has listed every session (not only
// the first look's newest) or ctx is done.
func (c *Catalog) WaitComplete(ctx context.Context) error {
	select {
	case <-c.completeCh:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Catalog) markComplete() {
	c.completeOnce.Do(func() { close(c.completeCh) })
}

// WatchDirs are the agents' history directories, every scanner's: the
// places an agent keeps its own files.
func (c *Catalog) WatchDirs() []string {
	var out []string
	for _, s := range c.byName {
		out = append(out, s.WatchDirs()...)
	}
	return out
}

func (c *Catalog) markLoaded() {
	c.loadedOnce.Do(func() {
		c.loaded.Store(true)
		close(c.loadedCh)
	})
}

// Get returns one session: from the list when it is there, else from its
// runtime's scanner, so a bookmarked session too old for the list still
// opens. An unknown runtime or an empty ID is session.ErrNotFound.
func (c *Catalog) Get(ctx context.Context, k session.Key) (session.Info, error) {
	c.mu.RLock()
	info, ok := c.byRuntime[k.Runtime][k.ID]
	c.mu.RUnlock()
	if ok {
		return info, nil
	}
	s, ok := c.byName[k.Runtime]
	if !ok || k.ID == "" {
		return session.Info{}, session.ErrNotFound
	}
	info, err := s.Session(ctx, k.ID)
	if err != nil {
		return session.Info{}, err
	}
	// Same normalisation as a scan, so the key round-trips.
	info.Runtime = k.Runtime
	return info, nil
}
