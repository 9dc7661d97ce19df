package kimi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"time"

	"paddock/internal/scan/jsonl"
	"paddock/internal/scan/tailwin"
	"paddock/internal/session"
)

// TailConversation returns the last n messages of Conversation(id) and
// whether they are all of it, folding only the end of the history file
// (catalog.TailReader). n < 1 is read as 1.
//
// A kimi-code window's times are checked against every record before it
// (wireTail): this reads the whole file, but decodes only the window.
func (s *Scanner) TailConversation(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, false, session.ErrNotFound
	}
	n = max(n, 1)
	var t tail
	var err error
	if c.layout == current {
		t, err = wireTail(ctx, c.path, n, tailwin.FirstWindow)
	} else {
		t, err = legacyTail(ctx, c.path, n, tailwin.FirstWindow)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, false, ctx.Err()
	case err != nil:
		// Conversation shows what it read before a read error (and logs
		// it); its last n are the answer then.
		msgs, err := s.Conversation(ctx, id)
		if err != nil {
			return nil, false, err
		}
		last := lastN(msgs, n)
		return last, len(last) == len(msgs), nil
	}
	return t.msgs, t.complete, nil
}

// tail is what wireTail or legacyTail found.
type tail struct {
	msgs     []session.Message
	complete bool  // msgs is the whole conversation
	folded   int64 // bytes read to be folded (tests)
	scanned  int64 // bytes read only for their times (tests)
}

// wireTail returns the last n messages of the wire at path as
// readWireConversation would, folding window bytes from its end and twice
// as many each time that is not enough to be sure.
//
// The fold of a window starts with nothing open, nothing held back and no
// /undo floor; what the unread lines before it would have changed is:
//
//   - the entries before the window: never returned. A window's messages
//     are the last of the whole file's as long as nothing below differs.
//   - the open step and its unanswered tool calls, which hold messages
//     back (fold.add). Held-back messages still follow in file order, so
//     only a reset (a compaction without kept turns, /clear, /undo) that
//     drops them could tell; windowEdge sees one coming before the first
//     step boundary after messages were added, and the window grows.
//   - /undo reaching past the window's first entry: it removes all of the
//     window's entries in both folds, whatever it removes before.
//   - times, which never go backwards (fold.walk): a message's time is
//     at least every earlier message's, those before the window included.
//     Only a record before the window can say it is later than the
//     window's first (clockHolds), so every one is looked at, without
//     being decoded; when one is later, the whole file is folded.
func wireTail(ctx context.Context, path string, n int, window int64) (tail, error) {
	f, err := tailwin.Open(path)
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	var t tail
	for {
		start := max(f.Size()-window, 0)
		fo := newFold()
		if start > 0 {
			fo.edge = &windowEdge{}
		}
		lineStart, err := readWindow(ctx, f, start, keepTypes(convTypes), fo.line)
		if err != nil {
			return tail{}, err
		}
		msgs := fo.messages()
		if start == 0 {
			t.msgs = lastN(msgs, n)
			t.complete = len(t.msgs) == len(msgs)
			t.folded = f.Read() - t.scanned
			return t, nil
		}
		window *= 2
		// More than n: one is before the page, so it is not complete.
		if fo.edge.broken || len(msgs) <= n {
			continue
		}
		last := lastN(msgs, n)
		scanned := f.Read()
		holds, err := clockHolds(ctx, f, lineStart, last)
		t.scanned += f.Read() - scanned
		if err != nil {
			return tail{}, err
		}
		if !holds {
			window = f.Size() // the clock ran backwards: only the whole file tells
			continue
		}
		t.msgs = last
		t.folded = f.Read() - t.scanned
		return t, nil
	}
}

// windowEdge follows a window's fold (fold.edge) up to its first step
// boundary (settle) or reset: before one, the open step and the tool calls
// holding messages back are those of lines the window has not read.
type windowEdge struct {
	settled bool // a step boundary or reset has made the fold's state its own
	added   bool // a message entry was added before that
	broken  bool // a reset came before a step boundary, after messages were added
}

func (w *windowEdge) add() {
	if !w.settled {
		w.added = true
	}
}

// settle: a step begins or ends, or a compaction keeps turns. The open
// step is closed and every held-back message follows, in file order.
func (w *windowEdge) settle() { w.settled = true }

// reset: a compaction without kept turns, /clear or /undo drops the
// held-back messages. The window's added ones may have been held back by
// an unread step's tool calls, and dropped, or not.
func (w *windowEdge) reset() {
	if !w.settled && w.added {
		w.broken = true
	}
	w.settled = true
}

