// Package kimi lists Kimi Code sessions and loads their conversations from
// Kimi's own files, in both of its layouts:
//
//   - kimi-code (the current TypeScript CLI, process kimi-code):
//     $KIMI_CODE_HOME or ~/.kimi-code, sessions/<workDirKey>/<id>/ with
//     state.json and agents/main/wire.jsonl. Other agents' wires (the
//     subagents under agents/<id>/) are never read.
//   - kimi-cli (the older Python CLI): $KIMI_SHARE_DIR or ~/.kimi,
//     sessions/<md5(cwd)>/<uuid>/context.jsonl (or the flat <uuid>.jsonl of
//     older versions), with kimi.json mapping buckets back to directories.
//     A session kimi-code has migrated (it becomes ses_<uuid>) is listed
//     once, from kimi-code.
//
// It is read-only, except for Delete: it never writes, creates, renames,
// touches or locks anything under either directory and never starts or
// signals Kimi. Delete, run only when the user asks, removes one session's
// own files (delete.go).
// Listing is lazy: it stats every session's history file,
// then reads state.json and the head and tail of the newest until the limit
// is filled, caching each summary by file signature, so an unchanged tree
// costs its stats and nothing more.
package kimi

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/history"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

const runtimeName = "kimi"

// Options configure a Scanner. DefaultOptions fills the directories the way
// Kimi resolves them.
type Options struct {
	// Home is kimi-code's data directory: $KIMI_CODE_HOME, else
	// ~/.kimi-code. "" lists no kimi-code sessions.
	Home string
	// LegacyHome is the Python kimi-cli's share directory: $KIMI_SHARE_DIR,
	// else ~/.kimi. "" lists no kimi-cli sessions.
	LegacyHome string
	// Processes returns the running agent processes (the caller shares one
	// snapshot among all scanners, e.g. procscan.Matcher.Shared). nil: no
	// session is ever live.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// TitleMarker, when set, is the marker paddock's own title generation
	// puts in its prompts: sessions whose prompts or title carry it are
	// that machinery's, not the user's, and are never listed.
	TitleMarker string
	Logger      *slog.Logger // nil: discard
}

// DefaultOptions returns Options with Kimi's directories resolved from the
// environment as Kimi itself resolves them ($KIMI_CODE_HOME, $KIMI_SHARE_DIR
// — a relative one against the working directory — and the home
// directory). When both name the same directory kimi-cli's store is not
// read twice. Processes is left nil for the caller to share.
func DefaultOptions() Options {
	home, _ := os.UserHomeDir()
	var opts Options
	if d := os.Getenv("KIMI_CODE_HOME"); d != "" {
		opts.Home = d
	} else if home != "" {
		opts.Home = filepath.Join(home, ".kimi-code")
	}
	if d := strings.TrimSpace(os.Getenv("KIMI_SHARE_DIR")); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			opts.LegacyHome = abs
		}
	} else if home != "" {
		opts.LegacyHome = filepath.Join(home, ".kimi")
	}
	if opts.LegacyHome != "" && filepath.Clean(opts.LegacyHome) == filepath.Clean(opts.Home) {
		opts.LegacyHome = ""
	}
	return opts
}

// Scanner reads Kimi sessions. It is safe for concurrent use.
type Scanner struct {
	home, legacyHome string
	processes        func(context.Context) ([]procscan.AgentProcess, error)
	marker           string
	userHome         string // for Project "~"

	// dirExists checks a session's cwd; tests replace it, since recorded
	// sessions name directories of the machine that recorded them.
	dirExists func(string) bool
	// parses counts summaries read from disk (tests: a cache hit reads
	// nothing).
	parses atomic.Int64

	mu       sync.Mutex
	cache    history.SummaryCache[cacheSig, *summary] // by history path
	problems *history.OnceLog                         // problems logged, by path
	sources  history.Problems                         // directories the last scan could not read
	listed   []candidate                              // the sessions the last Scan listed (WatchDirs)

	clocks clockMemo // what tail reads scanned of each wire (tail.go)
}

