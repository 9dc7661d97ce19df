// Package codex lists Codex CLI sessions and loads their conversations from
// Codex's own files: the rollouts in <CODEX_HOME>/sessions/YYYY/MM/DD/ (and
// the legacy flat sessions/ and archived_sessions/), thread names from
// session_index.jsonl and state_5.sqlite, and the open files of running
// codex processes for liveness.
//
// It is read-only, except for Delete: it never writes, creates, renames,
// touches or locks anything under the Codex home (SQLite opens a private
// copy of state_5.sqlite, history.Snapshots, never the file itself), and
// it never signals Codex. Delete, run only when the user asks,
// removes one session through `codex delete` or by removing its rollout
// files (delete.go). Listing is lazy: every
// rollout is stat'ed, then only the head and tail of the newest are read
// until the limit is filled; summaries are cached per file signature. When
// to scan again is the catalog's business: a scan whose inputs have not
// changed reads nothing but stats and the cached summaries.
package codex

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"paddock/internal/history"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

const runtimeName = "codex"

// Options configure a Scanner. DefaultOptions fills the directories the
// way Codex resolves them.
type Options struct {
	// Dir is the Codex home: $CODEX_HOME, else ~/.codex. A Scanner on ""
	// finds no sessions.
	Dir string
	// StateDir holds state_5.sqlite: $CODEX_SQLITE_HOME when set; "" means
	// Dir.
	StateDir string
	// Processes returns the running agent processes (the caller shares one
	// snapshot among all runtimes, e.g. procscan.Matcher.Shared). nil: no
	// liveness.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// KeepMissingCwd lists sessions whose working directory no longer
	// exists. By default they are dropped (a session that
	// cannot be resumed where it ran), unless a process still runs them;
	// tests and tools reading copied histories set it.
	KeepMissingCwd bool
	// Bin is the codex command Delete runs (`codex delete`), looked up in
	// PATH when it has no separator. "" (or a command that is not
	// installed) makes Delete remove the rollout files itself.
	Bin string
	// Snapshots holds the private copies state_5.sqlite is read from; nil:
	// a copy for each read, removed after it.
	Snapshots *history.Snapshots
	Logger    *slog.Logger // nil: discard
}

// DefaultOptions returns the Codex home and state directory from the
// environment ($CODEX_HOME or ~/.codex; $CODEX_SQLITE_HOME) and "codex"
// for Delete. Processes is left for the caller.
func DefaultOptions() Options {
	dir := os.Getenv("CODEX_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".codex")
		}
	}
	return Options{Dir: dir, StateDir: os.Getenv("CODEX_SQLITE_HOME"), Bin: "codex"}
}

// Scanner reads Codex sessions. It is safe for concurrent use.
type Scanner struct {
	dir, stateDir  string
	home           string // for Project "~"
	keepMissingCwd bool
	bin            string // the codex command for Delete; "" removes files
	processes      func(ctx context.Context) ([]procscan.AgentProcess, error)
	openFiles      openFilesFunc
	cmdline        cmdlineFunc
	snapshots      *history.Snapshots

	// parsed counts rollout summaries read from disk, cwdChecks working
	// directories stat'ed by scans (tests).
	parsed, cwdChecks atomic.Int64

	// srcMu serialises reading the title sources, so concurrent callers
	// share one read.
	srcMu sync.Mutex
	index indexCache
	state stateCache

	mu       sync.Mutex
	last     *rollouts        // the last scan's stat pass (less what Delete removed)
	problems *history.OnceLog // problems logged, by path
	sources  history.Problems // what the last scan could not read: directories, the index, the state database

	cache history.SummaryCache[history.Sig, *summary] // by rollout path
}

type indexCache struct {
	sig   history.Sig
	read  bool
	names map[string]string
}

// stateCache holds the threads looked up in the state database at one
// signature of the database and its WAL.
type stateCache struct {
	db, wal history.Sig
	read    bool // a lookup ever succeeded
	rows    map[string]thread
}

