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

// Window is the end of a File held in memory, [from, Size), grown
// backwards: each byte is read once however often it grows, and a whole
// read after it (Whole) reads only what it lacks.
type Window struct {
	f       *TailFile
	from    int64
	buf     []byte // the bytes [from, f.size)
	changed bool   // the file shrank or failed under the window
}

// Window returns an empty window at the file's end.
func (f *TailFile) Window() *Window { return &Window{f: f, from: f.size} }

// Grow yields the window's whole lines for windows of first,
// 2·first, 4·first… bytes at the file's end while a window is less than
// half the file: from there one whole read costs less than more windows.
// The caller stops ranging once a window answers. Grow stops early when
// the file has shrunk or cannot be read; Whole then reads it as it is now.
func (w *Window) Grow(first int64) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		size := w.f.size
		for window := first; window > 0 && size-window > size/2; window *= 2 {
			if err := w.extend(size - window); err != nil {
				w.changed = true
				return
			}
			if !yield(w.lines()) {
				return
			}
		}
	}
}

// extend grows the window to start at from, reading only what it lacks.
func (w *Window) extend(from int64) error {
	if from >= w.from {
		return nil
	}
	buf := make([]byte, w.f.size-from)
	copy(buf[w.from-from:], w.buf)
	if k, err := w.f.ReadAt(buf[:w.from-from], from); k < int(w.from-from) {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the file shrank
		}
		return err
	}
	w.buf, w.from = buf, from
	return nil
}

// lines returns the window's whole lines: all after its first newline,
// since the window most likely starts inside a line. (It never starts at
// the file's start: Grow stops at half the file.)
func (w *Window) lines() []byte {
	i := bytes.IndexByte(w.buf, '\n')
	if i < 0 {
		return nil
	}
	return w.buf[i+1:]
}

// Whole is the file to read whole when no window answered: r read up to
// end. It is the file's first Size bytes, the window's from memory; or,
// when the file changed under the windows, the file as it is now, as a
// full read would see it.
func (w *Window) Whole() (r io.ReaderAt, end int64) {
	if w.changed {
		return w.f, math.MaxInt64
	}
	return w, w.f.size
}

// ReadAt reads the file's first Size bytes: the window's from memory, the
// rest from the file.
func (w *Window) ReadAt(p []byte, off int64) (int, error) {
	if off >= w.f.size {
		return 0, io.EOF
	}
	k := 0
	if off < w.from {
		n := int(min(int64(len(p)), w.from-off))
		got, err := w.f.ReadAt(p[:n], off)
		if k = got; got < n {
			return k, err
		}
	}
	if k < len(p) {
		k += copy(p[k:], w.buf[off+int64(k)-w.from:])
	}
	if k < len(p) {
		return k, io.EOF
	}
	return k, nil
}