// cacheSig is what a summary was read at: the history file's signature
// and its side files' (stateSig).
type cacheSig struct {
	sig   history.Sig
	state uint64
}

// New returns a Scanner over opts.
func New(opts Options) *Scanner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	userHome, _ := os.UserHomeDir()
	return &Scanner{
		home:       opts.Home,
		legacyHome: opts.LegacyHome,
		processes:  opts.Processes,
		marker:     opts.TitleMarker,
		userHome:   userHome,
		dirExists:  isDir,
		problems:   history.NewOnceLog(log.With("runtime", runtimeName)),
	}
}

// Runtime names the runtime: "kimi".
func (s *Scanner) Runtime() string { return runtimeName }

// Scan lists up to limit sessions, newest effective time first, plus the
// sessions in keep and those a live TUI holds, wherever they fall. A
// negative limit lists every session. Missing directories mean Kimi is not
// installed: no sessions, no error. A kimi-code sessions directory that
// exists but cannot be listed is an error, so the caller keeps its last
// good list.
func (s *Scanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	s.sources.Begin()
	procs := s.liveProcs(ctx)
	cands, err := s.candidates(ctx)
	if err != nil {
		return nil, err
	}

	p := newPass(s)
	// Liveness first: a live session is listed even where its cwd is gone,
	// so the cwd rule needs it.
	p.live = bindLive(procs, cands, p.created)
	for i := range cands {
		if limit >= 0 && len(p.out) >= limit {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.add(&cands[i])
	}
	p.addIDs(cands, keep)
	p.addIDs(cands, slices.Collect(maps.Keys(p.live)))
	sortInfos(p.out)
	s.prune(p.used)
	s.remember(p, cands)
	s.sources.End()
	return p.out, nil
}

// Problems are the directories the last Scan could not read: their
// sessions may be missing from its list.
func (s *Scanner) Problems() []session.SourceProblem { return s.sources.Last() }

func sortInfos(infos []session.Info) {
	slices.SortStableFunc(infos, func(a, b session.Info) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})
}

// candidates stats both layouts and merges them newest first. A kimi-cli
// session that kimi-code has migrated (ses_<uuid>) is left to kimi-code.
func (s *Scanner) candidates(ctx context.Context) ([]candidate, error) {
	cur, err := s.currentCandidates(ctx)
	if err != nil {
		return nil, err
	}
	if s.legacyHome != "" {
		leg, err := s.legacyCandidates(ctx, legacyWorkDirs(s.legacyHome))
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// The old store is a side source: its failure must not hide
			// kimi-code's sessions.
			s.problems.Error(filepath.Join(s.legacyHome, "sessions"), "cannot list Kimi CLI sessions", "err", err)
			s.sources.Add(filepath.Join(s.legacyHome, "sessions"), "cannot be read: "+history.Reason(err))
		}
		if len(leg) > 0 {
			migrated := make(map[string]bool)
			for _, c := range cur {
				if id, ok := strings.CutPrefix(c.id, "ses_"); ok {
					migrated[id] = true
				}
			}
			for _, c := range leg {
				if !migrated[c.id] {
					cur = append(cur, c)
				}
			}
		}
	}
	sortNewest(cur)
	return cur, nil
}

// liveProcs asks for the process list. A failure means no liveness this
// round (undetectable is an empty map), logged once.
func (s *Scanner) liveProcs(ctx context.Context) []procscan.AgentProcess {
	if s.processes == nil {
		return nil
	}
	procs, err := s.processes(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.problems.Error("processes", "cannot list processes; no Kimi session is shown live", "err", err)
		}
		return nil
	}
	return procs
}

