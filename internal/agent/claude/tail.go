package claude

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"

	"paddock/internal/history"
	"paddock/internal/session"
)

// TailConversation returns the last n (n < 1 counts as 1) messages of
// what Conversation returns, oldest first, and whether they are all of it
// (complete). It parses a window at the end of the transcript and grows it
// until records before it can no longer change the answer; reading the
// whole file is its last resort, never a different answer. Errors are
// Conversation's.
func (s *Scanner) TailConversation(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, false, session.ErrNotFound
	}
	tl, err := tailFile(ctx, c.path, max(n, 1), history.FirstWindow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case tl == nil:
		s.problems.Error(c.path, "cannot read Claude transcript", "err", err)
		return nil, false, err
	}
	if err != nil || tl.badLines > 0 {
		s.problems.Error(c.path, "Claude transcript partly unreadable; showing what could be read",
			"bad_lines", tl.badLines, "err", err)
	}
	return tl.msgs, tl.complete, nil
}

// tailRead is what a tail read found.
type tailRead struct {
	msgs     []session.Message
	complete bool
	badLines int   // in the lines parsed last
	read     int64 // bytes read from the file, for tests
}

// tailFile reads the last n messages of the transcript at path, starting
// with a window of window bytes. As readTranscript, it returns what was
// read with the error that ended a full read early, and nil when the file
// cannot be read at all.
func tailFile(ctx context.Context, path string, n int, window int64) (*tailRead, error) {
	f, err := history.OpenTail(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	w := f.Window()
	for lines := range w.Grow(window) {
		t := &transcript{}
		if err := t.read(ctx, bytes.NewReader(lines)); err != nil {
			return nil, err // only the context: the window is in memory
		}
		if msgs, ok := t.tail(n); ok {
			return &tailRead{msgs: msgs, badLines: t.badLines, read: f.Read()}, nil
		}
	}
	whole, end := w.Whole()
	t, err := readTranscript(ctx, io.NewSectionReader(whole, 0, end))
	msgs := t.messages()
	return &tailRead{msgs: slices.Clone(msgs[max(len(msgs)-n, 0):]), complete: len(msgs) <= n,
		badLines: t.badLines, read: f.Read()}, err
}

// tail returns the last n messages of the conversation whose last records
// t holds (a window at the end of the file), and false when records before
// the window could change them or when it holds n or fewer (so whether any
// came before is not known): the caller reads more.
//
// Each parentUuid the window holds is the file's (the last record with a
// uuid wins, and it is in the window), and so is the leaf when the window
// has one (a message record with a uuid is a leaf candidate, so without
// one the window shows only records outside the tree). The branch walked
// from the leaf is then the file's up to where it leaves the window, and a
// record's status is the file's unless it says unknown (branchTest,
// open). The messages after the last record whose status is unknown are
// the file's, but for the first of them, which may continue an answer
// split over lines before it (same message.id): it only counts as one
// that came before the last n.
//
// One file is beyond any window: a parentUuid cycle through records on
// both sides of the window's edge, where the branch leaves the window and
// comes back to a record that the window then finds abandoned. Claude
// never writes one (a parent is always written before its child); only a
// hand-edited file could, and its conversation has no meaning to keep.
func (t *transcript) tail(n int) ([]session.Message, bool) {
	b := t.findBranch(true)
	from := 0
	for i := len(t.records) - 1; i >= 0; i-- {
		if r := t.records[i]; r.msg != nil && r.uuid != "" && b.status(r.uuid) == statusUnknown {
			from = i + 1
			break
		}
	}
	out := branchMessages(t.records[from:], b.test)
	if len(out) <= n {
		return nil, false
	}
	return out[len(out)-n:], true
}