// clockHolds reports whether no record in the first end bytes of f can
// move the times of msgs, the last messages of a window whose first line
// starts at end: none has a time later than the first of msgs that has
// one. It reads every line before end but decodes none that ends the way
// kimi-code writes every record (entryTime).
func clockHolds(ctx context.Context, f *tailwin.File, end int64, msgs []session.Message) (bool, error) {
	var first time.Time
	for _, m := range msgs {
		if !m.Time.IsZero() {
			first = m.Time
			break
		}
	}
	if first.IsZero() {
		return true, nil // timeless messages keep their zero time
	}
	ls := jsonl.NewReader(io.NewSectionReader(f, 0, end), maxLineBytes).KeepLong(keepTypes(convTypes))
	holds := true
	err := eachLine(ctx, ls, func(line []byte, oversize bool) bool {
		if !oversize && entryTime(line).After(first) {
			holds = false
		}
		return holds
	})
	return holds, err
}

// entryTime returns the time an entry made from a wire line would have
// (a context message, a step's answer), or at least a time as late;
// zero for a line that makes no entry.
func entryTime(line []byte) time.Time {
	typ, ok := recordType(line)
	if !ok || typ != recAppendMessage && typ != recLoopEvent {
		return time.Time{}
	}
	if raw, ok := trailingTime(line); ok {
		if ms, ok := jsonNum(raw); ok {
			return msTime(ms)
		}
	}
	r, ok := decodeRecord(line)
	if !ok {
		return time.Time{} // the fold skips it
	}
	return r.time()
}

// trailingTime returns the number of a "time" member that ends a line's
// object, as kimi-code writes every record ({"type":…,"time":1795987696257}).
// Being the last member, it is the one decodeRecord reads, when the line
// is valid at all; a broken line it reads from is skipped by the fold,
// and its time only makes clockHolds more careful. ok is false for any
// other shape (white space, an exponent, a nested "time"), which is
// decoded instead.
func trailingTime(line []byte) ([]byte, bool) {
	const key = `"time":`
	end := len(line) - 1
	if end < len(key)+2 || line[end] != '}' {
		return nil, false
	}
	i := end
	for i > 0 && ('0' <= line[i-1] && line[i-1] <= '9' || line[i-1] == '.') {
		i--
	}
	j := i - len(key)
	if i == end || j < 1 || !bytes.Equal(line[j:i], []byte(key)) || line[j-1] != ',' && line[j-1] != '{' {
		return nil, false
	}
	return line[i:end], true
}

// legacyTail returns the last n messages of a kimi-cli context.jsonl as
// readLegacyConversation would, from the end of the file. Each line is a
// message or not on its own and none has a time: a window's messages are
// the last of the file's as they are.
func legacyTail(ctx context.Context, path string, n int, window int64) (tail, error) {
	f, err := tailwin.Open(path)
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	for {
		start := max(f.Size()-window, 0)
		l := &legacyFold{}
		if _, err := readWindow(ctx, f, start, keepLegacy, l.line); err != nil {
			return tail{}, err
		}
		// More than n: one is before the page, so it is not complete.
		if start == 0 || len(l.msgs) > n {
			msgs := lastN(l.msgs, n)
			return tail{msgs: msgs, complete: len(msgs) == len(l.msgs), folded: f.Read()}, nil
		}
		window *= 2
	}
}

// readWindow hands fn every line of f from the first one that starts at
// or after start to its end (the first whole line: unless start is 0 the
// partial line before it is dropped), and returns where that line starts.
func readWindow(ctx context.Context, f *tailwin.File, start int64, keep func([]byte) bool, fn func(line []byte, oversize bool)) (lineStart int64, err error) {
	size := f.Size()
	partial := start > 0
	if partial {
		// One byte early: when start is a line's start, the dropped
		// "partial line" is only the newline before it.
		start--
	}
	ls := jsonl.NewReader(io.NewSectionReader(f, start, size-start), maxLineBytes).KeepLong(keep)
	if partial {
		if _, _, err := ls.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return size, nil
			}
			return 0, err
		}
	}
	lineStart = start + ls.Offset()
	err = eachLine(ctx, ls, func(line []byte, oversize bool) bool {
		fn(line, oversize)
		return true
	})
	return lineStart, err
}

// eachLine hands fn the lines of ls until fn returns false: the one loop
// of every read here, whole (fold.read, legacyFold.read) or of a window,
// so that each checks the context and ends on a read error alike. A read
// error stops early and is returned.
func eachLine(ctx context.Context, ls *jsonl.Reader, fn func(line []byte, oversize bool) bool) error {
	for n := 0; ; n++ {
		if n%2048 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, oversize, err := ls.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fn(line, oversize) {
			return nil
		}
	}
}

// lastN returns a copy of the last n of msgs (all when there are fewer).
func lastN(msgs []session.Message, n int) []session.Message {
	return append([]session.Message(nil), msgs[max(len(msgs)-n, 0):]...)
}
