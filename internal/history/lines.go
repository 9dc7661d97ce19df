// LineReader reads an agent's JSON Lines history one line at a time.
// Unlike bufio.Scanner it survives a line of any length: a line over the
// reader's limit (a pasted log, a huge tool result, a file without
// newlines) is reported as too long and skipped whole, so one line can
// never make a read unbounded or hold the rest of the file hostage.
//
// It only reads what it is given; it never parses a line.

package history

import (
	"bufio"
	"errors"
	"io"
)

// bufSize is the bufio buffer: lines up to this long are returned without
// a copy, and a keep function (KeepLong) sees this much of a longer one.
const bufSize = 64 << 10

// LineReader yields the lines of a reader, each without its "\n" or "\r\n".
type LineReader struct {
	br   *bufio.Reader
	max  int
	line []byte // a line that did not fit in br's buffer
	off  int64  // bytes consumed, line endings included
	done bool
	keep func(prefix []byte) bool
}

// NewLineReader returns a Reader over r that skips lines longer than maxLine
// bytes. The limit applies to the line with its ending and allows two
// bytes for "\r\n", so after a bare "\n" one byte more fits.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, bufSize), max: maxLine}
}

// KeepLong sets a filter for lines longer than 64 KiB: keep sees their
// first 64 KiB, and when it returns false the line is skipped without
// being copied — Next returns it empty, not too long, and a skipped last
// line without a newline is not returned at all. It lets a caller drop
// big records it does not want by their type alone. nil keeps every line.
func (r *LineReader) KeepLong(keep func(prefix []byte) bool) *LineReader {
	r.keep = keep
	return r
}

// Offset is the number of bytes consumed so far: where the next line
// starts, relative to the start of the reader.
func (r *LineReader) Offset() int64 { return r.off }

// Next returns the next line, valid until the following call. A line over
// the limit comes back empty with tooLong set. err is io.EOF after the
// last line; any other read error ends reading and is returned as is. A
// last line without a newline is still a line (often a record still being
// written, which its parser then rejects).
func (r *LineReader) Next() (line []byte, tooLong bool, err error) {
	if r.done {
		return nil, false, io.EOF
	}
	r.line = r.line[:0]
	skip := false
	for first := true; ; first = false {
		frag, rerr := r.br.ReadSlice('\n')
		r.off += int64(len(frag))
		if first && errors.Is(rerr, bufio.ErrBufferFull) && r.keep != nil && !r.keep(frag) {
			skip = true
		}
		switch {
		case skip || tooLong:
		case len(r.line)+len(frag) > r.max+2: // +2: the line ending
			tooLong = true
			r.line = r.line[:0]
		case rerr == nil && len(r.line) == 0:
			return trimEOL(frag), false, nil // the whole line was buffered
		default:
			r.line = append(r.line, frag...)
		}
		if rerr == nil {
			if skip {
				return nil, false, nil
			}
			return trimEOL(r.line), tooLong, nil
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		r.done = true
		if errors.Is(rerr, io.EOF) {
			if skip || len(r.line) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			return trimEOL(r.line), tooLong, nil
		}
		return nil, false, rerr
	}
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}
