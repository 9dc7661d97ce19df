package usage

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"paddock/internal/history"
)

// tailBytes is how many bytes before a mark its checksum covers: enough
// to tell a rewritten file from the one that was read, without reading
// it again.
const tailBytes = 64

// MaxLine bounds a history line that is read for usage: a longer one (a
// huge pasted input, never a model's answer with its usage) is skipped.
const MaxLine = 8 << 20

// FollowLines calls fn with each complete line of the file at path after
// m, and the line's offset in the file: only what was appended when the
// file is m's file grown, else every line from the start (reset then
// says that what was read of it before no longer stands). A last line
// without its newline, still being written, is left for the next read.
// The file is opened for reading only. It returns the mark the next read
// starts from.
func FollowLines(ctx context.Context, path string, m Mark, fn func(off int64, line []byte)) (next Mark, reset bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return m, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return m, false, err
	}
	if !st.Mode().IsRegular() {
		return m, false, fmt.Errorf("usage: %s is not a regular file", path)
	}
	_, ino := history.FileID(st)
	size := st.Size()
	start := int64(0)
	if m.Offset > 0 && m.Ino == ino && size >= m.Offset {
		if sum, err := tailSum(f, m.Offset); err == nil && sum == m.Tail {
			start = m.Offset
		}
	}
	reset = m.Offset > 0 && start == 0
	next = Mark{Name: m.Name, Ino: ino, Offset: start, Tail: m.Tail}
	if start == 0 {
		next.Tail = 0
	}
	if start >= size {
		return next, reset, nil
	}
	// A file not ending in a newline ends in a line still being written.
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return m, false, err
	}
	whole := last[0] == '\n'
	lr := history.NewLineReader(io.NewSectionReader(f, start, size-start), MaxLine)
	done := start
	for n := 0; ; n++ {
		if n%4096 == 4095 && ctx.Err() != nil {
			return m, false, ctx.Err()
		}
		off := start + lr.Offset()
		line, tooLong, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return m, false, err
		}
		end := start + lr.Offset()
		if end >= size && !whole {
			break
		}
		done = end
		if !tooLong && len(line) > 0 {
			fn(off, line)
		}
	}
	next.Offset = done
	if done > start {
		if next.Tail, err = tailSum(f, done); err != nil {
			return m, false, err
		}
	}
	return next, reset, nil
}

// tailSum is the checksum of the bytes just before off.
func tailSum(f *os.File, off int64) (uint32, error) {
	from := max(0, off-tailBytes)
	buf := make([]byte, off-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		return 0, err
	}
	return crc32.ChecksumIEEE(buf), nil
}
