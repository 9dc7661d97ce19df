// Package pi lists Pi coding agent sessions and loads their conversations
// from Pi's own files: <agent dir>/sessions/**/*.jsonl, one file per
// session, whose first line is the session header.
//
// It is read-only except for Delete: it never writes, creates, renames,
// touches or locks anything under the agent directory, never migrates an
// old file the way Pi does when it opens one, and never starts or signals
// Pi. Delete, run only when the user asks, removes one session's file and
// nothing else.
//
// A session's identity is its header id, never its file name. Listing
// stats every file, then reads the newest until the limit is filled, each
// once per file version (size, mtime, inode).
package pi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
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

const runtimeName = "pi"

// Options configure a Scanner.
type Options struct {
	// Dir is Pi's agent directory: $PI_CODING_AGENT_DIR or ~/.pi/agent
	// (DefaultDir). "" finds no sessions.
	Dir string
	// Processes returns the running agent CLIs (procscan.Matcher.Agents,
	// or the snapshot the caller shares among scanners); nil: no liveness.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// TerminalSession returns the session a hosted terminal
	// (PADDOCK_TERMINAL_ID) runs, as a header id or a session file path,
	// or "" when unknown. paddock's live state knows it (the terminal's
	// Resume id, or what its Pi extension reported). nil: terminal ids
	// bind nothing.
	TerminalSession func(terminalID string) string
	Logger          *slog.Logger // nil: discard
}

// DefaultDir returns Pi's agent directory the way Pi resolves it:
// $PI_CODING_AGENT_DIR when set ("~" and "~/…" expanded), else
// ~/.pi/agent; "" when neither can be determined.
func DefaultDir() string {
	home, herr := os.UserHomeDir()
	if d := os.Getenv("PI_CODING_AGENT_DIR"); d != "" {
		if d == "~" || strings.HasPrefix(d, "~/") {
			if herr != nil {
				return ""
			}
			d = filepath.Join(home, d[1:])
		}
		return d
	}
	if herr != nil {
		return ""
	}
	return filepath.Join(home, ".pi", "agent")
}

// Scanner reads Pi sessions. It is safe for concurrent use.
type Scanner struct {
	dir         string // absolute, clean; "" = none
	sessions    string // dir/sessions
	home        string // for Project "~"
	procs       func(ctx context.Context) ([]procscan.AgentProcess, error)
	termSession func(string) string

	// dirExists answers whether a session's cwd is still there; tests
	// replace it (the recordings' cwds exist only on the recording machine).
	dirExists func(string) bool
	// parses counts summary reads, so tests can tell a cache hit from a
	// re-read without timing anything; readBytes counts the bytes those
	// reads took from files, so they can tell a file read on from where
	// its last read ended (resumePoint) from one read whole.
	parses    atomic.Int64
	readBytes atomic.Int64
	// walks counts walks of the sessions tree, so tests can tell a lookup
	// answered from the known headers from one that listed every file.
	walks atomic.Int64

	sums     history.SummaryCache[history.Sig, sumEntry] // by path: what the last scans read
	heads    history.SummaryCache[history.Sig, string]   // by path: header ids ("" for no Pi session), for lookups by id
	problems *history.OnceLog                            // problems already logged, by path or topic
	sources  history.Problems                            // folders the last scan could not read

	mu   sync.Mutex
	dirs []string // directories of the last walk
}

type sumEntry struct {
	sum    *summary
	resume *resumePoint // nil: the next read of the file is whole
}

// New returns a Scanner over opts.Dir.
func New(opts Options) *Scanner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := opts.Dir
	if dir != "" {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
	}
	home, _ := os.UserHomeDir()
	return &Scanner{
		dir:         dir,
		sessions:    filepath.Join(dir, "sessions"),
		home:        home,
		procs:       opts.Processes,
		termSession: opts.TerminalSession,
		dirExists:   isDir,
		problems:    history.NewOnceLog(log.With("runtime", runtimeName)),
	}
}

// Runtime names the runtime: "pi".
func (s *Scanner) Runtime() string { return runtimeName }

func (s *Scanner) sessionsDir() string { return s.sessions }

// Scan lists up to limit sessions from the per-cwd folders and, apart, up
// to limit from legacy isolation folders (corral-*/, pickup-*/), newest effective time first; sessions whose header id is in keep
// are added beyond both limits. A negative limit lists everything. A
// missing agent or sessions directory is an empty list, not an error; an
// unreadable sessions directory is an error.
//
// Sessions whose cwd lies in an ephemeral oc-manager-* directory are left
// out, and so are those whose cwd no longer exists (they cannot be
// resumed) unless Pi still runs them (history.Memo.Listable), as are
// files whose first line is not a session header. When one id is in
// several files (a session copied out of an isolation folder) the newest
// file is it.
//
// Files are taken newest mtime first and the result sorted by effective
// time, so a file a sync tool touched can take a place in the limit that
// its old effective time would not earn; finding the exact top by
// effective time would mean reading every touched file.
//
// A file unchanged since the last scan (same signature) is not read again:
// its summary is cached.
func (s *Scanner) Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error) {
	if s.dir == "" {
		return nil, nil
	}
	s.sources.Begin()
	cands, dirs, err := s.walk(ctx)
	if err != nil {
		return nil, err
	}
	claims, _ := s.claims(ctx)
	claims = resolvePrefixes(claims, cands)
	keep = slices.Sorted(slices.Values(keep))
	keep = slices.Compact(keep)

	s.mu.Lock()
	s.dirs = dirs
	s.mu.Unlock()

	p := pass{s: s, claims: claims, cwds: history.NewDirMemo(s.dirExists), seen: make(map[string]bool), used: make(map[string]bool)}
	heap, iso := 0, 0
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if limit >= 0 {
			if heap >= limit && iso >= limit {
				break
			}
			if c.isolated && iso >= limit || !c.isolated && heap >= limit {
				continue
			}
		}
		if p.add(c) {
			if c.isolated {
				iso++
			} else {
				heap++
			}
		}
	}
	p.addKept(cands, keep)
	s.prune(p.used, cands)
	s.sources.End()

	slices.SortStableFunc(p.out, func(a, b session.Info) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	})
	return p.out, nil
}

