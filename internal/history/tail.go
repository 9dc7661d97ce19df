// TailFile reads the end of an agent's history file without reading
// the rest of it, so that a session's newest page does not wait for a full
// parse. It deals in bytes and lines only: what a window's
// lines mean, and whether they settle an answer, is the scanner's.
//
// Read only: it opens files for reading and never writes, truncates or
// locks them.

package history

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"math"
	"os"
	"sync/atomic"
)

// FirstWindow is how much of a file's end a tail read reads first. It
// holds the newest page of most sessions; a window that cannot answer is
// doubled.
const FirstWindow = 256 << 10

// TailFile is a history file opened for a tail read. Its size is taken once,
// when it is opened: every window of one read ends there, so a line the
// agent appends meanwhile is left for the next read instead of mixing in
// half-written.
type TailFile struct {
	f    *os.File
	size int64
	// read counts the bytes read through ReadAt, which tests check to show
	// that a tail read leaves most of a long file unread. Atomic: a whole
	// read may read ranges in parallel.
	read atomic.Int64
}

// OpenTail opens the file at path for a tail read. The caller closes it.
func OpenTail(path string) (*TailFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &TailFile{f: f, size: st.Size()}, nil
}

// Close closes the file.
func (f *TailFile) Close() error { return f.f.Close() }

// Size is the file's size when it was opened: where its windows end.
func (f *TailFile) Size() int64 { return f.size }

// Read is how many bytes have been read from the file so far.
func (f *TailFile) Read() int64 { return f.read.Load() }

// ReadAt reads the file as it is now, past Size too, and counts what it
// reads.
func (f *TailFile) ReadAt(p []byte, off int64) (int, error) {
	k, err := f.f.ReadAt(p, off)
	f.read.Add(int64(k))
	return k, err
}

// scanBlock is how much a backwards read scans at once for a line's
// start; what it scans inside a long line is not kept.
const scanBlock = 256 << 10

// Back reads a file's whole lines from its end backwards, a part at a
// time (Before), holding no line it hands back: the caller reads them
// from the reader it gets, through a LineReader, which clips an
// over-long one. Only the end of the line that crosses the part's start
// is kept, and only while it is at most MaxLine long: past that, the
// search for its start scans blocks without keeping them, and the line
// is read from the file again once its start is found.
type Back struct {
	f     *TailFile
	from  int64  // the part read so far is [from, Size)
	start int64  // where the lines handed back start: the first line start at or after from, or Size
	head  []byte // [from, start) while it is at most MaxLine long
	long  bool   // [from, start) is longer and is not kept
	found bool   // a line start was found: the lines from start on are whole
}

// Back returns a backwards reader at the file's end.
func (f *TailFile) Back() *Back { return &Back{f: f, from: f.size, start: f.size} }

// Start is where the lines handed back so far start.
func (b *Back) Start() int64 { return b.start }

// Before reads the file back to from: it returns a reader of the whole
// lines that start at or after from (all of them when from is 0) and
// before those handed back so far, and nil when the part holds no line's
// start (a long line crosses all of it). The reader reads the file as it
// goes; an error says the file shrank or could not be read.
func (b *Back) Before(from int64) (io.Reader, error) {
	if from >= b.from {
		return nil, nil
	}
	var scanned []byte // [from, where the scan stopped), while kept
	kept := true
	block := make([]byte, min(scanBlock, b.from-from))
	for off := from; off < b.from; {
		n := min(int64(len(block)), b.from-off)
		if err := readFull(b.f, block[:n], off); err != nil {
			return nil, err
		}
		i := int64(-1)
		if from == 0 && off == 0 {
			i = -1 // the file's start starts a line
		} else if j := bytes.IndexByte(block[:n], '\n'); j >= 0 {
			i = int64(j)
		} else {
			if kept = kept && int64(len(scanned))+n <= MaxLine; kept {
				scanned = append(scanned, block[:n]...)
			} else {
				scanned = nil
			}
			off += n
			continue
		}
		// A line starts at off+i+1: the lines from there to start are
		// the rest of this block, the part not scanned yet, and the head.
		rest := block[i+1 : n]
		parts := []io.Reader{bytes.NewReader(rest), &section{f: b.f, off: off + n, end: b.from}, b.headReader()}
		b.head = append(scanned, block[:i+1]...)
		if b.long = !kept || int64(len(b.head)) > MaxLine; b.long {
			b.head = nil
		}
		b.from, b.start, b.found = from, off+i+1, true
		if from == 0 && off == 0 {
			b.head, b.long = nil, false
		}
		return io.MultiReader(parts...), nil
	}
	// No line starts in [from, b.from): all of it is the end of a line
	// that starts before.
	if kept && !b.long && int64(len(scanned)+len(b.head)) <= MaxLine {
		b.head = append(scanned, b.head...)
	} else {
		b.head, b.long = nil, true
	}
	b.from = from
	return nil, nil
}

