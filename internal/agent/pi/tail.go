package pi

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

// headerProbe is how much of the file's start is read for the header,
// which is a few hundred bytes; a longer one is read whole.
const headerProbe = 4 << 10

// TailConversation returns the last n (n < 1 counts as 1) messages of
// what Conversation returns, oldest first, and whether they are all of it
// (complete). It checks the header, then parses a window at the end of the
// file and grows it until entries before it can no longer change the
// answer; reading the whole file is its last resort, never a different
// answer. Errors are Conversation's.
func (s *Scanner) TailConversation(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
	c, err := s.find(ctx, id)
	if err != nil {
		return nil, false, err
	}
	tl, err := tailFile(ctx, c.path, max(n, 1), history.FirstWindow)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case tl == nil:
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return nil, false, err
	}
	if err != nil || tl.badLines > 0 {
		s.problems.Error(c.path, "Pi session file partly unreadable; showing what could be read",
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

// tailFile reads the last n messages of the session file at path,
// starting with a window of window bytes. As readTranscript, it returns
// what was read with the error that ended a full read early, and nil when
// the file cannot be read or is no session.
func tailFile(ctx context.Context, path string, n int, window int64) (*tailRead, error) {
	f, err := history.OpenTail(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The header decides whether the file is a session at all; nothing
	// else of it (its version only labels the file) changes the messages.
	if err := tailHeader(f, f.Size()); err != nil {
		return nil, err
	}
	w := f.Window()
	for lines := range w.Grow(window) {
		fr := fileRead{t: &transcript{}}
		fr.readRange(ctx, bytes.NewReader(lines), 0, 0, false)
		if fr.err != nil {
			return nil, fr.err // only the context: the window is in memory
		}
		fr.t.indexIDs()
		if msgs, complete, ok := fr.t.tail(n); ok {
			return &tailRead{msgs: msgs, complete: complete, badLines: fr.t.badLines, read: f.Read()}, nil
		}
	}
	// No window answered: the whole file, in parallel ranges (readFile).
	// Its end is before Size when the windows hold a line clipped.
	whole, end := w.Whole()
	fr := fileRead{t: &transcript{}}
	fr.readFile(ctx, whole, min(f.Size(), end), end)
	t, err := fr.transcript()
	if t == nil {
		return nil, err
	}
	msgs := t.messages()
	return &tailRead{msgs: slices.Clone(msgs[max(len(msgs)-n, 0):]), complete: len(msgs) <= n,
		badLines: t.badLines, read: f.Read()}, err
}

// tailHeader checks the session header, the file's first line, as the
// whole read does (fileRead.transcript): errNoHeader when the file is
// empty or starts with anything else, the error when it cannot be read.
func tailHeader(f io.ReaderAt, size int64) error {
	buf := make([]byte, min(size, headerProbe))
	k, err := f.ReadAt(buf, 0)
	if k < len(buf) && !errors.Is(err, io.EOF) {
		return err
	}
	buf = buf[:k]
	var r io.Reader = bytes.NewReader(buf)
	if bytes.IndexByte(buf, '\n') < 0 && int64(k) < size {
		r = io.NewSectionReader(f, 0, size) // a long first line
	}
	line, clipped, err := history.NewLineReader(r, maxLineBytes).Next()
	switch {
	case errors.Is(err, io.EOF) || clipped:
		return errNoHeader
	case err != nil:
		return err
	}
	if _, err := parseHeader(line); err != nil {
		return errNoHeader
	}
	return nil
}

// tail returns the last n messages of the branch of a file whose last
// lines t holds (a window at the end of the file), whether they are the
// whole branch, and false when lines before the window could change them.
//
// The leaf is the window's last entry with an id, when it has one: the
// file's last. Each parent the walk looks up is the last entry with that
// id in the file when the window has one (the window is the file's end),
// so the walk is the file's step for step until it needs a parent the
// window lacks (walkOpen): that may be before the window, or nowhere, and
// only the whole file tells. A window without ids says nothing: the leaf
// may be before it, or the file has no ids at all (v1, file order).
func (t *transcript) tail(n int) (msgs []session.Message, complete, ok bool) {
	leaf := t.prevWithID(len(t.nodes))
	if leaf < 0 {
		return nil, false, false
	}
	// n+1 messages show that the last n are not all.
	end := t.walk(leaf, true, func(i int) bool {
		if m, has := t.msg(i); has {
			msgs = append(msgs, m)
		}
		return len(msgs) <= n
	})
	if end == walkOpen {
		return nil, false, false
	}
	complete = len(msgs) <= n
	msgs = msgs[:min(len(msgs), n)]
	slices.Reverse(msgs)
	return msgs, complete, true
}
