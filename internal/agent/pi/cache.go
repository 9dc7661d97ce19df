package pi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"

	"paddock/internal/history"
	"paddock/internal/session"
)

// The scanner's per-file caches: a summary per listed file and a header id
// per file, each valid for one file version (size, mtime, inode). A
// summary also keeps where its read ended, so that a file that only grew
// is read on from there (resumePoint).

// find locates the newest session file whose header id is id. The files
// already known to carry it (findKnown) answer without a walk: a live
// session's page looks it up on every change of its file, and walking
// 10,000 files costs tens of milliseconds each time. Otherwise every file
// is walked; header ids already known and file names, which carry the id
// as a hint (<timestamp>_<id>.jsonl), are tried first, newest file first;
// only when neither finds it are the other files' headers read (once per
// file version).
func (s *Scanner) find(ctx context.Context, id string) (candidate, error) {
	if s.dir == "" || !validID(id) {
		return candidate{}, session.ErrNotFound
	}
	if c, ok := s.findKnown(id); ok {
		return c, nil
	}
	cands, _, err := s.walk(ctx)
	if err != nil {
		return candidate{}, err
	}
	for _, c := range cands {
		if c.unreadable != nil {
			continue // never opened: listed from the stat alone
		}
		if known, ok := s.cachedHeader(c); ok {
			if known == id || known == "" && c.nameID == id {
				return c, nil
			}
		} else if c.nameID == id {
			// A file without a header (broken, or unreadable now) goes by
			// the id its name carries, as Scan lists it.
			if h := s.header(c); h == id || h == "" {
				return c, nil
			}
		}
	}
	for _, c := range cands {
		if err := ctx.Err(); err != nil {
			return candidate{}, err
		}
		if c.unreadable != nil {
			continue
		}
		if _, ok := s.cachedHeader(c); !ok && s.header(c) == id {
			return c, nil
		}
	}
	return candidate{}, session.ErrNotFound
}

// findKnown returns the newest of the files whose header the scanner has
// read as id that still carry it: unchanged since (same signature), or
// with a header that, read again, names id. It stats only those files. A
// copy of the session that no scan or lookup has read yet is not among
// them, where a walk would find it by its name; the next Scan reads it
// (a new file is the newest) and lookups find it from then on.
func (s *Scanner) findKnown(id string) (candidate, bool) {
	paths := s.heads.Paths(func(h string) bool { return h == id })
	var best candidate
	found := false
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue // gone or renamed: the walk finds where it went
		}
		c, ok := s.stat(p, fs.FileInfoToDirEntry(st))
		if !ok || s.header(c) != id {
			continue
		}
		// The walk's order: newest mtime first, then path.
		if !found || c.sig.MtimeNs > best.sig.MtimeNs || c.sig.MtimeNs == best.sig.MtimeNs && c.path < best.path {
			best, found = c, true
		}
	}
	return best, found
}

func (s *Scanner) cachedHeader(c candidate) (string, bool) {
	return s.heads.Get(c.path, c.sig)
}

// summary returns the summary of c: the cached one while c is unchanged;
// when c only grew since (resumable), the cached one read on over the
// appended bytes; else a read of the whole file.
func (s *Scanner) summary(c candidate) *summary {
	if c.unreadable != nil {
		s.problems.Error(c.path, "cannot read Pi session file", "err", c.unreadable)
		return unreadable(c.unreadable)
	}
	e, sig, ok := s.sums.Last(c.path)
	if ok && sig == c.sig {
		return e.sum
	}
	var from *resumePoint
	if ok && sig.Ino != 0 && sig.Ino == c.sig.Ino && c.sig.Size > sig.Size {
		from = e.resume
	}
	return s.loadSummary(c, from)
}

// loadSummary reads c (only past from's end when from is not nil and c
// still holds what from read) and caches the summary.
func (s *Scanner) loadSummary(c candidate, from *resumePoint) *summary {
	s.parses.Add(1)
	sum, resume, err := s.readSummaryFile(c.path, c.sig.Size, from)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		sum = &summary{} // removed since the stat: gone, not broken
	case err != nil:
		// Not cached: a permission put right shows at the next scan,
		// whose stat says nothing changed.
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return unreadable(err)
	case sum.readErr != nil || sum.badLines > 0:
		s.problems.Error(c.path, "Pi session file partly unreadable; listing what could be read",
			"bad_lines", sum.badLines, "err", sum.readErr)
	}
	s.sums.Put(c.path, c.sig, sumEntry{sum: sum, resume: resume})
	if err == nil {
		s.heads.Put(c.path, c.sig, sum.id)
	}
	return sum
}