// remember keeps the candidates of the sessions the scan listed, whose
// directories WatchDirs names.
func (s *Scanner) remember(p *pass, cands []candidate) {
	byID := make(map[string]*candidate, len(p.out))
	for i := range cands {
		if _, ok := byID[cands[i].id]; !ok {
			byID[cands[i].id] = &cands[i]
		}
	}
	var listed []candidate
	for _, info := range p.out {
		if c := byID[info.ID]; c != nil {
			listed = append(listed, *c)
		}
	}
	s.mu.Lock()
	s.listed = listed
	s.mu.Unlock()
}

// pass is the state of one listing.
type pass struct {
	s    *Scanner
	seen map[string]bool  // ids considered
	used map[string]bool  // history paths whose summaries were used
	cwds *history.DirMemo // cwd existence, for this scan
	live map[string]int   // session id → pid of the TUI holding it
	out  []session.Info
}

func newPass(s *Scanner) *pass {
	return &pass{
		s:    s,
		seen: make(map[string]bool),
		used: make(map[string]bool),
		cwds: history.NewDirMemo(s.dirExists),
	}
}

func (p *pass) summary(c *candidate) *summary {
	p.used[c.path] = true
	return p.s.summary(c)
}

// created is the creation time liveness rule 4 compares.
func (p *pass) created(c *candidate) time.Time { return p.summary(c).created }

// add lists c when it is a session worth showing; only the first (newest)
// candidate of an id counts.
func (p *pass) add(c *candidate) {
	if p.seen[c.id] {
		return
	}
	p.seen[c.id] = true
	sum := p.summary(c)
	if !p.listable(c, sum) {
		return
	}
	info := p.s.info(c, sum)
	if pid := p.live[c.id]; pid != 0 {
		info.Live, info.PID = true, pid
	}
	p.out = append(p.out, info)
}

// addIDs adds the named sessions the limit left out, in one walk.
func (p *pass) addIDs(cands []candidate, ids []string) {
	want := make(map[string]bool)
	for _, id := range ids {
		if !p.seen[id] {
			want[id] = true
		}
	}
	for i := range cands {
		if len(want) == 0 {
			return
		}
		if want[cands[i].id] {
			delete(want, cands[i].id)
			p.add(&cands[i])
		}
	}
}

