// LineReader reads an agent's JSON Lines history one line at a time.
// Unlike bufio.Scanner it survives a line of any length: a line over the
// reader's limit (a pasted log, a huge tool result, a file without
// newlines) is clipped while it is read (clipjson.go) and handed on
// clipped, so one line can never make a read unbounded, hold the rest of
// the file hostage, or vanish from what the person sees.
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
	clip jsonClipper
	eol  []byte // the ending the last line had
}

// NewLineReader returns a Reader over r that clips lines longer than
// maxLine bytes (MaxLine for every agent's history). The limit applies
// to the line with its ending and allows two bytes for "\r\n", so after a
// bare "\n" one byte more fits.
func NewLineReader(r io.Reader, maxLine int) *LineReader {
	return &LineReader{br: bufio.NewReaderSize(r, bufSize), max: maxLine}
}

// KeepLong sets a filter for lines longer than 64 KiB: keep sees their
// first 64 KiB, and when it returns false the line is skipped without
// being copied — Next returns it empty, not clipped, and a skipped last
// line without a newline is not returned at all. It lets a caller drop
// big records it does not want by their type alone. nil keeps every line.
func (r *LineReader) KeepLong(keep func(prefix []byte) bool) *LineReader {
	r.keep = keep
	return r
}

// Offset is the number of bytes consumed so far: where the next line
// starts, relative to the start of the reader.
func (r *LineReader) Offset() int64 { return r.off }

// EOL is the ending Next took off the last line: "\n", "\r\n", or for a
// last line without a newline "" (or "\r"). A clipped line's is "\n" or
// "". Valid until the next call.
func (r *LineReader) EOL() []byte { return r.eol }

// Next returns the next line, valid until the following call. A line over
// the limit comes back clipped, with clipped set: valid JSON of the same
// shape when it was valid JSON, invalid when it was not. err is io.EOF
// after the last line; any other read error ends reading and is returned
// as is. A last line without a newline is still a line (often a record
// still being written, which its parser then rejects).
func (r *LineReader) Next() (line []byte, clipped bool, err error) {
	r.eol = nil
	if r.done {
		return nil, false, io.EOF
	}
	r.line = r.line[:0]
	start := r.off
	skip := false
	for first := true; ; first = false {
		frag, rerr := r.br.ReadSlice('\n')
		r.off += int64(len(frag))
		if first && errors.Is(rerr, bufio.ErrBufferFull) && r.keep != nil && !r.keep(frag) {
			skip = true
		}
		switch {
		case skip:
		case clipped:
			r.clip.Write(frag)
		case len(r.line)+len(frag) > r.max+2: // +2: the line ending
			clipped = true
			r.clip.reset()
			r.clip.Write(r.line)
			r.clip.Write(frag)
			r.line = r.line[:0]
		case rerr == nil && len(r.line) == 0:
			return r.trimEOL(frag), false, nil // the whole line was buffered
		default:
			r.line = append(r.line, frag...)
		}
		ended := rerr == nil || errors.Is(rerr, io.EOF)
		switch {
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case !ended:
			r.done = true
			return nil, false, rerr
		case errors.Is(rerr, io.EOF):
			r.done = true
			if skip || len(r.line) == 0 && !clipped {
				return nil, false, io.EOF
			}
		case skip:
			return nil, false, nil
		}
		if clipped {
			n := eolLen(frag)
			r.eol = append(r.eol, frag[len(frag)-n:]...)
			return r.clip.Finish(r.off - start - int64(n)), true, nil
		}
		return r.trimEOL(r.line), false, nil
	}
}

// trimEOL takes the line ending off b and keeps it as the line's.
func (r *LineReader) trimEOL(b []byte) []byte {
	n := len(b) - eolLen(b)
	r.eol = b[n:]
	return b[:n]
}

// eolLen is the length of b's line ending: a "\n" with the "\r" before
// it, or a lone "\r" at its end.
func eolLen(b []byte) int {
	n := 0
	if k := len(b); k > 0 && b[k-1] == '\n' {
		n++
	}
	if k := len(b) - n; k > 0 && b[k-1] == '\r' {
		n++
	}
	return n
}
