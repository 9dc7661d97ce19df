package kimi

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLineBytes caps one history line. A longer line (a giant paste, a
// corrupted file without newlines) is skipped whole and counted as bad, so
// it never holds the rest of the file hostage.
const maxLineBytes = 16 << 20

// lineScanner reads lines of unbounded length without keeping more than
// maxLineBytes of any one of them.
type lineScanner struct {
	br   *bufio.Reader
	line []byte
	read int64 // bytes consumed, line endings included
	done bool
	// keep, when set, sees the first 64 KB of a line longer than that;
	// false skips the line without copying it (it comes back empty). A
	// wire's 70 KB tool snapshots are dropped this way.
	keep func(prefix []byte) bool
}

func newLineScanner(r io.Reader, keep func(prefix []byte) bool) *lineScanner {
	return &lineScanner{br: bufio.NewReaderSize(r, 64<<10), keep: keep}
}

// keepTypes returns a keep function for wire lines: a line whose type is
// seen and not wanted is skipped.
func keepTypes(wanted map[string]bool) func([]byte) bool {
	return func(prefix []byte) bool {
		t, ok := lineType(prefix)
		return !ok || wanted[t]
	}
}

// keepLegacy keeps context lines that may be user or assistant messages.
func keepLegacy(prefix []byte) bool {
	role, ok := legacyRole(prefix)
	return !ok || role == "user" || role == "assistant"
}

// scan returns the next line without its "\n" or "\r\n". oversize reports a
// line longer than maxLineBytes, returned empty. err is io.EOF after the
// last line; any other error ends the scan. The slice is reused by the
// next call.
func (ls *lineScanner) scan() (line []byte, oversize bool, err error) {
	if ls.done {
		return nil, false, io.EOF
	}
	ls.line = ls.line[:0]
	skip := false
	for first := true; ; first = false {
		frag, rerr := ls.br.ReadSlice('\n')
		ls.read += int64(len(frag))
		if first && errors.Is(rerr, bufio.ErrBufferFull) && ls.keep != nil && !ls.keep(frag) {
			skip = true
		}
		switch {
		case skip || oversize:
		case len(ls.line)+len(frag) > maxLineBytes+2:
			oversize = true
			ls.line = ls.line[:0]
		case rerr == nil && len(ls.line) == 0:
			return chomp(frag), false, nil // the whole line was buffered
		default:
			ls.line = append(ls.line, frag...)
		}
		if rerr == nil {
			if skip {
				return nil, false, nil
			}
			return chomp(ls.line), oversize, nil
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		ls.done = true
		if errors.Is(rerr, io.EOF) {
			if skip || len(ls.line) == 0 && !oversize {
				return nil, false, io.EOF
			}
			// An unterminated last line: often a record still being
			// written, which the JSON decoder then rejects.
			return chomp(ls.line), oversize, nil
		}
		return nil, false, rerr
	}
}

func chomp(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// lineType returns the "type" of a kimi-code wire record without decoding
// the line. kimi-code writes every record as JSON.stringify({type, ...}),
// so type is the first member; event records that put it later, and
// anything unusual, return ok == false and are decoded the slow way when
// they are small enough to matter.
func lineType(line []byte) (string, bool) {
	const prefix = `{"type":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return "", false
	}
	return string(rest[:end]), true
}