// New returns a Scanner over opts.
func New(opts Options) *Scanner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	home, _ := os.UserHomeDir()
	return &Scanner{
		dir:            opts.Dir,
		stateDir:       cmp.Or(opts.StateDir, opts.Dir),
		home:           home,
		keepMissingCwd: opts.KeepMissingCwd,
		bin:            opts.Bin,
		processes:      opts.Processes,
		openFiles:      procscan.OpenFiles,
		cmdline:        procCmdline,
		snapshots:      cmp.Or(opts.Snapshots, history.NewSnapshots(history.SnapshotOptions{})),
		problems:       history.NewOnceLog(log.With("runtime", runtimeName)),
	}
}

// Runtime names the runtime: "codex".
func (s *Scanner) Runtime() string { return runtimeName }

// sources is what the title sources say, with their signatures.
type sources struct {
	names map[string]string // session_index.jsonl: id → thread name
	sig   [3]history.Sig    // index, database, WAL
}

// Scan lists up to limit sessions, newest effective time first, plus the
// sessions named in keep and the live sessions that have
// no rollout yet. A negative limit lists all. A missing Codex home is an
// empty list: Codex is not installed. A state database that exists but
// cannot be read (and never could) is an error, so the caller keeps its
// last good list.
//
// Candidates are taken newest mtime first and sorted by effective time at
// the end, so a rollout touched long after its last event can push out one
// with an older mtime but a newer event; finding the exact top by event
// time would mean reading every touched file.
func (s *Scanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	if s.dir == "" {
		return nil, nil
	}
	s.sources.Begin()
	cands, err := s.candidates(ctx)
	if err != nil {
		return nil, err
	}
	src, err := s.titleSources(ctx)
	if err != nil {
		return nil, err
	}
	live := s.bindings(ctx)

	byID := &rollouts{cands: cands}
	live.addParents(func(id string) string {
		if c, ok := byID.get(id); ok {
			if sum := s.summary(c); sum.subagent {
				return sum.parent
			}
		}
		return ""
	})
	state := s.stateLookup(ctx, src)
	defer state.close()
	p := pass{s: s, src: src, state: state, live: live, cwds: history.NewDirMemo(s.checkCwd), used: make(map[string]bool), seen: make(map[string]bool)}
	for _, c := range cands {
		if limit >= 0 && p.listed >= limit {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := p.add(c); err != nil {
			return nil, err
		}
	}
	for _, id := range keep {
		if c, ok := byID.get(id); ok {
			if err := p.add(c); err != nil {
				return nil, err
			}
		}
	}
	p.addUnwritten(byID)
	slices.SortStableFunc(p.out, func(a, b session.Info) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})

	s.mu.Lock()
	s.last = byID
	s.mu.Unlock()
	s.prune(p.used)
	s.sources.End()
	return p.out, nil
}

// Problems are what the last Scan could not read: directories of
// rollouts (their sessions may be missing), the session index or the
// state database (titles may be stale).
func (s *Scanner) Problems() []session.SourceProblem { return s.sources.Last() }

// pass is the state of one Scan.
type pass struct {
	s      *Scanner
	src    sources
	state  *stateLookup
	live   liveSet
	cwds   *history.DirMemo // working directories' existence, for this scan
	used   map[string]bool  // rollouts whose summary this scan used
	seen   map[string]bool  // ids considered
	out    []session.Info
	listed int
}

// add lists c if it is a listable session and its id is new. The error
// is the state database's, when it never could be read.
func (p *pass) add(c candidate) error {
	if p.seen[c.id] {
		return nil
	}
	p.seen[c.id] = true
	p.used[c.path] = true
	info, ok, err := p.s.info(c, p.s.summary(c), p.src, p.state, p.live)
	if err != nil || !ok || !p.cwdAllowed(info) {
		return err
	}
	p.out = append(p.out, info)
	p.listed++
	return nil
}

