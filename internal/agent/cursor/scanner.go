// Package cursor lists Cursor Agent CLI (`cursor-agent` / `agent`) chats and
// loads their conversations from Cursor's own files:
// <config>/chats/<md5 of cwd>/<chatId>/{meta.json, prompt_history.json,
// store.db} and, where chats/ has nothing, the JSONL transcripts in
// <config>/projects/*/agent-transcripts/.
//
// It is read-only but for Delete: it never writes, creates, renames or
// locks anything under Cursor's config directory, never starts or signals
// Cursor. Delete, when the user asks, removes one chat's own files
// (delete.go) and nothing else.
// Listing reads only meta.json and prompt_history.json;
// store.db is read, from a private copy of it and its -wal (so the WAL is
// seen), for a conversation preview, and for the parent of a subagent's
// chat when a live process names one. Summaries are cached by the stat of the
// files they were read from, so an unchanged chat is not read again.
//
// Everything about Cursor's files comes from third-party reverse
// engineering: Cursor is
// closed source and no real chats/ sample was available.
package cursor

import (
	"cmp"
	"context"
	"crypto/md5"
	"encoding/hex"
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

	"paddock/internal/history"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

const runtimeName = "cursor"

// Options configure a Scanner.
type Options struct {
	// Dir is Cursor's config directory: $CURSOR_CONFIG_DIR or ~/.cursor
	// (see DefaultDir). "" lists nothing.
	Dir string
	// Processes lists the running agent CLIs, for liveness; the caller
	// shares one snapshot among all scanners. nil: nothing is live.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// TitleMarker, when set, marks paddock's own title-generation runs: a
	// chat whose title or prompts contain it is not listed.
	TitleMarker string
	// Snapshots holds the private copies store.db files are read from;
	// nil: a copy for each read, removed after it.
	Snapshots *history.Snapshots
	Logger    *slog.Logger // nil => discard
}

// DefaultDir returns Cursor's config directory the way the CLI resolves it:
// $CURSOR_CONFIG_DIR when set, else ~/.cursor; "" when neither can be
// determined.
func DefaultDir() string {
	if d := os.Getenv("CURSOR_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cursor")
}

// DefaultOptions returns Options over DefaultDir with live process
// detection: the process table walked for Cursor's own processes.
func DefaultOptions() Options {
	return Options{Dir: DefaultDir(), Processes: procscan.NewMatcher(process()).Agents}
}

// Scanner reads Cursor Agent CLI chats. It is safe for concurrent use.
type Scanner struct {
	dir         string
	home        string
	processes   func(ctx context.Context) ([]procscan.AgentProcess, error)
	openFiles   func(pid int) ([]string, error)
	titleMarker string
	snapshots   *history.Snapshots

	mu       sync.Mutex
	parents  map[string]parentEntry // by store.db path
	wsCwd    map[string]string      // workspace folder (md5 of cwd) → cwd
	problems *history.OnceLog       // problems logged, by path
	sources  history.Problems       // what the last scan could not read: folders, chats' stores
	// storeErrs are the store.db files a conversation could not be read
	// from, by path, with the stats they had then: until they change,
	// their chats are listed with the reason.
	storeErrs map[string]storeErr
	watch     []string // the last Scan's WatchDirs

	// summaries are by chat folder or transcript path, at the stats of
	// meta.json, prompt_history.json and the transcript.
	summaries history.SummaryCache[[3]fileStat, *summary]

	// scanMu keeps Scan and Delete apart, so a scan never caches the
	// summaries of chats whose files Delete is removing.
	scanMu sync.Mutex

	// parses counts reads of meta.json, prompt_history.json and
	// transcripts: tests use it to see that an unchanged tree is not
	// parsed again.
	parses atomic.Int64
	// storeReads counts store.db opens, so tests can see that listing
	// never opens one.
	storeReads atomic.Int64
}

// New returns a Scanner over opts.Dir.
func New(opts Options) *Scanner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	home, _ := os.UserHomeDir()
	return &Scanner{
		dir:         opts.Dir,
		home:        home,
		processes:   opts.Processes,
		openFiles:   procscan.OpenFiles,
		titleMarker: opts.TitleMarker,
		snapshots:   cmp.Or(opts.Snapshots, history.NewSnapshots(history.SnapshotOptions{})),
		parents:     make(map[string]parentEntry),
		wsCwd:       make(map[string]string),
		storeErrs:   make(map[string]storeErr),
		problems:    history.NewOnceLog(log.With("runtime", runtimeName)),
	}
}

