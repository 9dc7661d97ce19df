package pi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLineBytes caps one session line. A longer line (a pasted log, a huge
// tool result) is skipped whole and counted as bad, so no single line can
// make a read unbounded.
const maxLineBytes = 8 << 20

// lineReader yields the lines of a reader without their line endings and
// counts the bytes consumed, so callers know where each line starts.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	off int64 // bytes consumed so far
	eof bool
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line, valid until the following call. A line over
// maxLineBytes comes back with tooLong set and no content. err is io.EOF
// after the last line, or the read error that ended reading.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	if lr.eof {
		return nil, false, io.EOF
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.off += int64(len(chunk))
		if !tooLong {
			switch {
			case len(lr.buf)+len(chunk) > maxLineBytes+2: // +2: "\r\n"
				tooLong = true
				lr.buf = lr.buf[:0]
			case err == nil && len(lr.buf) == 0:
				return trimEOL(chunk), false, nil // the whole line was buffered
			default:
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
			// A last line without a newline (Pi may be mid-append): still
			// a line; if it is torn, parsing says so.
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