// addUnwritten lists the threads a live process has opened whose rollout
// does not exist yet: Codex writes it with the first prompt, so until then
// the session exists only while its process lives.
func (p *pass) addUnwritten(byID *rollouts) {
	for _, id := range slices.Sorted(maps.Keys(p.live.locked)) {
		if _, ok := byID.get(id); ok || p.seen[id] {
			continue
		}
		p.seen[id] = true
		if info := p.s.unwritten(id, p.live.threads[id]); p.cwdAllowed(info) {
			p.out = append(p.out, info)
		}
	}
}

// cwdAllowed applies the shared working-directory rule (history.Memo's
// Listable).
func (p *pass) cwdAllowed(info session.Info) bool {
	return p.cwds.Listable(info.Cwd, info.Live, p.s.keepMissingCwd)
}

// checkCwd stats a working directory for a scan's history.Memo, counting
// the stats (tests).
func (s *Scanner) checkCwd(dir string) bool {
	s.cwdChecks.Add(1)
	return dirExists(dir)
}

func dirExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// info builds the list entry of a rollout; false when it is not one: a
// subagent thread, or a thread with nothing in it whose process is gone.
func (s *Scanner) info(c candidate, sum *summary, src sources, state *stateLookup, live liveSet) (session.Info, bool, error) {
	b, isLive := live.threads[c.id]
	// A rollout with nothing readable in it is listed when it could not
	// be read, so the user learns of it.
	if sum.subagent || !sum.hasConversation() && !isLive && sum.problem == "" {
		return session.Info{}, false, nil
	}
	st, err := state.thread(c.id)
	if err != nil || st.subagent {
		return session.Info{}, false, err
	}
	updated, timeSource := session.EffectiveTime(c.mtime(), sum.lastEvent)
	info := session.Info{
		Runtime:     runtimeName,
		ID:          c.id,
		Cwd:         sum.cwd,
		Project:     session.ShortProject(sum.cwd, s.home),
		FirstPrompt: sum.firstPrompt,
		LastPrompt:  sum.lastPrompt,
		PromptCount: sum.prompts,
		Created:     sum.created,
		Updated:     updated,
		TimeSource:  timeSource,
		Model:       cmp.Or(sum.model, st.model),
		Path:        c.path,
		Error:       sum.problem,
	}
	info.Title, info.TitleSource = title(sum, src.names[c.id], st)
	if isLive {
		info.Live, info.PID = true, b.pid
	}
	return info, true, nil
}

// title picks a session's title: the thread name (session_index.jsonl,
// then the state database; Codex generates one after the first turn, and
// /rename replaces it) > the first prompt > Codex's own title column > the
// last prompt. A session with no prompt yet is a new session.
func title(sum *summary, indexName string, st thread) (string, string) {
	candidates := []struct{ text, source string }{
		{indexName, session.TitleAI},
		{st.name, session.TitleAI},
		{sum.firstPrompt, session.TitlePrompt},
		{st.title, session.TitlePrompt},
		{sum.lastPrompt, session.TitlePrompt},
	}
	for _, c := range candidates {
		if t := history.ClipLine(c.text, maxTitleRunes); t != "" {
			return t, c.source
		}
	}
	if !sum.hasConversation() && sum.problem == "" {
		return newSessionTitle, ""
	}
	return "", ""
}

// unwritten is the list entry of a live thread without a rollout.
func (s *Scanner) unwritten(id string, b binding) session.Info {
	return session.Info{
		Runtime: runtimeName,
		ID:      id,
		Cwd:     b.cwd,
		Project: session.ShortProject(b.cwd, s.home),
		Title:   newSessionTitle,
		Created: b.started,
		Updated: b.started,
		Live:    true,
		PID:     b.pid,
	}
}

