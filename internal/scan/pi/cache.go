package pi

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"

	"paddock/internal/scan/filesig"
	"paddock/internal/scan/jsonl"
	"paddock/internal/session"
)

// The scanner's per-file caches: a summary per listed file and a header id
// per file, each valid for one file version (size, mtime, inode).

// find locates the newest session file whose header id is id. Header ids
// already known (from earlier scans and lookups) and file names, which
// carry the id as a hint (<timestamp>_<id>.jsonl), are tried first, newest
// file first; only when neither finds it are the other files' headers read
// (once per file version).
func (s *Scanner) find(ctx context.Context, id string) (candidate, error) {
	if s.dir == "" || !validID(id) {
		return candidate{}, session.ErrNotFound
	}
	cands, _, err := s.walk(ctx)
	if err != nil {
		return candidate{}, err
	}
	for _, c := range cands {
		if known, ok := s.cachedHeader(c); ok {
			if known == id {
				return c, nil
			}
		} else if c.nameID == id && s.header(c) == id {
			return c, nil
		}
	}
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return candidate{}, err
		}
		if _, ok := s.cachedHeader(c); !ok && s.header(c) == id {
			return c, nil
		}
	}
	return candidate{}, session.ErrNotFound
}

func (s *Scanner) cachedHeader(c candidate) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.heads[c.path]
	return e.id, ok && e.sig == c.sig
}

// summary returns the cached summary of c, reading the file when it changed.
func (s *Scanner) summary(c candidate) *summary {
	if sum, ok := s.cachedSummary(c); ok {
		return sum
	}
	fr := fileRead{sum: &summaryBuilder{}}
	return s.loadSummary(c, &fr)
}

// sessionSummary is summary for Session. When it has to read the file, it
// reads the conversation too and keeps it for the next Conversation of
// this file version (handoff): the session page asks for a session's Info
// and then for its conversation, and a long file is parsed once.
func (s *Scanner) sessionSummary(c candidate) *summary {
	if sum, ok := s.cachedSummary(c); ok {
		return sum
	}
	fr := fileRead{sum: &summaryBuilder{}, t: &transcript{}}
	sum := s.loadSummary(c, &fr)
	if t, err := fr.transcript(); t != nil && sum.listable {
		h := &handoff{path: c.path, sig: c.sig, msgs: t.messages(), badLines: t.badLines, err: err}
		s.mu.Lock()
		s.handoff = h
		s.mu.Unlock()
	}
	return sum
}

func (s *Scanner) cachedSummary(c candidate) (*summary, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.sums[c.path]
	return e.sum, ok && e.sig == c.sig
}

// loadSummary reads c into fr, which holds a summary builder, and caches
// the summary.
func (s *Scanner) loadSummary(c candidate, fr *fileRead) *summary {
	s.parses.Add(1)
	var sum *summary
	err := fr.open(c.path, c.sig.Size)
	switch {
	case err != nil:
		if !errors.Is(err, fs.ErrNotExist) {
			s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		}
		sum = &summary{}
	default:
		if sum = fr.summary(); sum.readErr != nil || sum.badLines > 0 {
			s.problems.Error(c.path, "Pi session file partly unreadable; listing what could be read",
				"bad_lines", sum.badLines, "err", sum.readErr)
		}
	}
	s.mu.Lock()
	s.sums[c.path] = sumEntry{sig: c.sig, sum: sum}
	if err == nil {
		s.heads[c.path] = headEntry{sig: c.sig, id: sum.id}
	}
	s.mu.Unlock()
	return sum
}

// handoff is a conversation that Session read (sessionSummary), kept for
// the next Conversation of the same file version.
type handoff struct {
	path     string
	sig      filesig.Sig
	msgs     []session.Message
	badLines int
	err      error
}

// takeHandoff returns, and forgets, the conversation Session read of c.
func (s *Scanner) takeHandoff(c candidate) (*handoff, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.handoff
	if h == nil || h.path != c.path {
		return nil, false
	}
	s.handoff = nil
	return h, h.sig == c.sig
}

// header returns the header id of c ("" when it is no Pi session), reading
// only its first line when it changed.
func (s *Scanner) header(c candidate) string {
	s.mu.Lock()
	e, ok := s.heads[c.path]
	s.mu.Unlock()
	if ok && e.sig == c.sig {
		return e.id
	}
	h, err := readHeader(c.path)
	if err != nil && !errors.Is(err, errNoHeader) {
		return "" // unreadable now; not cached, so it is tried again
	}
	s.mu.Lock()
	s.heads[c.path] = headEntry{sig: c.sig, id: h.id}
	s.mu.Unlock()
	return h.id
}

// readHeader reads and checks the first line of the file at path.
func readHeader(path string) (header, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	line, tooLong, err := jsonl.NewReader(f, maxLineBytes).Next()
	if errors.Is(err, io.EOF) || tooLong {
		return header{}, errNoHeader
	}
	if err != nil {
		return header{}, err
	}
	h, err := parseHeader(line)
	if err != nil {
		return header{}, errNoHeader
	}
	return h, nil
}

// prune keeps the summaries this scan used and the header ids of files
// that still exist, so the caches stay the size of one listing and one
// header per file. Logged problems are forgotten when their file is gone.
func (s *Scanner) prune(used map[string]bool, cands []candidate) {
	exists := make(map[string]bool, len(cands))
	for _, c := range cands {
		exists[c.path] = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handoff = nil // not taken by now: the conversation was not wanted
	for p := range s.sums {
		if !used[p] {
			delete(s.sums, p)
		}
	}
	for p := range s.heads {
		if !exists[p] {
			delete(s.heads, p)
		}
	}
	s.problems.ForgetIf(func(p string) bool {
		return strings.HasPrefix(p, s.dir) && !exists[p] && !isDir(p)
	})
}
