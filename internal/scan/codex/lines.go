package codex

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLineBytes bounds one rollout line. A longer line (a giant tool output,
// a stray binary) is skipped whole and counted as bad instead of being held
// in memory.
const maxLineBytes = 16 << 20

// lineScanner splits a reader into lines without their line endings. Unlike
// bufio.Scanner it survives an over-long line: the line is reported as
// skipped and reading goes on with the next one.
type lineScanner struct {
	r    *bufio.Reader
	long []byte // a line that did not fit the bufio buffer
	read int64  // bytes consumed, line endings included
	done bool
}

func newLineScanner(r io.Reader) *lineScanner {
	return &lineScanner{r: bufio.NewReaderSize(r, 64<<10)}
}

// scan returns the next line, or skipped=true (and no line) for one over
// maxLineBytes. The line is only valid until the next call. At the end it
// returns io.EOF; a read error ends the scan and is returned as is. A last
// line without a newline is still a line.
func (ls *lineScanner) scan() (line []byte, skipped bool, err error) {
	if ls.done {
		return nil, false, io.EOF
	}
	ls.long = ls.long[:0]
	size := 0
	for {
		chunk, err := ls.r.ReadSlice('\n')
		ls.read += int64(len(chunk))
		size += len(chunk)
		switch {
		case size > maxLineBytes+2: // +2 for "\r\n"
			skipped = true
			ls.long = ls.long[:0]
		case err == nil && len(ls.long) == 0:
			return trimEOL(chunk), false, nil // the whole line was buffered
		default:
			ls.long = append(ls.long, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			ls.done = true
			if !errors.Is(err, io.EOF) {
				return nil, false, err
			}
			if size == 0 {
				return nil, false, io.EOF
			}
		}
		if skipped {
			return nil, true, nil
		}
		return trimEOL(ls.long), false, nil
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