// readSummaryFile summarises the first size bytes of the file at path
// (its size when stat'ed, so that a line appended meanwhile is not
// half-read): only the bytes past from's end when from is not nil and the
// file still holds what from read, else all of them. It returns where a
// later read of the grown file can go on from (nil: it cannot).
func (s *Scanner) readSummaryFile(path string, size int64, from *resumePoint) (*summary, *resumePoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := countingReaderAt{r: f, n: &s.readBytes}
	ctx := context.Background()
	var fr fileRead
	if from != nil && from.end < size && from.holds(r) {
		fr = fileRead{sum: from.builder(), header: true}
		fr.readRange(ctx, io.NewSectionReader(r, from.end, size-from.end), from.end, size, false)
	} else {
		from = nil
		fr = fileRead{sum: &summaryBuilder{}}
		fr.readFile(ctx, r, size, size)
	}
	resume := resumeAt(r, &fr, size, from)
	return fr.summary(), resume, nil
}

// resumeCheckBytes is how much of a file's start, and of its bytes before
// a resume point, must be unchanged for a read to go on there: with the
// same inode and a larger size, a file whose header or old end changed
// was rewritten (Pi migrates an old file in place), not appended to.
const resumeCheckBytes = 256

// resumePoint is where a summary read of a file ended and how to go on
// from there. A live session's file grows by appends, each of which
// changes its signature, and summarising a 50 MB file from its start on
// every change would read all of it for a few new lines. A summary
// builder folds a file's lines in order, so the grown file's summary is
// the old builder read on over the appended lines.
//
// Read on, it has parsed whole the lines that were in the old tail
// (tailBytes) and are in the middle now, where a whole read only looks
// for markers: it may know more than a whole read would (an assistant
// turn's model, a broken line counted), never less.
type resumePoint struct {
	b          summaryBuilder // as the read left it, before finishing
	end        int64          // the bytes read: whole lines
	head, tail []byte         // the first and last resumeCheckBytes of them; tail ends in "\n"
}

// resumeAt returns where fr's read of the first size bytes of r can be
// read on from, or nil when it cannot: the read stopped early, the file
// is no session, the head (headLines) is not all read (a short file is
// read whole again), or the last line has no newline yet (Pi may be
// writing it). from is where fr's read started (nil: at the start), so
// past the head and with the file's first bytes known.
func resumeAt(r io.ReaderAt, fr *fileRead, size int64, from *resumePoint) *resumePoint {
	if !fr.header || fr.err != nil || from == nil && fr.lines <= headLines {
		return nil
	}
	n := min(size, resumeCheckBytes)
	var head []byte
	if from != nil {
		head = from.head
	} else {
		head = readAt(r, 0, n)
	}
	tail := readAt(r, size-n, n)
	if head == nil || tail == nil || tail[n-1] != '\n' {
		return nil
	}
	return &resumePoint{b: *fr.sum.clone(), end: size, head: head, tail: tail}
}

// holds reports whether r still has p's first bytes and its bytes before
// p's end.
func (p *resumePoint) holds(r io.ReaderAt) bool {
	return bytes.Equal(readAt(r, 0, int64(len(p.head))), p.head) &&
		bytes.Equal(readAt(r, p.end-int64(len(p.tail)), int64(len(p.tail))), p.tail)
}

// readAt returns the n bytes of r at off; nil when they cannot all be read.
func readAt(r io.ReaderAt, off, n int64) []byte {
	b := make([]byte, n)
	if k, _ := r.ReadAt(b, off); int64(k) < n {
		return nil
	}
	return b
}

// builder returns a copy of p's builder to read on with: p is cached and
// shared, and stays as it is.
func (p *resumePoint) builder() *summaryBuilder { return p.b.clone() }

// countingReaderAt counts the bytes read through it, into n.
type countingReaderAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// header returns the header id of c ("" when it is no Pi session), reading
// only its first line when it changed.
func (s *Scanner) header(c candidate) string {
	if c.unreadable != nil {
		return "" // a pipe is never opened
	}
	if id, ok := s.heads.Get(c.path, c.sig); ok {
		return id
	}
	h, err := readHeader(c.path)
	if err != nil && !errors.Is(err, errNoHeader) {
		return "" // unreadable now; not cached, so it is tried again
	}
	s.heads.Put(c.path, c.sig, h.id)
	return h.id
}

// readHeader reads and checks the first line of the file at path.
func readHeader(path string) (header, error) {
	f, err := os.Open(path)
	if err != nil {
		return header{}, err
	}
	defer f.Close()
	line, tooLong, err := history.NewLineReader(f, maxLineBytes).Next()
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
// Every scan prunes, so it looks up among the walk's files only the paths
// it must: those with a known header (usually the few listed, not the
// whole history) and those of logged problems (usually none).
func (s *Scanner) prune(used map[string]bool, cands []candidate) {
	s.sums.Prune(used)
	known := make(map[string]bool)
	for _, p := range s.heads.Paths(func(string) bool { return true }) {
		known[p] = false
	}
	for _, c := range cands {
		if _, ok := known[c.path]; ok {
			known[c.path] = true
		}
	}
	s.heads.Prune(known)
	var exists map[string]bool // built for the first problem that needs it
	s.problems.ForgetIf(func(p string) bool {
		if !strings.HasPrefix(p, s.dir) {
			return false
		}
		if exists == nil {
			exists = make(map[string]bool, len(cands))
			for _, c := range cands {
				exists[c.path] = true
			}
		}
		return !exists[p] && !isDir(p)
	})
}