// Problems are the folders the last Scan could not read: their sessions
// may be missing from its list.
func (s *Scanner) Problems() []session.SourceProblem { return s.sources.Last() }

// pass is the state of one Scan.
type pass struct {
	s      *Scanner
	claims []claim
	cwds   *history.DirMemo // cwd existence, for this scan
	seen   map[string]bool  // header ids already decided
	used   map[string]bool  // files whose summary this scan used
	out    []session.Info
}

// add lists c if it is a session to show whose id is new, and says so.
func (p *pass) add(c candidate) bool {
	sum := p.s.summary(c)
	p.used[c.path] = true
	id, ok := sessionID(c, sum)
	if !ok || p.seen[id] {
		return false
	}
	p.seen[id] = true
	_, live := pidFor(p.claims, id, c.path)
	if !sum.listable || !p.cwds.Listable(sum.cwd, live, false) {
		return false
	}
	p.out = append(p.out, p.s.info(c, sum, p.claims))
	return true
}

// sessionID is the id c is listed under: its header's, or for a file
// listed for its problem without one (unreadable, or broken from its
// first line) the id its name carries.
func sessionID(c candidate, sum *summary) (string, bool) {
	switch {
	case sum.valid:
		return sum.id, true
	case sum.broken() && validID(c.nameID):
		return c.nameID, true
	}
	return "", false
}

// addKept adds the sessions named in keep that the limits left out. Files
// whose name carries a wanted id are tried first; only when some id is
// still missing are the other files' headers read (once per file version).
func (p *pass) addKept(cands []candidate, keep []string) {
	want := make(map[string]bool)
	for _, id := range keep {
		if !p.seen[id] && validID(id) {
			want[id] = true
		}
	}
	if len(want) == 0 {
		return
	}
	for _, byName := range []bool{true, false} {
		for _, c := range cands {
			if len(want) == 0 {
				return
			}
			if byName && !want[c.nameID] || p.used[c.path] {
				continue
			}
			if id := p.s.header(c); want[id] {
				delete(want, id)
				p.add(c)
			}
		}
	}
}

// Session returns one session's Info by header id, even when it is beyond
// Scan's limits or its cwd is gone; session.ErrNotFound when no file has
// that id or it has nothing to show.
func (s *Scanner) Session(ctx context.Context, id string) (session.Info, error) {
	c, err := s.find(ctx, id)
	if err != nil {
		return session.Info{}, err
	}
	// The summary only, never the conversation: what follows is mostly
	// TailConversation (the session page's first page), which would not
	// use it, and a long conversation costs about three summaries to parse.
	sum := s.summary(c)
	if got, _ := sessionID(c, sum); !sum.listable || got != id || history.EphemeralDir(sum.cwd) {
		return session.Info{}, session.ErrNotFound
	}
	claims, _ := s.claims(ctx)
	if slices.ContainsFunc(claims, func(c claim) bool { return c.kind == claimPrefix }) {
		cands, _, _ := s.walk(ctx)
		claims = resolvePrefixes(claims, cands)
	}
	return s.info(c, sum, claims), nil
}

// Conversation returns the user and assistant text of a session's current
// branch, in order (session.ErrNotFound when no file has that id).
func (s *Scanner) Conversation(ctx context.Context, id string) ([]session.Message, error) {
	c, err := s.find(ctx, id)
	if err != nil {
		return nil, err
	}
	msgs, t, err := conversation(ctx, c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case t == nil:
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return nil, err
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(c.path, "Pi session file partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return msgs, nil
}

// FileOf returns the session file of a header id: what Pi's
// `--session FILE` takes to resume it. session.ErrNotFound when no file
// has that id.
func (s *Scanner) FileOf(ctx context.Context, id string) (string, error) {
	c, err := s.find(ctx, id)
	if err != nil {
		return "", err
	}
	return c.path, nil
}

// IDOf returns the header id of the Pi session file at path, which need
// not be under Dir (`pi --session FILE` takes any file). It reads only the
// first line. session.ErrNotFound when there is no such file; an error
// when the file is not a Pi session.
func IDOf(path string) (string, error) {
	h, err := readHeader(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", session.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("pi: %s: %w", path, err)
	}
	return h.id, nil
}

// WatchDirs returns the directories whose changes can change Scan's
// result: sessions/ and every folder below it, as the last walk found
// them; the agent directory itself while sessions/ does not exist yet.
func (s *Scanner) WatchDirs() []string {
	if s.dir == "" {
		return nil
	}
	s.mu.Lock()
	dirs := slices.Clone(s.dirs)
	s.mu.Unlock()
	if len(dirs) == 0 {
		if isDir(s.sessionsDir()) {
			_, dirs, _ = s.walk(context.Background())
		} else if isDir(s.dir) {
			dirs = []string{s.dir}
		}
	}
	return dirs
}

// info builds the list entry of a session file.
func (s *Scanner) info(c candidate, sum *summary, claims []claim) session.Info {
	updated, source := session.EffectiveTime(c.mtime(), sum.lastEvent)
	id, _ := sessionID(c, sum)
	info := session.Info{
		Runtime:     runtimeName,
		ID:          id,
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
	if pid, ok := pidFor(claims, id, c.path); ok {
		info.Live, info.PID = true, pid
	}
	return info
}
