// Package opencode lists OpenCode sessions and loads their conversations
// from OpenCode's own SQLite databases (<data dir>/opencode*.db: session,
// message and part tables), and binds running OpenCode TUIs to the sessions
// they show.
//
// It never opens OpenCode's databases with SQLite: it reads private copies
// of each database and its -wal (so rows still in the -wal are seen; see
// db.go), made with plain reads, so it never writes, locks or creates a
// file beside them, never checkpoints, and never signals OpenCode. A database that exists
// but cannot be read is an error, never an empty list, so the caller keeps
// its previous good result. The one change it makes is
// Delete, when the user asks, and only by running OpenCode's own `opencode
// session delete`.
package opencode

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/history"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

const runtimeName = "opencode"

// TimeFromDB is the TimeSource of every OpenCode session: its Updated is
// the database's session.time_updated, not a file mtime.
// It belongs beside session.TimeFromFile; it lives here until it moves.
const TimeFromDB = "db_time_updated"

// Options configure a Scanner. DefaultOptions fills the directories the way
// OpenCode resolves them; the zero value finds no sessions.
type Options struct {
	// DataDir is OpenCode's data directory; every opencode*.db in it is
	// read (opencode.db, and opencode-<channel>.db of other channels).
	DataDir string
	// ExtraDBs are more database files to read: where $OPENCODE_DB points.
	ExtraDBs []string
	// Processes lists the running agent CLIs (procscan.Matcher.Agents, or
	// the caller's shared snapshot of it); nil means no liveness. Only
	// Runtime "opencode" entries are used.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// KeepMissingCwd lists sessions whose working directory no longer
	// exists. By default they are dropped (they cannot be
	// resumed) unless a live process holds them.
	KeepMissingCwd bool
	// Snapshots holds the private copies the databases are read from;
	// nil: a copy for each read, removed after it.
	Snapshots *history.Snapshots
	// Bin is the opencode command Delete runs (`opencode session delete`);
	// "" finds "opencode" in $PATH.
	Bin    string
	Logger *slog.Logger // nil => discard
}

// DefaultOptions resolves OpenCode's data directory: $OPENCODE_DATA_DIR
// (the override other session readers use; OpenCode itself does not read
// it), else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode (OpenCode
// uses xdg-basedir, so this holds on Linux and macOS). $OPENCODE_DB, which
// OpenCode 1.18 reads as an absolute path or a name inside the data
// directory, is added to ExtraDBs. Processes is left nil: the caller shares
// one process snapshot among all scanners.
func DefaultOptions() Options {
	var o Options
	switch {
	case os.Getenv("OPENCODE_DATA_DIR") != "":
		o.DataDir = os.Getenv("OPENCODE_DATA_DIR")
	case os.Getenv("XDG_DATA_HOME") != "":
		o.DataDir = filepath.Join(os.Getenv("XDG_DATA_HOME"), "opencode")
	default:
		if home, err := os.UserHomeDir(); err == nil {
			o.DataDir = filepath.Join(home, ".local", "share", "opencode")
		}
	}
	if db := os.Getenv("OPENCODE_DB"); db != "" && db != ":memory:" {
		if !filepath.IsAbs(db) {
			db = filepath.Join(o.DataDir, db)
		}
		o.ExtraDBs = append(o.ExtraDBs, db)
	}
	return o
}

// Scanner reads OpenCode sessions. It is safe for concurrent use.
type Scanner struct {
	opts      Options
	home      string // for Project "~"
	snapshots *history.Snapshots

	mu       sync.Mutex
	last     *lastScan        // the last Scan that read every database
	goodDB   map[string]bool  // databases read successfully at least once
	problems *history.OnceLog // problems already logged, by key
	sources  history.Problems // databases the last scan could not read

	// settle is how long after its last change a database is trusted to
	// show everything its files' stat says (see Scan); tests shorten it.
	settle time.Duration
	now    func() time.Time

	// reads counts database reads by Scan (a test hook: an unchanged
	// signature must not read again).
	reads atomic.Int64
}

