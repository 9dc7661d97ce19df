// Package claude lists Claude Code sessions and loads their conversations
// from Claude's own files: the transcripts in <config>/projects/*/<id>.jsonl
// and the live-session registry in <config>/sessions/<pid>.json.
//
// It is read-only except for Delete: it never writes, creates, renames,
// touches or locks anything under the Claude config directory, and never
// starts or signals Claude. Delete, run only when the user asks, removes
// one session's own files and nothing else. Listing is lazy:
// it stats every candidate transcript, then reads only the head and tail of
// the newest ones until the limit is filled, caching each file's summary by
// path and history.Sig (size, mtime, inode) so a rescan re-reads only files
// that changed.
package claude

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"

	"paddock/internal/history"
	"paddock/internal/session"
)

const runtimeName = "claude"

// Options configure a Scanner.
type Options struct {
	Dir string // Claude config dir: $CLAUDE_CONFIG_DIR or ~/.claude (see DefaultDir)
	// KeepMissingCwd lists sessions whose working directory no longer
	// exists. By default Scan drops them (a session that
	// cannot be resumed where it ran), unless Claude still runs them;
	// tests and tools reading copied histories set it.
	KeepMissingCwd bool
	Logger         *slog.Logger // nil => discard
}

// DefaultDir returns Claude Code's config directory the way Claude resolves
// it: $CLAUDE_CONFIG_DIR when set, else ~/.claude. It returns "" when
// neither can be determined; a Scanner on "" finds no sessions.
func DefaultDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// Scanner reads Claude Code sessions. It is safe for concurrent use.
type Scanner struct {
	dir            string
	home           string // for Project "~"
	keepMissingCwd bool

	// cwdChecks counts the working directories scans stat'ed (tests).
	cwdChecks atomic.Int64

	cache    history.SummaryCache[history.Sig, *summary] // by transcript path
	problems *history.OnceLog                            // problems already logged, by path
	sources  history.Problems                            // directories the last scan could not read
}

// New returns a Scanner over opts.Dir.
func New(opts Options) *Scanner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	home, _ := os.UserHomeDir()
	return &Scanner{
		dir:            opts.Dir,
		home:           home,
		keepMissingCwd: opts.KeepMissingCwd,
		problems:       history.NewOnceLog(log.With("runtime", runtimeName)),
	}
}

// Runtime names the runtime: "claude".
func (s *Scanner) Runtime() string { return runtimeName }

func (s *Scanner) projectsDir() string { return filepath.Join(s.dir, "projects") }
func (s *Scanner) sessionsDir() string { return filepath.Join(s.dir, "sessions") }

