// What the user is told when an agent's history cannot be read: a
// session whose file is partly or wholly unreadable carries a short
// reason (session.Info.Error), and a source a scan could not read — a
// directory it cannot list, a database it cannot copy or open — is
// named with one (Problems). The words are chosen here, from the error's
// kind, never taken from the error's text: that names paths and Go
// internals, and a file's content must never reach a reason.

package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"paddock/internal/session"
)

// ErrNotRegular is why a history file's name on something that is no
// regular file (a pipe, a socket, a device) cannot be read. Such a file
// is listed as unreadable and never opened: opening a pipe would wait
// for a writer.
var ErrNotRegular = errors.New("it is not a regular file")

// Reason is err in a few words a user may read: the system's own words
// for the error number it carries ("permission denied", "input/output
// error"), SQLite's kind of failure, or a plain description.
func Reason(err error) string {
	var errno syscall.Errno
	var coded interface{ Code() int }
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return "reading it took too long"
	case errors.Is(err, ErrNotRegular):
		return ErrNotRegular.Error()
	case errors.As(err, &errno):
		return errno.Error() // a fixed text per number, no path
	case errors.As(err, &coded):
		return sqliteReason(coded.Code())
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, fs.ErrNotExist):
		return "it is gone"
	}
	return "an unexpected error (the log has the details)"
}

// sqliteReason names a SQLite result code's kind (the primary code is
// the extended code's low byte).
func sqliteReason(code int) string {
	switch code & 0xff {
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return "the database is locked"
	case 10: // SQLITE_IOERR
		return "input/output error"
	case 11: // SQLITE_CORRUPT
		return "the database is damaged"
	case 14: // SQLITE_CANTOPEN
		return "the database cannot be opened"
	case 26: // SQLITE_NOTADB
		return "it is not a SQLite database"
	}
	return "a database error"
}

// Unreadable is the Error of a session whose history file cannot be read
// at all.
func Unreadable(err error) string { return "the file cannot be read: " + Reason(err) }

// PartlyRead is the Error of a session some of whose history could not
// be read: bad units ("line", "record") that could not be parsed, beside
// good ones that could, and stopped, the error that ended reading early
// (nil: none). It is "" when everything read was read whole.
func PartlyRead(bad, good int, unit string, stopped error) string {
	var parts []string
	switch {
	case bad == 1 && good == 0:
		parts = append(parts, "its only "+unit+" could not be read")
	case bad > 0 && good == 0:
		parts = append(parts, fmt.Sprintf("none of its %d %ss could be read", bad, unit))
	case bad == 1:
		parts = append(parts, "1 "+unit+" could not be read")
	case bad > 1:
		parts = append(parts, fmt.Sprintf("%d %ss could not be read", bad, unit))
	}
	if stopped != nil {
		parts = append(parts, "reading stopped early: "+Reason(stopped))
	}
	return strings.Join(parts, "; ")
}

// StatHistory stats the history file at path for a listing, following a
// symlink; lst is its Lstat when the caller has one (nil: taken here).
// ok is false when there is nothing to list: the name is gone, a link
// leads nowhere (err says so, for a log) or it is a directory. Otherwise
// st describes the file and err is nil for a regular file, or why it
// cannot be read (ErrNotRegular; the error following a link, such as a
// loop) — then st is the name's own stat, so that the session is listed,
// unreadable, with the time it has.
func StatHistory(path string, lst fs.FileInfo) (st fs.FileInfo, ok bool, err error) {
	if lst == nil {
		if lst, err = os.Lstat(path); err != nil {
			return nil, false, err
		}
	}
	st = lst
	if lst.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, false, err
		case err != nil:
			return lst, true, err
		}
		st = target
	}
	switch {
	case st.Mode().IsRegular():
		return st, true, nil
	case st.IsDir():
		return nil, false, nil
	}
	return st, true, ErrNotRegular
}

// Problems are the sources a scanner could not read on its last scan,
// each with its reason, for the catalog to name on the board. A scan
// calls Begin, Adds what it meets, and End: only then do its problems
// replace the last scan's, so a scan cut short changes nothing. It is
// safe for concurrent use; scans of one scanner come one at a time (the
// catalog runs them so), and two that overlapped would only mix their
// lists.
type Problems struct {
	mu   sync.Mutex
	next map[string]string // the scan under way: source → reason
	last []session.SourceProblem
}

// Begin starts collecting a scan's problems.
func (p *Problems) Begin() {
	p.mu.Lock()
	p.next = make(map[string]string)
	p.mu.Unlock()
}

// Add records that source could not be read or used, for reason (a
// phrase that completes "<source> …": "cannot be listed: permission
// denied"). Outside a scan it is dropped: the next scan meets the problem
// again if it is still there.
func (p *Problems) Add(source, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next != nil {
		if _, dup := p.next[source]; !dup {
			p.next[source] = reason
		}
	}
}

// End makes the problems since Begin the last scan's.
func (p *Problems) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == nil {
		return
	}
	last := make([]session.SourceProblem, 0, len(p.next))
	for src, reason := range p.next {
		last = append(last, session.SourceProblem{Source: src, Reason: reason})
	}
	slices.SortFunc(last, func(a, b session.SourceProblem) int { return cmp.Compare(a.Source, b.Source) })
	p.last, p.next = last, nil
}

// Last returns the last finished scan's problems, by source.
func (p *Problems) Last() []session.SourceProblem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.last)
}

// Ended reports whether the last line Next returned ended in a newline.
// One that did not may be a record its agent is still writing rather
// than a broken one: listing counts it as bad only in a file with no
// good line.
func (r *LineReader) Ended() bool { return len(r.eol) > 0 && r.eol[len(r.eol)-1] == '\n' }
