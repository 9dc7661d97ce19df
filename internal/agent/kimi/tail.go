package kimi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// TailConversation returns the last n messages of Conversation(id) and
// whether they are all of it, folding only the end of the history file
// (catalog.TailReader). n < 1 is read as 1.
//
// A kimi-code window's times are checked against every record before it
// (wireTail): the first read of a wire reads the whole file, but decodes
// only the window; later reads scan only what was not scanned before
// (clockMemo).
func (s *Scanner) TailConversation(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, false, session.ErrNotFound
	}
	n = max(n, 1)
	var t tail
	var err error
	if c.layout == current {
		t, err = wireTail(ctx, c.path, n, history.FirstWindow, &s.clocks)
	} else {
		t, err = legacyTail(ctx, c.path, n, history.FirstWindow)
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
//     being decoded, or remembered from an earlier read (memo, nil for
//     none); when one is later, the whole file is folded.
func wireTail(ctx context.Context, path string, n int, window int64, memo *clockMemo) (tail, error) {
	// Stat'ed before it is opened: should the file be replaced between
	// the two, what is remembered is filed under the inode that is gone,
	// never under the one whose bytes it did not see.
	var id fileID
	if st, err := os.Stat(path); err == nil {
		id.dev, id.ino = history.FileID(st)
	}
	f, err := history.OpenTail(path)
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
		holds, err := clockHolds(ctx, f, lineStart, last, memo.at(path, id))
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
// one. It reads every line before end that mark has not read (all of them
// when it cannot vouch for f) but decodes none that ends the way kimi-code
// writes every record (entryTime), and remembers what it read in mark.
func clockHolds(ctx context.Context, f *history.TailFile, end int64, msgs []session.Message, mark *clockMark) (bool, error) {
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
	from, latest := int64(0), time.Time{}
	if prev, ok := mark.get(); ok && prev.holds(f) {
		switch {
		case end == prev.end:
			return !prev.latest.After(first), nil
		case end > prev.end:
			from, latest = prev.end, prev.latest
		case !prev.latest.After(first):
			return true, nil // nothing up to prev.end is later, end is before it
		default:
			// Later somewhere before prev.end: maybe before end too. Read
			// [0, end), and keep prev, the longer one.
			l, err := latestTime(ctx, f, 0, end)
			return !l.After(first), err
		}
	}
	l, err := latestTime(ctx, f, from, end)
	if err != nil {
		return false, err
	}
	if l.After(latest) {
		latest = l
	}
	mark.put(f, end, latest)
	return !latest.After(first), nil
}

// latestTime returns the latest entryTime of the lines of f in [from,
// end), from being a line's start.
func latestTime(ctx context.Context, f *history.TailFile, from, end int64) (time.Time, error) {
	var latest time.Time
	ls := history.NewLineReader(io.NewSectionReader(f, from, end-from), maxLineBytes).KeepLong(keepTypes(convTypes))
	err := eachLine(ctx, ls, func(line []byte) bool {
		if t := entryTime(line); t.After(latest) {
			latest = t
		}
		return true
	})
	return latest, err
}

// clockMemo remembers, per wire, the latest record time in the part of it
// clockHolds has scanned, so that the next read of the wire scans only
// what lies between that part and its window. A live session's wire grows
// by appends, the catalog tails it again on every change, and scanning the
// 50 MB before the window each time was most of every read. It trusts the
// part only while the file is the same one (device and inode) and still
// holds the part's first and last bytes: a wire rewritten by rename, or
// truncated and written again, is scanned from its start.
//
// It keeps the last clockMemoPaths wires read. The zero value is ready;
// it is safe for concurrent use.
type clockMemo struct {
	mu    sync.Mutex
	marks map[string]clockPart
	clock uint64 // counts uses, to forget the least recent wire
}

// clockMemoPaths bounds clockMemo: the catalog tails the few sessions
// open on a phone, and an entry costs clockCheckBytes twice.
const clockMemoPaths = 32

// clockCheckBytes is how much of a scanned part's start and end must be
// unchanged for clockMemo to trust it.
const clockCheckBytes = 256

// fileID is one file on disk, whatever its name: zero where the platform
// has no inodes (history.ID), and then only the bytes vouch for it.
type fileID struct{ dev, ino uint64 }

// clockPart is the scanned part [0, end) of one file.
type clockPart struct {
	id         fileID
	end        int64     // a line's start
	latest     time.Time // the latest entryTime of its lines
	head, tail []byte    // its first and last clockCheckBytes (or all of it)
	used       uint64
}

// clockMark is the memo's entry for one wire, as clockHolds uses it; a
// mark of a nil memo remembers nothing.
type clockMark struct {
	memo *clockMemo
	path string
	id   fileID
}

// at returns the mark of the wire at path, the file id.
func (m *clockMemo) at(path string, id fileID) *clockMark {
	return &clockMark{memo: m, path: path, id: id}
}

// get returns the part remembered for the mark's file.
func (k *clockMark) get() (clockPart, bool) {
	if k.memo == nil {
		return clockPart{}, false
	}
	k.memo.mu.Lock()
	defer k.memo.mu.Unlock()
	p, ok := k.memo.marks[k.path]
	if !ok || p.id != k.id {
		return clockPart{}, false
	}
	k.memo.clock++
	p.used = k.memo.clock
	k.memo.marks[k.path] = p
	return p, true
}

// put remembers latest as the latest time of f's first end bytes, in
// place of what was remembered of the mark's path. Any part put is right
// about the file it was read from, so concurrent reads may put theirs in
// any order.
func (k *clockMark) put(f *history.TailFile, end int64, latest time.Time) {
	if k.memo == nil || end <= 0 {
		return
	}
	n := min(end, clockCheckBytes)
	head, tail := readAt(f, 0, n), readAt(f, end-n, n)
	if head == nil || tail == nil {
		return
	}
	m := k.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.marks == nil {
		m.marks = make(map[string]clockPart)
	}
	m.clock++
	m.marks[k.path] = clockPart{id: k.id, end: end, latest: latest, head: head, tail: tail, used: m.clock}
	if len(m.marks) > clockMemoPaths {
		oldest := k.path
		for p, e := range m.marks {
			if e.used < m.marks[oldest].used {
				oldest = p
			}
		}
		delete(m.marks, oldest)
	}
}

// holds reports whether f still has p's bytes at their places: its first
// and the last before p.end. f's id was compared by get.
func (p clockPart) holds(f *history.TailFile) bool {
	return p.end <= f.Size() &&
		bytes.Equal(readAt(f, 0, int64(len(p.head))), p.head) &&
		bytes.Equal(readAt(f, p.end-int64(len(p.tail)), int64(len(p.tail))), p.tail)
}

// readAt returns the n bytes of r at off; nil when they cannot all be read.
func readAt(r io.ReaderAt, off, n int64) []byte {
	b := make([]byte, n)
	if k, _ := r.ReadAt(b, off); int64(k) < n {
		return nil
	}
	return b
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
	f, err := history.OpenTail(path)
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
func readWindow(ctx context.Context, f *history.TailFile, start int64, keep func([]byte) bool, fn func(line []byte)) (lineStart int64, err error) {
	size := f.Size()
	partial := start > 0
	if partial {
		// One byte early: when start is a line's start, the dropped
		// "partial line" is only the newline before it.
		start--
	}
	ls := history.NewLineReader(io.NewSectionReader(f, start, size-start), maxLineBytes).KeepLong(keep)
	if partial {
		if _, _, err := ls.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return size, nil
			}
			return 0, err
		}
	}
	lineStart = start + ls.Offset()
	err = eachLine(ctx, ls, func(line []byte) bool {
		fn(line)
		return true
	})
	return lineStart, err
}

// eachLine hands fn the lines of ls until fn returns false: the one loop
// of every read here, whole (fold.read, legacyFold.read) or of a window,
// so that each checks the context and ends on a read error alike. A read
// error stops early and is returned.
func eachLine(ctx context.Context, ls *history.LineReader, fn func(line []byte) bool) error {
	for n := 0; ; n++ {
		if n%2048 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		line, _, err := ls.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if !fn(line) {
			return nil
		}
	}
}

// lastN returns a copy of the last n of msgs (all when there are fewer).
func lastN(msgs []session.Message, n int) []session.Message {
	return append([]session.Message(nil), msgs[max(len(msgs)-n, 0):]...)
}
