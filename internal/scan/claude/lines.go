package claude

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLineBytes caps one transcript line. Longer lines (a 10 MB paste, a
// stray binary) are skipped whole and counted as bad, so one line can never
// hold the whole file hostage the way bufio.Scanner's token limit would.
const maxLineBytes = 8 << 20

// lineReader yields the lines of a reader, each without its line ending.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	n   int64 // bytes consumed so far
	eof bool
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line. A line over maxLineBytes comes back as
// tooLong with no content. The returned slice is valid until the next call.
// err is io.EOF after the last line, or the read error that stopped reading.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if lr.eof {
		return nil, false, io.EOF
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.n += int64(len(chunk))
		if !tooLong {
			if len(lr.buf)+len(chunk) > maxLineBytes+2 { // +2: the line ending
				tooLong = true
				lr.buf = lr.buf[:0]
			} else if err == nil && len(lr.buf) == 0 {
				// The common case: the whole line sits in bufio's buffer.
				return trimEOL(chunk), false, nil
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			return trimEOL(lr.buf), tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			lr.eof = true
			if len(lr.buf) == 0 && !tooLong {
				return nil, false, io.EOF
			}
			// A last line without a newline: still a line (it may be
			// truncated, which the parser will notice).
			return trimEOL(lr.buf), tooLong, nil
		default:
			lr.eof = true
			return nil, false, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	return bytes.TrimSuffix(b, []byte{'\r'})
}