// Scan lists up to limit valid top-level sessions, newest effective time
// first. Sessions whose id is in keep are included even beyond limit (if
// found). A negative limit lists every session. A missing config or
// projects directory is an empty list, not an error: Claude is simply not
// installed.
//
// Sessions of an ephemeral working directory are never listed, nor,
// unless Claude still runs them or KeepMissingCwd is set, those whose
// directory is gone; a dropped session takes no slot
// of limit. The recorded cwd is in the transcript, so a dropped session
// still costs its head/tail read; each distinct directory is stat'ed once
// per scan.
//
// Candidates are taken newest mtime first and sorted by effective time at
// the end; a session whose mtime is new but whose effective time is old can
// therefore push out one with an older mtime. Finding the exact top by
// effective time would mean parsing every file whose mtime a sync tool has
// touched, which is the cost listing must not have.
func (s *Scanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	if s.dir == "" {
		return nil, nil
	}
	s.sources.Begin()
	cands, err := s.candidates(ctx)
	if err != nil {
		return nil, err
	}
	p := pass{
		s:    s,
		pids: readPidFiles(s.sessionsDir()),
		cwds: history.NewDirMemo(s.checkCwd),
		seen: make(map[string]bool),
		used: make(map[string]bool),
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
	p.addKept(cands, keep)
	s.prune(p.used)
	s.sources.End()

	slices.SortStableFunc(p.out, func(a, b session.Info) int {
		if c := b.Updated.Compare(a.Updated); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return p.out, nil
}

// Problems are the directories the last Scan could not read: their
// sessions may be missing from its list.
func (s *Scanner) Problems() []session.SourceProblem { return s.sources.Last() }

// pass is the state of one Scan.
type pass struct {
	s    *Scanner
	pids map[string][]pidFile
	cwds *history.DirMemo // working directories' existence, for this scan
	seen map[string]bool  // session ids already considered
	used map[string]bool  // transcripts whose summary this scan used
	out  []session.Info
}

// add lists c if it is a valid session and its id is new. Only the first
// (newest) transcript of an id counts: the same id in two project
// directories is one session, the one Session() would find.
func (p *pass) add(c candidate) {
	if p.seen[c.id] {
		return
	}
	p.seen[c.id] = true
	p.used[c.path] = true
	sum := p.s.summary(c)
	if !sum.listable {
		return
	}
	if info := p.s.info(c, sum, p.pids); p.cwdAllowed(info) {
		p.out = append(p.out, info)
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
	return isDir(dir)
}

// addKept adds the sessions named in keep that the limit left out. It walks
// the candidates once, however many ids keep holds.
func (p *pass) addKept(cands []candidate, keep []string) {
	want := make(map[string]bool)
	for _, id := range keep {
		if !p.seen[id] {
			want[id] = true
		}
	}
	for _, c := range cands {
		if len(want) == 0 {
			return
		}
		if want[c.id] {
			delete(want, c.id)
			p.add(c)
		}
	}
}

// Session returns one session's Info by id (session.ErrNotFound if there is
// no such listable session), found by globbing projects/*/<id>.jsonl. A
// session whose working directory is gone is still returned, so a
// bookmarked one opens; one of an ephemeral directory is not (as in Scan).
func (s *Scanner) Session(ctx context.Context, id string) (session.Info, error) {
	if err := ctx.Err(); err != nil {
		return session.Info{}, err
	}
	c, ok := s.find(id)
	if !ok {
		return session.Info{}, session.ErrNotFound
	}
	sum := s.summary(c)
	if !sum.listable || history.EphemeralDir(sum.cwd) {
		return session.Info{}, session.ErrNotFound
	}
	return s.info(c, sum, readPidFiles(s.sessionsDir())), nil
}

// Conversation returns the user and assistant text messages of a session in
// order, following the current branch where the transcript forks
// (session.ErrNotFound if there is no transcript).
func (s *Scanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, session.ErrNotFound
	}
	msgs, t, err := conversation(ctx, c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case t == nil:
		s.problems.Error(c.path, "cannot read Claude transcript", "err", err)
		return nil, err
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(c.path, "Claude transcript partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return msgs, nil
}

// WatchDirs returns the directories whose changes can change Scan's result:
// <Dir>/projects, every <Dir>/projects/* directory and <Dir>/sessions —
// those that exist.
func (s *Scanner) WatchDirs() []string {
	if s.dir == "" {
		return nil
	}
	var dirs []string
	projects := s.projectsDir()
	if isDir(projects) {
		dirs = append(dirs, projects)
		entries, _ := os.ReadDir(projects)
		for _, e := range entries {
			if p := filepath.Join(projects, e.Name()); isDir(p) {
				dirs = append(dirs, p)
			}
		}
	}
	if sessions := s.sessionsDir(); isDir(sessions) {
		dirs = append(dirs, sessions)
	}
	return dirs
}

// summary returns the cached summary of c, reading the file when it
// changed. A transcript that cannot be read is listed as such and not
// cached: a permission put right shows at the next scan, whose stat says
// nothing changed.
func (s *Scanner) summary(c candidate) *summary {
	if c.unreadable != nil {
		s.problems.Error(c.path, "cannot read Claude transcript", "err", c.unreadable)
		return unreadable(c.unreadable)
	}
	if sum, ok := s.cache.Get(c.path, c.sig); ok {
		return sum
	}
	sum, err := readSummary(c.path, c.sig.Size)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &summary{} // removed since the stat: gone, not broken
	case err != nil:
		s.problems.Error(c.path, "cannot read Claude transcript", "err", err)
		return unreadable(err)
	case sum.readErr != nil || sum.badLines > 0:
		s.problems.Error(c.path, "Claude transcript partly unreadable; listing what could be read",
			"bad_lines", sum.badLines, "err", sum.readErr)
	}
	s.cache.Put(c.path, c.sig, sum)
	return sum
}

// prune keeps the cached summaries of the transcripts the last scan used
// and forgets the rest, so the cache stays the size of one listing however
// long the history. Problems stay remembered (and unlogged) until their
// file is gone: a broken file beyond the limit must not be logged again on
// every rescan.
func (s *Scanner) prune(used map[string]bool) {
	s.cache.Prune(used)
	s.problems.ForgetGone(func(p string) bool { return used[p] })
}

// info builds the list entry of a transcript.
func (s *Scanner) info(c candidate, sum *summary, pids map[string][]pidFile) session.Info {
	updated, source := session.EffectiveTime(c.sig.Mtime(), sum.lastEvent)
	info := session.Info{
		Runtime:     runtimeName,
		ID:          c.id,
		Cwd:         sum.cwd,
		Project:     session.ShortProject(sum.cwd, s.home),
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
	if p, ok := liveFor(pids[c.id]); ok {
		info.Live = true
		info.PID = p.pid
		info.Tmux = p.tmux
		info.State = coarseState(p.status)
		if info.State == "waiting" {
			info.WaitingFor = p.waitingFor
		}
	}
	return info
}