// defaultSettle covers the coarse mtimes of file systems (a kernel tick on
// Linux, whole seconds on some) and the moment between SQLite writing a
// commit's WAL frames and publishing them in the -shm index.
const defaultSettle = 2 * time.Second

// lastScan is a Scan result and the signature it was read under. Unlike
// the file-per-session runtimes, OpenCode has no per-file summaries to
// cache: every Scan that runs reads its databases whole (milliseconds
// for a few hundred sessions, against microseconds for a signature), and
// the catalog still runs Scan when nothing OpenCode lists has changed
// (its one-minute backstop, a directory it could not watch, process
// fingerprints it could not take, a write that changed no session), so
// this memo still pays for itself.
type lastScan struct {
	sig scanSig
	out []session.Info
}

// New returns a Scanner over opts.
func New(opts Options) *Scanner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	home, _ := os.UserHomeDir()
	return &Scanner{
		opts:      opts,
		home:      home,
		snapshots: cmp.Or(opts.Snapshots, history.NewSnapshots(history.SnapshotOptions{})),
		goodDB:    make(map[string]bool),
		problems:  history.NewOnceLog(log.With("runtime", runtimeName)),
		settle:    defaultSettle,
		now:       time.Now,
	}
}

// Runtime names the runtime: "opencode".
func (s *Scanner) Runtime() string { return runtimeName }

// Scan lists up to limit top-level, unarchived sessions that have a real
// prompt, newest time_updated first, plus the sessions named in keep and
// every session a live OpenCode TUI is bound to, whatever the limit. A
// negative limit lists every session. No data directory or no database is
// an empty list; a database that exists but cannot be read is an error
// (unless it never could be read and another database can).
//
// When neither the databases (file and -wal: size, mtime, inode) nor the
// OpenCode processes changed since the last Scan with the same limit and
// keep, that result is returned again (copied) without reading anything.
// A result read within a moment of the last write is not reused: SQLite
// appends a commit to the -wal before it makes it visible to readers, so a
// read right after the file changed can miss a commit whose file change
// it already saw (the "racy clean" case git's index has too).
func (s *Scanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	start := s.now()
	dbs, unreadable := s.listDatabases()
	procs, procErr := s.processes(ctx)
	sig := newScanSig(dbs, procs, procErr, limit, keep)

	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last != nil && last.sig.equal(sig) && len(unreadable) == 0 {
		return slices.Clone(last.out), nil // it read every database: no problem to name
	}

	s.sources.Begin()
	for path, err := range unreadable {
		s.problems.Log(slog.LevelError, "read:"+path, "cannot read OpenCode database", "path", path, "err", err)
		s.sources.Add(path, "cannot be read: "+history.Reason(err))
	}
	out, complete, err := s.scan(ctx, dbs, procs, limit, keep)
	if err != nil {
		return nil, err
	}
	s.sources.End()
	complete = complete && len(unreadable) == 0
	s.mu.Lock()
	s.last = nil
	if complete && !sig.changedSince(start.Add(-s.settle)) {
		s.last = &lastScan{sig: sig, out: slices.Clone(out)}
	}
	s.mu.Unlock()
	return out, nil
}

// scan reads every database. complete is false when one of them could not
// be read (and never could): the result must not be cached then.
func (s *Scanner) scan(ctx context.Context, dbs []dbFile, procs []proc, limit int, keep []string) (out []session.Info, complete bool, err error) {
	p := newPass(s, procs)
	defer p.close()
	complete = true
	var failed []error
	for _, db := range dbs {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		s.reads.Add(1)
		if err := p.read(ctx, db, limit, keep); err != nil {
			if ctx.Err() != nil {
				return nil, false, ctx.Err()
			}
			s.mu.Lock()
			wasGood := s.goodDB[db.path]
			s.mu.Unlock()
			if wasGood {
				// A database that could be read before and cannot now:
				// transient (a writer mid-migration, a lock). Fail the
				// scan so the caller keeps its previous result.
				return nil, false, err
			}
			s.problems.Log(slog.LevelError, "read:"+db.path, "cannot read OpenCode database", "path", db.path, "err", err)
			s.sources.Add(db.path, dbProblem(err))
			failed = append(failed, err)
			complete = false
			continue
		}
		s.mu.Lock()
		s.goodDB[db.path] = true
		s.mu.Unlock()
	}
	if len(failed) > 0 && len(failed) == len(dbs) {
		return nil, false, errors.Join(failed...)
	}
	if err := p.bindLive(ctx); err != nil {
		return nil, false, err
	}
	return p.result(limit), complete, nil
}