// headReader reads [from, start): from memory, or again from the file
// when it was too long to keep.
func (b *Back) headReader() io.Reader {
	if b.long {
		return &section{f: b.f, off: b.from, end: b.start}
	}
	return bytes.NewReader(b.head)
}

// readFull reads len(p) bytes at off; io.ErrUnexpectedEOF when the file
// has fewer.
func readFull(f *TailFile, p []byte, off int64) error {
	k, err := f.ReadAt(p, off)
	if k < len(p) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the file shrank
		}
		return err
	}
	return nil
}

// section reads [off, end) of a file, io.ErrUnexpectedEOF when the file
// ends before.
type section struct {
	f        *TailFile
	off, end int64
}

func (s *section) Read(p []byte) (int, error) {
	if s.off >= s.end {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), s.end-s.off)]
	k, err := s.f.ReadAt(p, s.off)
	s.off += int64(k)
	if k < len(p) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return k, err
	}
	return k, nil
}

// Window is the end of a File held in memory, its whole lines from a
// line's start to Size, grown backwards: each byte is read once however
// often it grows (but for a line over MaxLine, read again once its start
// is found), a line over MaxLine is held clipped, and a whole read after
// it (Whole) reads only what it lacks.
type Window struct {
	b       *Back
	buf     []byte // the lines [b.start, f.size), each over MaxLine clipped; nil until one starts
	changed bool   // the file shrank or failed under the window
}

// Window returns an empty window at the file's end.
func (f *TailFile) Window() *Window { return &Window{b: f.Back()} }

// Grow yields the window's whole lines for windows of first,
// 2·first, 4·first… bytes at the file's end while a window is less than
// half the file: from there one whole read costs less than more windows.
// The caller stops ranging once a window answers. Grow stops early when
// the file has shrunk or cannot be read; Whole then reads it as it is now.
func (w *Window) Grow(first int64) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		size := w.b.f.size
		for window := first; window > 0 && size-window > size/2; window *= 2 {
			if err := w.extend(size - window); err != nil {
				w.changed = true
				return
			}
			if !yield(w.buf) {
				return
			}
		}
	}
}

// extend grows the window to start at from, reading only what it lacks.
func (w *Window) extend(from int64) error {
	r, err := w.b.Before(from)
	if err != nil || r == nil {
		return err
	}
	var prefix []byte
	ls := NewLineReader(r, MaxLine)
	for {
		line, _, err := ls.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		prefix = append(append(prefix, line...), ls.EOL()...)
	}
	w.buf = append(prefix, w.buf...)
	if w.buf == nil {
		w.buf = []byte{}
	}
	return nil
}

// Whole is the file to read whole when no window answered: r read up to
// end. It is the file's first Size bytes — the window's from memory, its
// lines over MaxLine already clipped — or, when the file changed under
// the windows, the file as it is now, as a full read would see it.
func (w *Window) Whole() (r io.ReaderAt, end int64) {
	if w.changed {
		return w.b.f, math.MaxInt64
	}
	return w, w.b.start + int64(len(w.buf))
}

// ReadAt reads what Whole stands for: the file before the window's part,
// the part's partial first line (from memory when it was kept), then the
// window's lines from memory.
func (w *Window) ReadAt(p []byte, off int64) (int, error) {
	b := w.b
	k := 0
	// The file up to from, or up to start when the head was not kept.
	disk := b.from
	if b.long {
		disk = b.start
	}
	if off < disk {
		n := int(min(int64(len(p)), disk-off))
		got, err := b.f.ReadAt(p[:n], off)
		if k = got; got < n {
			return k, err
		}
	}
	for _, m := range []struct {
		at   int64
		data []byte
	}{{b.from, b.head}, {b.start, w.buf}} {
		if at := off + int64(k); k < len(p) && at >= m.at && at < m.at+int64(len(m.data)) {
			k += copy(p[k:], m.data[at-m.at:])
		}
	}
	if k < len(p) {
		return k, io.EOF
	}
	return k, nil
}
