package pi

import (
	"bytes"
	"io"
	"runtime"
	"sync"

	"paddock/internal/history"
)

// maxLineBytes caps one session line as it is read: a longer one (a
// pasted log, a huge tool result) is clipped while it is read
// (history.LineReader), so no single line can make a read unbounded, and
// its entry still shows, marked as clipped.
const maxLineBytes = history.MaxLine

// A long session file is read in ranges, one per CPU (up to maxRanges),
// each read and parsed on its own goroutine, and the parts joined in file
// order: parsing is most of the cost of reading a session (a 50 MB file
// has 150,000 lines), and a line needs nothing from the lines before it.
// Files under minSplitBytes are read in one piece.
const (
	minSplitBytes = 4 << 20
	maxRanges     = 4
)

// splitLines returns where the ranges of the first size bytes of f start:
// 0 and then offsets just past a newline, so that no line spans two
// ranges; only 0 when f is short or there is one CPU. lineBytes is the
// mean length of the lines seen on the way (0: none seen), which tells
// how many entries the ranges hold.
func splitLines(f io.ReaderAt, size int64) (starts []int64, lineBytes int64) {
	starts = []int64{0}
	n := min(runtime.GOMAXPROCS(0), maxRanges)
	if size < minSplitBytes || n < 2 {
		return starts, 0
	}
	buf := make([]byte, 64<<10)
	var seen, lines int64
	for i := 1; i < n; i++ {
		at := size*int64(i)/int64(n) - 1 // a newline here makes at+1 a line start
		k, _ := f.ReadAt(buf, at)
		seen, lines = seen+int64(k), lines+int64(bytes.Count(buf[:k], []byte{'\n'}))
		j := bytes.IndexByte(buf[:k], '\n')
		if j < 0 {
			continue // inside a very long line: one range fewer
		}
		if next := at + int64(j) + 1; next > starts[len(starts)-1] && next < size {
			starts = append(starts, next)
		}
	}
	if lines > 0 {
		lineBytes = seen / lines
	}
	return starts, lineBytes
}

// eachRange calls read for every range that starts lists, each on its own
// goroutine (the first on the calling one), and returns when all are done.
// A range ends where the next starts; the last at end.
func eachRange(starts []int64, end int64, read func(i int, start, end int64)) {
	endOf := func(i int) int64 {
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return end
	}
	var wg sync.WaitGroup
	for i := 1; i < len(starts); i++ {
		wg.Go(func() { read(i, starts[i], endOf(i)) })
	}
	read(0, starts[0], endOf(0))
	wg.Wait()
}