// Problems are the databases the last Scan could not read while it read
// others: their sessions are missing from its list.
func (s *Scanner) Problems() []session.SourceProblem { return s.sources.Last() }

// dbProblem says why a database could not be read, completing
// "<database> …".
func dbProblem(err error) string {
	if errors.As(err, new(errSchema)) {
		return "cannot be read: its tables are not the ones OpenCode keeps"
	}
	return "cannot be read: " + history.Reason(err)
}

// Session returns one session's Info by id, with its liveness
// (session.ErrNotFound if no database has it as a listable session).
func (s *Scanner) Session(ctx context.Context, id string) (session.Info, error) {
	if !validID(id) {
		return session.Info{}, session.ErrNotFound
	}
	procs, _ := s.processes(ctx)
	p := newPass(s, procs)
	defer p.close()
	var errs []error
	for _, db := range s.databases() {
		if err := p.read(ctx, db, 0, []string{id}); err != nil {
			errs = append(errs, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return session.Info{}, err
	}
	if err := p.bindLive(ctx); err != nil {
		return session.Info{}, err
	}
	for _, info := range p.result(0) {
		if info.ID == id {
			return info, nil
		}
	}
	if len(errs) > 0 {
		return session.Info{}, errors.Join(errs...)
	}
	return session.Info{}, session.ErrNotFound
}

// Conversation returns a session's real user prompts and readable assistant
// answers in order: each message's text parts merged, synthetic and ignored
// parts dropped, no reasoning, tool calls or results, compaction requests
// or summaries.
func (s *Scanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	if !validID(id) {
		return nil, session.ErrNotFound
	}
	var errs []error
	for _, db := range s.databases() {
		msgs, err := s.conversation(ctx, db, id)
		switch {
		case err == nil:
			return msgs, nil
		case errors.Is(err, session.ErrNotFound):
		case ctx.Err() != nil:
			return nil, ctx.Err()
		default:
			s.problems.Log(slog.LevelError, "conv:"+db.path, "cannot read OpenCode conversation", "path", db.path, "err", err)
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return nil, session.ErrNotFound
}

// WatchDirs returns the directories that hold the databases (their -wal
// files change with every write): the data directory and the directories
// of ExtraDBs, those that exist.
func (s *Scanner) WatchDirs() []string {
	var dirs []string
	add := func(d string) {
		if d != "" && isDir(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	add(s.opts.DataDir)
	for _, db := range s.opts.ExtraDBs {
		add(filepath.Dir(db))
	}
	return dirs
}

// processes returns the OpenCode processes, sorted by pid. An error (no
// /proc) means no liveness, logged once.
func (s *Scanner) processes(ctx context.Context) ([]proc, bool) {
	if s.opts.Processes == nil {
		return nil, false
	}
	all, err := s.opts.Processes(ctx)
	if err != nil {
		s.problems.Log(slog.LevelWarn, "processes", "cannot list processes; OpenCode sessions show as not live", "err", err)
		return nil, true
	}
	var out []proc
	for _, a := range all {
		if a.Runtime == runtimeName {
			out = append(out, newProc(a))
		}
	}
	slices.SortFunc(out, func(a, b proc) int { return cmp.Compare(a.pid, b.pid) })
	return out, false
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// validID: OpenCode ids are "ses_" and letters/digits; anything else (from a
// URL) is not looked up.
func validID(id string) bool { return history.SafeName(id, 128) }

// errSchema reports a database whose tables lack what the scanner needs.
type errSchema struct {
	table, column string
}

func (e errSchema) Error() string {
	if e.column == "" {
		return fmt.Sprintf("opencode: no %s table", e.table)
	}
	return fmt.Sprintf("opencode: table %s has no %s column", e.table, e.column)
}
