package pi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"paddock/internal/history"
)

// fileRead is one reading of a session file, or of one range of it
// (splitLines), into a summary (listing), a transcript (a conversation),
// or both at once: one pass over the lines, each parsed once for
// whichever needs it.
type fileRead struct {
	sum    *summaryBuilder // nil: no summary
	t      *transcript     // nil: no transcript
	header bool            // the first line is a session header (first range)
	lines  int             // lines read
	err    error           // the read error that ended the range, or the context's
}

// readRange reads r, the range of a file of the given size that starts at
// offset base: the first range (first: it starts with the header) or one
// that lies past the file's first headLines lines. size only matters to
// the summary.
func (fr *fileRead) readRange(ctx context.Context, r io.Reader, base, size int64, first bool) {
	lr := history.NewLineReader(r, maxLineBytes)
	n := 0
	if !first {
		n = headLines + 1 // past the head
	}
	for ; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			fr.err = ctx.Err()
			return
		}
		start := base + lr.Offset()
		line, clipped, err := lr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				fr.err = err
			}
			return
		}
		fr.lines++
		if first && n == 0 {
			h, herr := parseHeader(line)
			if clipped || herr != nil {
				// Not a Pi session: nothing else matters. Only a first
				// line that is no JSON at all, neither blank nor being
				// written (it ended), makes a broken session the listing
				// shows; JSON of another shape is some other file (a
				// print-mode dump), not Pi's session.
				if fr.sum != nil && lr.Ended() && !clipped && len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
					fr.sum.s.noHeader = true
				}
				return
			}
			fr.header = true
			if fr.sum != nil {
				fr.sum.header(h)
			}
			if fr.t != nil {
				fr.t.version = h.version
			}
			continue
		}
		toSum := fr.sum != nil && wants(n, start, size, line)
		if fr.sum != nil && !toSum {
			fr.sum.skip(line)
		}
		blank := len(bytes.TrimSpace(line)) == 0
		if fr.t == nil && (!toSum || blank) {
			continue
		}
		e, err := parseEntry(line)
		if fr.t != nil {
			switch {
			case err == nil:
				fr.t.add(&e)
			case len(line) > 0:
				fr.t.badLines++
			}
		}
		if toSum && !blank {
			switch {
			case err == nil:
				fr.sum.fold(&e)
			case lr.Ended():
				fr.sum.s.badLines++
				// else: the last line, without a newline yet, is one Pi
				// may still be writing, not a broken one.
			}
		}
	}
}

// readFile reads f, whose first size bytes are split into ranges
// (splitLines) read in parallel; the last range runs to end. The ranges'
// summaries and transcripts are joined into fr's, in file order.
func (fr *fileRead) readFile(ctx context.Context, f io.ReaderAt, size, end int64) {
	starts, lineBytes := splitLines(f, size)
	parts := make([]fileRead, len(starts))
	parts[0] = *fr
	for i := 1; i < len(parts); i++ {
		if fr.sum != nil {
			parts[i].sum = &summaryBuilder{}
		}
		if fr.t != nil {
			parts[i].t = &transcript{withEvents: fr.t.withEvents}
		}
	}
	eachRange(starts, end, func(i int, start, end int64) {
		p := &parts[i]
		if p.t != nil && i == 0 {
			p.t.reserve(size, lineBytes) // the others are joined to it
		} else if p.t != nil {
			p.t.reserve(min(end, size)-start, lineBytes)
		}
		p.readRange(ctx, io.NewSectionReader(f, start, end-start), start, size, i == 0)
		if p.t != nil {
			p.t.indexIDs()
		}
	})
	*fr = parts[0]
	if len(parts) > 1 && fr.sum != nil && fr.header && fr.err == nil && fr.lines <= headLines {
		// The first range did not hold the whole head (very long lines),
		// so the others took head lines for middle ones: read it all again.
		*fr = fileRead{sum: &summaryBuilder{}}
		if parts[0].t != nil {
			fr.t = &transcript{withEvents: parts[0].t.withEvents}
		}
		fr.readRange(ctx, io.NewSectionReader(f, 0, end), 0, size, true)
		return
	}
	for i := 1; i < len(parts) && fr.header && fr.err == nil; i++ { // a read error ends the file
		p := &parts[i]
		if fr.sum != nil {
			fr.sum.merge(p.sum)
		}
		if fr.t != nil {
			fr.t.join(p.t)
		}
		fr.lines += p.lines
		fr.err = p.err
	}
}

// open reads the first size bytes of the file at path (its size when
// stat'ed, so that a line appended meanwhile is not half-read).
func (fr *fileRead) open(path string, size int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fr.readFile(context.Background(), f, size, size)
	return nil
}

// summary finishes the summary that fr read.
func (fr *fileRead) summary() *summary {
	fr.sum.s.readErr = fr.err
	fr.sum.skippedTime()
	return fr.sum.finish()
}

// transcript returns the transcript that fr read, as readTranscript does.
func (fr *fileRead) transcript() (*transcript, error) {
	switch {
	case fr.header:
		return fr.t, fr.err
	case fr.lines == 0 && fr.err != nil:
		return nil, fr.err // the first line could not be read
	}
	return nil, errNoHeader // an empty file, or no header
}