// Session returns one session by id, even one too old for Scan's limit;
// session.ErrNotFound when there is no such listable session.
func (s *Scanner) Session(ctx context.Context, id string) (session.Info, error) {
	if err := ctx.Err(); err != nil {
		return session.Info{}, err
	}
	if s.dir == "" || !validID(id) {
		return session.Info{}, session.ErrNotFound
	}
	src, err := s.titleSources(ctx)
	if err != nil {
		return session.Info{}, err
	}
	live := s.bindings(ctx)
	live.addParents(s.parentOf)
	if c, ok := s.find(id); ok {
		state := s.stateLookup(ctx, src)
		defer state.close()
		info, ok, err := s.info(c, s.summary(c), src, state, live)
		if err != nil {
			return session.Info{}, err
		}
		if !ok {
			return session.Info{}, session.ErrNotFound
		}
		return info, nil
	}
	if live.locked[id] {
		return s.unwritten(id, live.threads[id]), nil
	}
	return session.Info{}, session.ErrNotFound
}

// parentOf returns the parent of a subagent thread ("" for any other).
func (s *Scanner) parentOf(id string) string {
	if c, ok := s.find(id); ok {
		if sum := s.summary(c); sum.subagent {
			return sum.parent
		}
	}
	return ""
}

// Conversation returns a session's user prompts and readable assistant
// answers in order; session.ErrNotFound when it has no
// rollout. A live session with no rollout yet has an empty conversation.
func (s *Scanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	c, ok := s.find(id)
	if !ok {
		if validID(id) && s.bindings(ctx).locked[id] {
			return nil, nil
		}
		return nil, session.ErrNotFound
	}
	conv, err := readConversation(ctx, c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case conv == nil:
		s.problems.Error(c.path, "cannot read Codex rollout", "err", err)
		return nil, err
	}
	if err != nil || conv.badLines > 0 {
		s.problems.Error(c.path, "Codex rollout partly unreadable; showing what could be read",
			"bad_lines", conv.badLines, "err", err)
	}
	return conv.msgs, nil
}

