package codex

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"paddock/internal/history"
)

// Listing reads the head and the tail of a rollout, never all of it.
// The head is headLines lines, or more until the first real prompt
// (Codex writes its instructions and environment first, and a long first
// turn can push the prompt down), within headMaxLines and headMaxBytes.
// The tail is larger than the 8 KB that suffices for the other agents:
// one 0.169 turn writes several KB of turn context and settings before
// its prompt.
const (
	headLines    = 30
	headMaxLines = 300
	headMaxBytes = 4 << 20
	tailBytes    = 64 << 10
)

// summary is what listing learns from one rollout. It is cached per file
// signature and never changed once built, so scans may share it.
type summary struct {
	subagent                bool
	parent                  string
	cwd, model              string
	firstPrompt, lastPrompt string
	prompts                 int
	answered                bool // some readable assistant text
	created, lastEvent      time.Time
	badLines                int
	readErr                 error // reading stopped early; the summary has what was read
	// problem is the session's Error: why part or all of the rollout
	// could not be read ("" when it was read whole).
	problem string
}

// unreadable is the summary of a rollout that cannot be read at all:
// still listed, so the user learns of it, with what its name and stat
// say.
func unreadable(err error) *summary { return &summary{problem: history.Unreadable(err)} }

// hasConversation: a prompt or an answer was seen. A rollout without
// either is a session nobody has used yet.
func (s *summary) hasConversation() bool { return s.prompts > 0 || s.answered }

// readSummary reads the head and tail of the rollout at path, whose size
// the stat pass found (a line appended since is left for the next scan).
func readSummary(path string, size int64) (*summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := summaryBuilder{first: true}
	end, more := b.head(io.NewSectionReader(f, 0, size))
	if more {
		b.tail(f, end, size)
	}
	return b.finish(), nil
}

// summaryBuilder folds the lines of a rollout, in file order, into a
// summary.
type summaryBuilder struct {
	s       summary
	first   bool // the next line is the file's first
	metaSet bool
	envCwd  string
	turnCwd string
	dedup   dedup
	records int // lines parsed
	// unended: the last line read had no newline and did not parse — a
	// record Codex may still be writing, not counted as bad unless no
	// line parsed.
	unended bool
}

// head reads the first lines; it returns where it stopped and whether the
// file goes on.
func (b *summaryBuilder) head(r io.Reader) (end int64, more bool) {
	ls := history.NewLineReader(r, maxLineBytes)
	for n := 0; ; n++ {
		if n >= headMaxLines || ls.Offset() >= headMaxBytes || n >= headLines && b.s.prompts > 0 {
			return ls.Offset(), true
		}
		line, _, err := ls.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.s.readErr = err
			}
			return ls.Offset(), false
		}
		b.next(ls, line)
	}
}

// tail reads the last tailBytes of the file, from no earlier than where
// the head stopped. Starting mid-line, it drops the partial first line.
func (b *summaryBuilder) tail(f io.ReaderAt, headEnd, size int64) {
	start := max(headEnd, size-tailBytes)
	if start >= size {
		return
	}
	partial := start > headEnd
	if partial {
		// One byte early: if start is a line start, the dropped "partial
		// line" is just the newline before it.
		start--
		b.dedup = dedup{} // lines were skipped: the next message is not adjacent
	}
	ls := history.NewLineReader(io.NewSectionReader(f, start, size-start), maxLineBytes)
	for drop := partial; ; drop = false {
		line, _, err := ls.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.s.readErr = err
			}
			return
		}
		if !drop {
			b.next(ls, line)
		}
	}
}

// next folds one line of r's: a line without a newline is the file's
// last, which Codex may still be writing.
func (b *summaryBuilder) next(r *history.LineReader, line []byte) {
	first := b.first
	b.first = false
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	rec, err := parseRecord(line, first)
	switch {
	case err != nil && r.Ended():
		b.s.badLines++
	case err != nil:
		b.unended = true
	default:
		b.records++
		b.record(&rec)
	}
}

func (b *summaryBuilder) record(r *record) {
	if r.time.After(b.s.lastEvent) {
		b.s.lastEvent = r.time
	}
	if m := r.meta; m != nil && !b.metaSet {
		// Forks and subagents replay their parent's lines, session_meta
		// included: only the first one is this thread's.
		b.metaSet = true
		b.s.created, b.s.cwd = m.created, m.cwd
		b.s.subagent, b.s.parent = m.subagent, m.parent
	}
	if b.turnCwd == "" && r.cwd != "" {
		b.turnCwd = r.cwd
	}
	if r.model != "" {
		b.s.model = r.model // the latest turn's model
	}
	if b.envCwd == "" && r.envCwd != "" {
		b.envCwd = r.envCwd
	}
	if r.msg == nil || !b.dedup.fresh(r.msg) {
		return
	}
	switch r.msg.role {
	case "user":
		if b.s.prompts == 0 {
			b.s.firstPrompt = history.ClipRunes(r.msg.text, maxPromptRunes)
		}
		b.s.lastPrompt = history.ClipRunes(r.msg.text, maxPromptRunes)
		b.s.prompts++
	case "assistant":
		b.s.answered = true
	}
}

func (b *summaryBuilder) finish() *summary {
	s := b.s
	if s.cwd == "" {
		s.cwd = b.turnCwd
	}
	if s.cwd == "" {
		s.cwd = b.envCwd
	}
	if s.created.IsZero() {
		s.created = s.lastEvent
	}
	if b.unended && b.records == 0 {
		s.badLines++ // nothing parsed: not a record being written, a broken file
	}
	s.problem = history.PartlyRead(s.badLines, b.records, "line", s.readErr)
	return &s
}

// dedup folds the copies Codex writes of one message: a
// message next to the previous one, with the same role and text but read
// from a source that copy did not come from, is the same message, and the
// first copy (and its time) is kept. The same text typed again in a later
// turn comes from a source already seen and stays a message of its own.
type dedup struct {
	role, text string
	from       source
}

// fresh reports whether m is a new message, not another copy of the last.
func (d *dedup) fresh(m *message) bool {
	if m.role == d.role && m.text == d.text && d.from&m.from == 0 {
		d.from |= m.from
		return false
	}
	*d = dedup{role: m.role, text: m.text, from: m.from}
	return true
}