// listable drops sessions with nothing to list and, by workdir's rule,
// those of an ephemeral directory and those whose directory
// is gone (they cannot be resumed) unless a TUI still holds them (p.live
// bound first), checking each directory once per scan. An unknown cwd (a
// kimi-cli bucket kimi.json no longer names) is kept: the history is still
// worth showing.
func (p *pass) listable(c *candidate, sum *summary) bool {
	return sum.listable && p.cwds.Listable(sum.cwd, p.live[c.id] != 0, false)
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// summary returns c's cached summary, reading the files when they
// changed. A history file that cannot be read is listed as such and not
// cached: a permission put right shows at the next scan, whose stat says
// nothing changed.
func (s *Scanner) summary(c *candidate) *summary {
	if c.unreadable != nil {
		s.problems.Error(c.path, "cannot read Kimi session", "err", c.unreadable)
		return unreadable(c.unreadable)
	}
	at := cacheSig{sig: c.sig, state: stateSig(c)}
	if sum, ok := s.cache.Get(c.path, at); ok {
		return sum
	}
	s.parses.Add(1)
	var sum *summary
	if c.layout == current {
		sum = readCurrentSummary(c, s.marker)
	} else {
		sum = readLegacySummary(c, s.marker)
	}
	switch {
	case errors.Is(sum.openErr, fs.ErrNotExist):
		return &summary{} // removed since the stat: gone, not broken
	case sum.openErr != nil:
		s.problems.Error(c.path, "cannot read Kimi session", "err", sum.openErr)
		return unreadable(sum.openErr)
	case sum.readErr != nil || sum.badLines > 0:
		s.problems.Error(c.path, "Kimi session partly unreadable; listing what could be read",
			"bad_lines", sum.badLines, "err", sum.readErr)
	}
	s.cache.Put(c.path, at, sum)
	return sum
}

// stateSig signs the files beside the history that listing reads:
// state.json (and kimi-cli's metadata.json). Missing files sign as empty.
func stateSig(c *candidate) uint64 {
	if c.dir == "" {
		return 0
	}
	names := []string{"state.json"}
	if c.layout == legacy {
		names = append(names, "metadata.json")
	}
	var h uint64 = 14695981039346656037
	for _, n := range names {
		sig := history.StatSig(filepath.Join(c.dir, n))
		for _, v := range []uint64{uint64(sig.Size), uint64(sig.MtimeNs), sig.Ino} {
			h = (h ^ v) * 1099511628211
		}
	}
	return h
}

// info builds the list entry of a session (liveness is bound by the
// caller).
func (s *Scanner) info(c *candidate, sum *summary) session.Info {
	updated, source := session.EffectiveTime(c.mtime(), sum.lastEvent)
	return session.Info{
		Runtime:     runtimeName,
		ID:          c.id,
		Cwd:         sum.cwd,
		Project:     session.ShortProject(sum.cwd, s.userHome),
		Title:       sum.title,
		TitleSource: sum.titleSource,
		FirstPrompt: sum.firstPrompt,
		LastPrompt:  sum.lastPrompt,
		PromptCount: sum.prompts,
		Created:     sum.created,
		Updated:     updated,
		TimeSource:  source,
		Model:       sum.model,
		Path:        c.path,
		Error:       sum.problem,
	}
}

// prune forgets the summaries the last scan did not use, so the cache
// stays the size of one listing; logged problems are forgotten once their
// file is gone.
func (s *Scanner) prune(used map[string]bool) {
	s.cache.Prune(used)
	s.problems.ForgetGone(func(p string) bool { return used[p] || p == "processes" })
}

// find locates a session by id: kimi-code first, then kimi-cli (unless
// kimi-code holds its migrated copy).
func (s *Scanner) find(id string) (candidate, bool) {
	if !validID(id) {
		return candidate{}, false
	}
	var best candidate
	found := false
	consider := func(c candidate) {
		if !found || c.sig.MtimeNs > best.sig.MtimeNs {
			best, found = c, true
		}
	}
	if s.home != "" {
		// validID admits no glob characters: the pattern matches id only.
		paths, _ := filepath.Glob(filepath.Join(s.home, "sessions", "*", id, "agents", "main", "wire.jsonl"))
		for _, p := range paths {
			if st, ok := statFile(p); ok {
				dir := filepath.Dir(filepath.Dir(filepath.Dir(p)))
				consider(candidate{id: id, layout: current, bucket: filepath.Base(filepath.Dir(dir)),
					dir: dir, path: p, sig: history.SigOf(st)})
			}
		}
	}
	if found || s.legacyHome == "" {
		return best, found
	}
	if s.home != "" {
		if m, _ := filepath.Glob(filepath.Join(s.home, "sessions", "*", "ses_"+id)); len(m) > 0 {
			return candidate{}, false // listed as its kimi-code copy
		}
	}
	return s.findLegacy(id)
}

// findLegacy locates a kimi-cli session by id, whether or not kimi-code
// has migrated it.
func (s *Scanner) findLegacy(id string) (candidate, bool) {
	if s.legacyHome == "" || !validID(id) {
		return candidate{}, false
	}
	var best candidate
	found := false
	workDirs := legacyWorkDirs(s.legacyHome)
	root := filepath.Join(s.legacyHome, "sessions")
	for _, p := range append(
		globAll(filepath.Join(root, "*", id, "context.jsonl")),
		globAll(filepath.Join(root, "*", id+".jsonl"))...) {
		st, ok := statFile(p)
		if !ok {
			continue
		}
		c := candidate{id: id, layout: legacy, path: p, sig: history.SigOf(st)}
		if filepath.Base(p) == "context.jsonl" {
			c.dir = filepath.Dir(p)
		}
		c.bucket = filepath.Base(filepath.Dir(cmp.Or(c.dir, p)))
		if !md5Bucket.MatchString(c.bucket) {
			continue
		}
		c.cwd = workDirs[c.bucket]
		if c.dir != "" || !found {
			best, found = c, true // the directory form wins, as in kimi-cli
		}
	}
	return best, found
}

func globAll(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	return m
}

// Session returns one session's entry by id, however old
// (session.ErrNotFound when there is no such listable session).
func (s *Scanner) Session(ctx context.Context, id string) (session.Info, error) {
	if err := ctx.Err(); err != nil {
		return session.Info{}, err
	}
	c, ok := s.find(id)
	if !ok {
		return session.Info{}, session.ErrNotFound
	}
	p := newPass(s)
	sum := p.summary(&c)
	if !sum.listable {
		return session.Info{}, session.ErrNotFound
	}
	if procs := s.liveProcs(ctx); len(procs) > 0 {
		p.live = bindLive(procs, s.bucketCandidates(c), p.created)
	}
	if !p.listable(&c, sum) {
		return session.Info{}, session.ErrNotFound
	}
	info := s.info(&c, sum)
	if pid := p.live[c.id]; pid != 0 {
		info.Live, info.PID = true, pid
	}
	return info, nil
}

// bucketCandidates lists the sessions beside c (its workspace bucket),
// newest first: the scope liveness needs to bind c.
func (s *Scanner) bucketCandidates(c candidate) []candidate {
	dir := filepath.Dir(cmp.Or(c.dir, c.path))
	var out []candidate
	names, _ := subdirs(dir)
	for _, name := range names {
		if !validID(name) || name == c.id {
			continue
		}
		sdir := filepath.Join(dir, name)
		path := filepath.Join(sdir, "agents", "main", "wire.jsonl")
		if c.layout == legacy {
			path = filepath.Join(sdir, "context.jsonl")
		}
		if st, ok := statFile(path); ok {
			out = append(out, candidate{id: name, layout: c.layout, bucket: c.bucket, dir: sdir, path: path, sig: history.SigOf(st), cwd: c.cwd})
		}
	}
	out = append(out, c)
	sortNewest(out)
	return out
}

// Conversation returns the session's human prompts and readable assistant
// text in order (session.ErrNotFound when there is no such session). A
// partly broken file gives what could be read.
func (s *Scanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, session.ErrNotFound
	}
	var msgs []session.Message
	var bad int
	var err error
	if c.layout == current {
		msgs, bad, err = readWireConversation(ctx, c.path)
	} else {
		msgs, bad, err = readLegacyConversation(ctx, c.path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && len(msgs) == 0:
		s.problems.Error(c.path, "cannot read Kimi session", "err", err)
		return nil, err
	case err != nil || bad > 0:
		s.problems.Error(c.path, "Kimi session partly unreadable; showing what could be read", "bad_lines", bad, "err", err)
	}
	return msgs, nil
}

// WatchDirs returns the directories whose changes can change Scan's
// answer: each layout's sessions directory and its workspace buckets (new
// sessions), and for the sessions of the last scan their directory
// (state.json) and history directory (appends). Watching every session of
// a long history would cost an inotify watch each; older ones are found by
// the catalog's periodic sweep.
func (s *Scanner) WatchDirs() []string {
	var dirs []string
	for _, root := range []string{s.home, s.legacyHome} {
		if root == "" {
			continue
		}
		sessions := filepath.Join(root, "sessions")
		if !isDir(sessions) {
			continue
		}
		dirs = append(dirs, sessions)
		names, _ := subdirs(sessions)
		for _, n := range names {
			dirs = append(dirs, filepath.Join(sessions, n))
		}
	}
	s.mu.Lock()
	listed := s.listed
	s.mu.Unlock()
	for i := range listed {
		c := &listed[i]
		if c.dir != "" {
			dirs = append(dirs, c.dir)
		}
		if d := filepath.Dir(c.path); d != c.dir {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}