// WatchDirs returns the directories whose changes can change Scan's
// answer, those that exist: the Codex home (session_index.jsonl and the
// state database), the state directory, every directory of sessions/ and
// archived_sessions/ down to the day, and thread-writer-locks/ (a new
// session's lock appears there before its rollout).
func (s *Scanner) WatchDirs() []string {
	if s.dir == "" {
		return nil
	}
	var dirs []string
	for _, d := range []string{s.dir, s.stateDir, filepath.Join(s.dir, "thread-writer-locks")} {
		if dirExists(d) && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, root := range []string{sessionsDir, archiveDir} {
		dirs = appendDirs(dirs, filepath.Join(s.dir, root), 0)
	}
	return dirs
}

// bindings looks at the running codex processes. A failure to list them
// (an unsupported platform) means no liveness, not a failed scan.
func (s *Scanner) bindings(ctx context.Context) liveSet {
	if s.processes == nil {
		return bindProcesses(nil, s.openFiles, s.cmdline, nil)
	}
	procs, err := s.processes(ctx)
	if err != nil && !errors.Is(err, procscan.ErrUnsupported) {
		s.problems.Error("processes", "cannot list codex processes", "err", err)
	}
	return bindProcesses(procs, s.openFiles, s.cmdline, under(s.dir))
}

// titleSources reads session_index.jsonl again when its signature
// changed (keeping its last good content when it cannot be read) and
// stats the state database; that is read lazily, per thread
// (stateLookup).
func (s *Scanner) titleSources(ctx context.Context) (sources, error) {
	if err := ctx.Err(); err != nil {
		return sources{}, err
	}
	s.srcMu.Lock()
	defer s.srcMu.Unlock()
	indexPath := filepath.Join(s.dir, indexFile)
	dbPath := filepath.Join(s.stateDir, stateFile)
	src := sources{sig: [3]history.Sig{history.StatSig(indexPath), history.StatSig(dbPath), history.StatSig(dbPath + "-wal")}}
	if !s.index.read || s.index.sig != src.sig[0] {
		names, err := readIndex(indexPath, src.sig[0].Size)
		if err != nil {
			s.problems.Error(indexPath, "cannot read Codex session index", "err", err)
			if !errors.Is(err, fs.ErrNotExist) {
				s.sources.Add(indexPath, "cannot be read: "+history.Reason(err)+"; session names may be stale")
			}
		} else {
			s.index = indexCache{sig: src.sig[0], read: true, names: names}
		}
	}
	src.names = s.index.names
	return src, nil
}

// stateLookup is one pass's access to the state database: threads already
// looked up at the database's current signature come from the cache; the
// first other one opens the database, which stays open for the pass.
type stateLookup struct {
	s       *Scanner
	ctx     context.Context
	path    string
	db, wal history.Sig
	r       *stateReader
	opened  bool
	err     error // opening failed
	failed  error // a lookup fell back to the last good answer
}

func (s *Scanner) stateLookup(ctx context.Context, src sources) *stateLookup {
	return &stateLookup{s: s, ctx: ctx, path: filepath.Join(s.stateDir, stateFile), db: src.sig[1], wal: src.sig[2]}
}

// thread returns what the state database says about id. When the
// database cannot be read it is an error if it never could (the caller's
// last good list must stay); otherwise the last good answer (a failed
// read never replaces good data).
func (l *stateLookup) thread(id string) (thread, error) {
	s := l.s
	s.srcMu.Lock()
	c := &s.state
	if c.read && c.db == l.db && c.wal == l.wal {
		if t, ok := c.rows[id]; ok {
			s.srcMu.Unlock()
			return t, nil
		}
	}
	s.srcMu.Unlock()

	if !l.opened {
		l.opened = true
		l.r, l.err = openState(l.ctx, s.snapshots, l.path)
	}
	var t thread
	err := l.err
	if err == nil && l.r != nil {
		t, err = l.r.thread(l.ctx, id)
	}
	s.srcMu.Lock()
	defer s.srcMu.Unlock()
	if err != nil {
		if !c.read {
			return thread{}, fmt.Errorf("codex: read %s: %w", l.path, err)
		}
		l.failed = err
		return c.rows[id], nil
	}
	if !c.read || c.db != l.db || c.wal != l.wal {
		*c = stateCache{db: l.db, wal: l.wal, read: true, rows: make(map[string]thread)}
	}
	c.rows[id] = t
	return t, nil
}

// close closes the database, if the pass opened it, and logs (once per
// database file) why it could not be read.
func (l *stateLookup) close() {
	if l.r != nil {
		l.r.close()
	}
	if l.failed != nil {
		l.s.problems.Error(l.path, "cannot read Codex state database; keeping its last good titles", "err", l.failed)
		l.s.sources.Add(l.path, "cannot be read: "+history.Reason(l.failed)+"; session names may be stale")
	}
}

// summary returns the summary of c, reading the file only when it changed.
func (s *Scanner) summary(c candidate) *summary {
	if c.unreadable != nil {
		s.problems.Error(c.path, "cannot read Codex rollout", "err", c.unreadable)
		return unreadable(c.unreadable)
	}
	if sum, ok := s.cache.Get(c.path, c.sig); ok {
		return sum
	}
	s.parsed.Add(1)
	sum, err := readSummary(c.path, c.sig.Size)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &summary{} // removed since the stat: gone, not broken
	case err != nil:
		// Not cached: a permission put right shows at the next scan,
		// whose stat says nothing changed.
		s.problems.Error(c.path, "cannot read Codex rollout", "err", err)
		return unreadable(err)
	case sum.readErr != nil || sum.badLines > 0:
		s.problems.Error(c.path, "Codex rollout partly unreadable; listing what could be read",
			"bad_lines", sum.badLines, "err", sum.readErr)
	}
	s.cache.Put(c.path, c.sig, sum)
	return sum
}

// prune keeps the summaries the last scan used and forgets the rest, so
// the cache stays the size of one listing. Logged problems are forgotten
// once their file is gone, so a broken file is logged once, not per scan.
func (s *Scanner) prune(used map[string]bool) {
	s.cache.Prune(used)
	// "processes" names no file: it is forgotten only when listing works.
	s.problems.ForgetGone(func(p string) bool { return used[p] || !filepath.IsAbs(p) })
}