// Runtime names the runtime: "cursor".
func (s *Scanner) Runtime() string { return runtimeName }

func (s *Scanner) chatsDir() string { return filepath.Join(s.dir, "chats") }

// Scan lists up to limit chats of the user's own, newest effective time
// first, plus the chats whose id is in keep (even beyond limit). A negative
// limit lists every chat. Subagents' chats and empty shells
// (hasConversation false) are never listed. A missing config directory is
// an empty list; a chats/ folder that exists but cannot be read is an
// error, so the caller keeps its last good list.
//
// The projects/*/agent-transcripts/ transcripts are listed only when chats/
// holds no chat at all (the store was deleted, or a build that keeps only
// transcripts); with chats present they are Cursor's backup copies of the
// same chats, and are read only for a kept id whose chat folder is gone.
func (s *Scanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	if s.dir == "" {
		return nil, nil
	}
	s.scanMu.Lock()
	defer s.scanMu.Unlock()

	s.sources.Begin()
	chats, listed, err := s.chats(ctx)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*chat, len(chats))
	for _, c := range chats {
		if _, dup := byID[c.id]; !dup {
			byID[c.id] = c // the newest, as findChat picks
		}
	}
	var trans map[string]*chat
	missing := len(chats) == 0
	for _, id := range keep {
		if byID[id] == nil {
			missing = true
		}
	}
	if missing {
		trans = s.transcripts()
	}
	evs := s.gatherEvidence(ctx)

	p := &pass{
		s:      s,
		ctx:    ctx,
		cwds:   history.NewDirMemo(isDir),
		seen:   make(map[string]bool),
		used:   make(map[string]bool),
		byID:   byID,
		trans:  trans,
		pinned: make(map[string]bool, len(keep)),

		triedWS: make(map[string]bool),
	}
	s.learnCwds(evs)
	// The chats liveness looks at keep their cached summaries.
	b := &binder{s: s, ctx: ctx, lookup: func(id string) *chat {
		c := p.lookup(id)
		if c != nil {
			p.used[c.cacheKey()] = true
		}
		return c
	}}
	p.live = b.bind(evs)

	for _, id := range keep {
		p.pinned[id] = true
	}
	cands := chats
	if len(chats) == 0 {
		cands = slices.Collect(maps.Values(trans))
		sortChats(cands)
	}
	for _, c := range cands {
		if limit >= 0 && len(p.out) >= limit {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p.add(c)
	}
	for _, id := range keep {
		if c := p.lookup(id); c != nil {
			p.add(c)
		}
	}
	s.prune(p.used)

	slices.SortStableFunc(p.out, func(a, b session.Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	watch := s.watchDirs(p, listed)
	s.mu.Lock()
	s.watch = watch
	s.mu.Unlock()
	s.sources.End()
	return p.out, nil
}

// Problems are what the last Scan could not read: workspace folders
// (their chats may be missing) and the stores of listed chats whose
// conversations could not be read.
func (s *Scanner) Problems() []session.SourceProblem { return s.sources.Last() }

// storeErr is a store.db a conversation could not be read from: the
// stats of it and its -wal then, and why.
type storeErr struct {
	store, wal fileStat
	reason     string
}

// noteStore records whether c's store.db could be read (err nil): a
// failure names the chat's Error and the store as a source problem until
// the store changes.
func (s *Scanner) noteStore(c *chat, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		delete(s.storeErrs, c.storePath())
		return
	}
	s.storeErrs[c.storePath()] = storeErr{store: c.store, wal: c.wal, reason: history.Reason(err)}
}

// storeProblem is why c's store.db cannot be read, as the last read of
// it at its current stats found ("" when none failed).
func (s *Scanner) storeProblem(c *chat) string {
	if !c.store.ok {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.storeErrs[c.storePath()]
	if !ok || e.store != c.store || e.wal != c.wal {
		return ""
	}
	return e.reason
}

// pass is the state of one Scan.
type pass struct {
	s      *Scanner
	ctx    context.Context
	cwds   *history.DirMemo // cwd existence, for this scan
	seen   map[string]bool  // ids already considered
	used   map[string]bool  // summary cache keys this scan used
	byID   map[string]*chat
	trans  map[string]*chat
	pinned map[string]bool
	live   map[string]int
	// triedWS: workspace folders already searched for a cwd this scan.
	triedWS map[string]bool
	byWS    map[string][]*chat // built on first need
	out     []session.Info
}

func (p *pass) lookup(id string) *chat {
	if c := p.byID[id]; c != nil {
		return c
	}
	return p.trans[id]
}

// add lists c if it is a chat of the user's own and its id is new.
func (p *pass) add(c *chat) {
	if p.seen[c.id] {
		return
	}
	p.seen[c.id] = true
	p.used[c.cacheKey()] = true
	sum := p.s.summary(p.ctx, c)
	cwd := p.s.cwdOf(p.ctx, c, sum, p.siblings)
	pid, live := p.live[c.id]
	if !p.s.listable(c, sum, cwd, live, p.pinned[c.id], p.cwds) {
		return
	}
	info := p.s.info(c, sum, cwd)
	if live {
		info.Live, info.PID = true, pid
	}
	if r := p.s.storeProblem(c); r != "" {
		p.s.sources.Add(c.storePath(), "cannot be read: "+r)
	}
	p.out = append(p.out, info)
}

// siblings returns the other chats of a workspace folder, once per folder
// and scan (a folder none of whose chats names its cwd is not searched
// again). Their summaries count as used.
func (p *pass) siblings(ws string) []*chat {
	if p.triedWS[ws] {
		return nil
	}
	p.triedWS[ws] = true
	if p.byWS == nil {
		p.byWS = make(map[string][]*chat)
		for _, c := range p.byID {
			p.byWS[c.ws] = append(p.byWS[c.ws], c)
		}
		for _, cs := range p.byWS {
			sortChats(cs)
		}
	}
	for _, c := range p.byWS[ws] {
		p.used[c.cacheKey()] = true
	}
	return p.byWS[ws]
}

func (c *chat) cacheKey() string {
	if c.transcript != "" {
		return c.transcript
	}
	return c.dir
}

// listable applies the listing rules: subagents' chats, empty shells,
// paddock's own title-generation runs, and by workdir's rule ephemeral
// working directories and chats whose working directory is gone, unless
// the chat is live or pinned (kept: asked for by id), are left out.
func (s *Scanner) listable(c *chat, sum *summary, cwd string, live, pinned bool, cwds *history.DirMemo) bool {
	switch {
	case sum.subagent, sum.empty:
		return false
	case sum.problem != "" || s.storeProblem(c) != "":
		// Listed so that the user learns of it.
	case c.transcript != "" && sum.prompts == 0:
		return false // no prompt: nothing to show
	case c.transcript == "" && !sum.hasMeta && sum.prompts == 0 && !c.store.ok:
		return false // only an unreadable meta.json
	}
	if m := s.titleMarker; m != "" && (strings.Contains(sum.title, m) ||
		strings.Contains(sum.firstPrompt, m) || strings.Contains(sum.lastPrompt, m)) {
		return false
	}
	return cwds.Listable(cwd, live, pinned)
}

// cwdOf is a chat's working directory: meta.json's, else the one known for
// its workspace folder (the md5 of the cwd), learned from a running
// process's cwd or from a sibling chat's meta.json (read on demand through
// siblings, which may be nil).
func (s *Scanner) cwdOf(ctx context.Context, c *chat, sum *summary, siblings func(ws string) []*chat) string {
	if sum.cwd != "" || c.ws == "" {
		return sum.cwd
	}
	if cwd, ok := s.knownWS(c.ws); ok || siblings == nil {
		return cwd
	}
	for _, sib := range siblings(c.ws) {
		if sib == c || !sib.meta.ok {
			continue
		}
		s.summary(ctx, sib) // learns the folder's cwd when its own hashes to it
		if cwd, ok := s.knownWS(c.ws); ok {
			return cwd
		}
	}
	return ""
}

func (s *Scanner) knownWS(ws string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cwd, ok := s.wsCwd[ws]
	return cwd, ok
}

// learnCwds remembers which workspace folder a running process's cwd is.
func (s *Scanner) learnCwds(evs []evidence) {
	for _, ev := range evs {
		s.learnCwd(ev.cwd)
	}
}

func (s *Scanner) learnCwd(cwd string) {
	if !strings.HasPrefix(cwd, "/") {
		return
	}
	sum := md5.Sum([]byte(cwd))
	ws := hex.EncodeToString(sum[:])
	s.mu.Lock()
	s.wsCwd[ws] = cwd
	s.mu.Unlock()
}

// summary returns the cached summary of c, reading its files again when
// their stat changed. It never fails: an unreadable file is logged once
// and contributes nothing.
func (s *Scanner) summary(ctx context.Context, c *chat) *summary {
	key := c.cacheKey()
	sig := [3]fileStat{c.meta, c.history, c.transcriptStat}
	if sum, ok := s.summaries.Get(key, sig); ok {
		return sum
	}
	s.parses.Add(1)
	sum := &summary{}
	switch {
	case c.transcript != "" && c.badErr != nil:
		s.problems.Error(c.transcript, "cannot read Cursor transcript", "err", c.badErr)
		sum.problem = history.Unreadable(c.badErr)
		sum.cwd = resolveProjectDir(c.transcriptProjID, isDir)
	case c.transcript != "":
		t, err := transcriptSummary(ctx, c.transcript, c.transcriptStat.Size)
		switch {
		case err == nil:
			sum = t
		case ctx.Err() != nil:
			return sum // not cached: a cancelled read is no answer
		case errors.Is(err, fs.ErrNotExist):
			// Removed since the stat: gone, not broken.
		default:
			s.problems.Error(c.transcript, "cannot read Cursor transcript", "err", err)
			sum.problem, sum.retry = history.Unreadable(err), true
		}
		sum.cwd = resolveProjectDir(c.transcriptProjID, isDir)
	default:
		if c.badErr != nil {
			s.problems.Error(filepath.Join(c.dir, c.badFile), "cannot read Cursor chat file", "err", c.badErr)
			sum.addProblem("its " + c.badFile + " cannot be read: " + history.Reason(c.badErr))
		}
		if c.meta.ok {
			if err := readMetaFile(filepath.Join(c.dir, "meta.json"), sum); err != nil {
				s.problems.Error(filepath.Join(c.dir, "meta.json"), "cannot read Cursor meta.json", "err", err)
				p, open := fileProblem("meta.json", err)
				sum.addProblem(p)
				sum.retry = sum.retry || open
			}
		}
		if c.history.ok {
			if err := readPromptHistory(filepath.Join(c.dir, "prompt_history.json"), sum); err != nil {
				s.problems.Error(filepath.Join(c.dir, "prompt_history.json"), "cannot read Cursor prompt_history.json", "err", err)
				p, open := fileProblem("prompt_history.json", err)
				sum.addProblem(p)
				sum.retry = sum.retry || open
			}
		}
		if sum.cwd != "" {
			if h := md5.Sum([]byte(sum.cwd)); hex.EncodeToString(h[:]) == c.ws {
				s.mu.Lock()
				s.wsCwd[c.ws] = sum.cwd
				s.mu.Unlock()
			}
		}
	}
	if !sum.retry {
		s.summaries.Put(key, sig, sum)
	}
	return sum
}

// info builds the list entry of a chat.
func (s *Scanner) info(c *chat, sum *summary, cwd string) session.Info {
	updated, source := session.EffectiveTime(c.mtime(), sum.lastEvent)
	info := session.Info{
		Runtime:     runtimeName,
		ID:          c.id,
		Cwd:         cwd,
		Project:     session.ShortProject(cwd, s.home),
		FirstPrompt: sum.firstPrompt,
		LastPrompt:  sum.lastPrompt,
		PromptCount: sum.prompts,
		Created:     sum.created,
		Updated:     updated,
		TimeSource:  source,
		Path:        c.path(),
		Error:       sum.problem,
	}
	if r := s.storeProblem(c); r != "" {
		info.Error = strings.TrimPrefix(info.Error+"; its conversation store cannot be read: "+r, "; ")
	}
	switch {
	case sum.title != "":
		// Cursor names a chat itself (the model titles it).
		info.Title, info.TitleSource = sum.title, session.TitleAI
	case sum.firstPrompt != "":
		info.Title, info.TitleSource = history.ClipLine(sum.firstPrompt, maxTitleRunes), session.TitlePrompt
	}
	return info
}

// Session returns one chat's list entry by id; session.ErrNotFound when
// there is no such chat of the user's own.
func (s *Scanner) Session(ctx context.Context, id string) (session.Info, error) {
	if err := ctx.Err(); err != nil {
		return session.Info{}, err
	}
	c := s.findChat(id)
	var trans map[string]*chat
	if c == nil && validID(id) && s.dir != "" {
		trans = s.transcripts()
		c = trans[id]
	}
	if c == nil {
		return session.Info{}, session.ErrNotFound
	}
	evs := s.gatherEvidence(ctx)
	s.learnCwds(evs)
	sum := s.summary(ctx, c)
	siblings := func(ws string) []*chat {
		chats, _ := s.workspace(s.chatsDir(), ws)
		return chats
	}
	cwd := s.cwdOf(ctx, c, sum, siblings)
	// Asked for by id, a chat is pinned: its cwd is never checked.
	if !s.listable(c, sum, cwd, false, true, history.NewDirMemo(isDir)) {
		return session.Info{}, session.ErrNotFound
	}
	info := s.info(c, sum, cwd)
	lookup := func(other string) *chat {
		if other == id {
			return c
		}
		if t := trans[other]; t != nil {
			return t
		}
		return s.findChat(other)
	}
	b := &binder{s: s, ctx: ctx, lookup: lookup}
	if pid, ok := b.bind(evs)[id]; ok {
		info.Live, info.PID = true, pid
	}
	return info, nil
}

// Conversation returns a chat's user and assistant messages in order: from
// its store.db, else from its transcript. A store.db that exists but cannot
// be read is an error; session.ErrNotFound when the chat has neither.
func (s *Scanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	return load(ctx, s, id, s.storeConversation, transcriptConversation)
}

// load reads a chat's record (its conversation, or its events) the way
// Conversation documents: from store.db, else from the transcript.
func load[T any](ctx context.Context, s *Scanner, id string,
	fromStore func(context.Context, string) ([]T, error),
	fromTranscript func(context.Context, string) ([]T, int, error),
) ([]T, error) {
	if c := s.findChat(id); c != nil && c.store.ok {
		s.storeReads.Add(1)
		out, err := fromStore(ctx, c.storePath())
		switch {
		case err == nil:
			s.noteStore(c, nil)
			return out, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !errors.Is(err, fs.ErrNotExist):
			s.problems.Error(c.storePath(), "cannot read Cursor store.db", "err", err)
			s.noteStore(c, err)
			return nil, err
		}
	}
	if !validID(id) || s.dir == "" {
		return nil, session.ErrNotFound
	}
	t := s.transcripts()[id]
	if t == nil {
		return nil, session.ErrNotFound
	}
	if t.badErr != nil {
		return nil, t.badErr // a pipe is never opened
	}
	out, bad, err := fromTranscript(ctx, t.transcript)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && out == nil:
		s.problems.Error(t.transcript, "cannot read Cursor transcript", "err", err)
		return nil, err
	}
	if err != nil || bad > 0 {
		s.problems.Error(t.transcript, "Cursor transcript partly unreadable; showing what could be read",
			"bad_lines", bad, "err", err)
	}
	return out, nil
}

// WatchDirs returns the directories whose changes can change Scan's result:
// chats/ and each chats/<ws>/ (a new chat appears there), the folders of
// the chats the last Scan listed (their files are written there), and the
// transcript folders when transcripts were read.
func (s *Scanner) WatchDirs() []string {
	if s.dir == "" {
		return nil
	}
	s.mu.Lock()
	watch := s.watch
	s.mu.Unlock()
	if watch != nil {
		return slices.Clone(watch)
	}
	return s.baseWatchDirs()
}

func (s *Scanner) baseWatchDirs() []string {
	var dirs []string
	root := s.chatsDir()
	if isDir(root) {
		dirs = append(dirs, root)
		names, _ := readDirNames(root)
		slices.Sort(names)
		for _, n := range names {
			if p := filepath.Join(root, n); isDir(p) {
				dirs = append(dirs, p)
			}
		}
	}
	return dirs
}

// watchDirs is WatchDirs after a scan whose stat pass listed the folders
// in listed (chats/ and its workspace folders, as baseWatchDirs finds them).
func (s *Scanner) watchDirs(p *pass, listed []string) []string {
	dirs := slices.Clone(listed)
	seen := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		seen[d] = true
	}
	for _, info := range p.out {
		c := p.lookup(info.ID)
		if c == nil {
			continue
		}
		d := c.dir
		if c.transcript != "" {
			d = filepath.Dir(c.transcript)
		}
		if d != "" && !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// prune keeps the cached summaries the last scan used and forgets the
// rest, so the cache stays the size of one listing. Problems stay
// remembered (and unlogged) until their file is gone.
func (s *Scanner) prune(used map[string]bool) {
	s.summaries.Prune(used)
	s.problems.ForgetGone(func(p string) bool { return used[p] || used[filepath.Dir(p)] || p == "processes" })
}
