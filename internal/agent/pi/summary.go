package pi

import (
	"bytes"
	"context"
	"io"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// What listing parses of a session file. The header and the first
// headLines lines, and every line in the last tailBytes, are parsed whole.
// Lines in between are only parsed when they carry one of the markers
// below: the latest session_info name can sit anywhere in a long session
// and is the title, and user prompts are few and short.
// Everything else in the middle (assistant turns, tool results, the bulk
// of a file) is only scanned for those markers, never decoded.
const (
	headLines = 16
	tailBytes = 64 << 10
)

// A marker is a JSON token, so its quotes are unescaped: inside a string
// value the same text would read \"user\" and not match. Pi writes an
// entry's type, id, parentId and timestamp first and a message's role
// first, so the markers are looked for in a line's first markerWindow
// bytes only, never in the bulk of a long line.
const markerWindow = 512

// A marker is looked for by a part of it that starts with a rarer byte
// than its opening quote (there is a quote every few bytes of JSON), and
// then checked whole.
var middleMarkers = []marker{
	{token: []byte(`"` + typeSessionInfo + `"`), probe: len(`"session`)},
	{token: []byte(`"` + roleUser + `"`), probe: len(`"`)},
	{token: []byte(`"` + typeModelChange + `"`), probe: len(`"model`)},
}

type marker struct {
	token []byte
	probe int // token[probe:] is looked for first
}

func hasMarker(line []byte) bool {
	line = line[:min(len(line), markerWindow)]
	for _, m := range middleMarkers {
		if m.in(line) {
			return true
		}
	}
	return false
}

// in reports whether m's token occurs in b.
func (m marker) in(b []byte) bool {
	probe := m.token[m.probe:]
	for off := m.probe; off < len(b); {
		j := bytes.Index(b[off:], probe)
		if j < 0 {
			return false
		}
		at := off + j - m.probe // where the token would start
		if bytes.Equal(b[at:at+len(m.token)], m.token) {
			return true
		}
		off += j + 1
	}
	return false
}

// summary is what listing learns from one session file. It is cached by
// file signature and never modified once built, so scans share it.
type summary struct {
	valid    bool // the first line is a session header with a usable id
	listable bool // valid, and has a prompt or an answer to show

	id, cwd, model          string
	title, titleSource      string
	firstPrompt, lastPrompt string
	prompts                 int
	created, lastEvent      time.Time
	badLines                int
	readErr                 error // reading stopped early; the summary has what was read
	// noHeader: the file's first line is there but is no session
	// header, so nothing else of it was read.
	noHeader bool
	// problem is the session's Error: why part or all of the file could
	// not be read ("" when it was read whole).
	problem string
}

// unreadable is the summary of a session file that cannot be read at
// all: still listed (under the id its name carries), so the user learns
// of it.
func unreadable(err error) *summary {
	return &summary{listable: true, problem: history.Unreadable(err)}
}

// broken: the file is listed for its problem, with no header to name
// it; it goes by the id its name carries.
func (s *summary) broken() bool { return !s.valid && s.problem != "" }

// readSummary reads the session file at path, which had the given size
// when stat'ed (so a line appended meanwhile is not half-read), in ranges
// in parallel when it is long (readFile).
func readSummary(path string, size int64) (*summary, error) {
	fr := fileRead{sum: &summaryBuilder{}}
	if err := fr.open(path, size); err != nil {
		return nil, err
	}
	return fr.summary(), nil
}

// summaryBuilder folds a file's lines, in file order, into a summary.
type summaryBuilder struct {
	s          summary
	name       string // latest session_info name
	answered   bool
	firstEvent time.Time
	// skipped is the start of the last middle line left unparsed when no
	// line was parsed after it: its entry time still counts.
	skipped []byte
	// skipSet says that a line of this builder's range set or cleared
	// skipped (merge).
	skipSet bool
}

// clone returns a copy of b that shares nothing b changes.
func (b *summaryBuilder) clone() *summaryBuilder {
	c := *b
	c.skipped = bytes.Clone(b.skipped)
	return &c
}

// read reads a whole file of the given size.
func (b *summaryBuilder) read(r io.Reader, size int64) {
	fr := fileRead{sum: b}
	fr.readRange(context.Background(), r, 0, size, true)
	b.s.readErr = fr.err
	b.skippedTime()
}

// wants reports whether line n, at offset start of a file of the given
// size, is parsed for the summary; the others are only skipped (skip).
func wants(n int, start, size int64, line []byte) bool {
	return n <= headLines || start >= size-tailBytes || hasMarker(line)
}

func (b *summaryBuilder) header(h header) {
	b.s.valid = true
	b.s.id, b.s.cwd, b.s.created, b.s.model = h.id, h.cwd, h.created, h.model
}

func (b *summaryBuilder) skip(line []byte) {
	b.skipped = append(b.skipped[:0], line[:min(len(line), markerWindow)]...)
	b.skipSet = true
}

func (b *summaryBuilder) fold(e *entry) {
	b.skipped = b.skipped[:0]
	b.skipSet = true
	b.entry(e)
}

// merge folds in next, the builder of the range that follows b's, as if
// b had read on.
func (b *summaryBuilder) merge(next *summaryBuilder) {
	s, ns := &b.s, &next.s
	if ns.lastEvent.After(s.lastEvent) {
		s.lastEvent = ns.lastEvent
	}
	if b.firstEvent.IsZero() {
		b.firstEvent = next.firstEvent
	}
	if next.name != "" {
		b.name = next.name
	}
	if ns.model != "" {
		s.model = ns.model
	}
	if ns.prompts > 0 {
		if s.prompts == 0 {
			s.firstPrompt = ns.firstPrompt
		}
		s.lastPrompt = ns.lastPrompt
		s.prompts += ns.prompts
	}
	b.answered = b.answered || next.answered
	s.badLines += ns.badLines
	s.readErr = ns.readErr
	if next.skipSet {
		b.skipped = append(b.skipped[:0], next.skipped...)
		b.skipSet = true
	}
}

// skippedTime dates the session by the last unparsed line when it is the
// last entry read: the tail of a session that ends in one huge tool result
// holds no whole line, and the activity must not date from the prompt
// before it. Pi writes "timestamp" among an entry's first members.
func (b *summaryBuilder) skippedTime() {
	key := []byte(`"timestamp":`)
	i := bytes.Index(b.skipped, key)
	if i < 0 {
		return
	}
	i = skipSpace(b.skipped, i+len(key))
	end, err := valueEnd(b.skipped, i, 0)
	if err != nil {
		return
	}
	if t := timeOf(b.skipped[i:end]); t.After(b.s.lastEvent) {
		b.s.lastEvent = t
	}
}

func (b *summaryBuilder) entry(e *entry) {
	// Any entry Pi appended is activity; the effective time needs the
	// latest.
	t := e.when()
	if t.After(b.s.lastEvent) {
		b.s.lastEvent = t
	}
	if b.firstEvent.IsZero() {
		b.firstEvent = t
	}
	switch e.Type {
	case typeSessionInfo:
		if e.Name != "" {
			b.name = e.Name // the latest name wins, as in Pi's getSessionName
		}
	case typeModelChange:
		if e.Model != "" {
			b.s.model = e.Model
		}
	case typeMessage:
		if e.Model != "" && e.Role == roleAssistant {
			b.s.model = e.Model
		}
		if !e.HasTexts {
			return
		}
		switch e.Role {
		case roleUser:
			p := history.ClipRunes(e.Text, maxPromptRunes)
			if b.s.prompts == 0 {
				b.s.firstPrompt = p
			}
			b.s.lastPrompt = p
			b.s.prompts++
		case roleAssistant:
			b.answered = true
		}
	}
}

func (b *summaryBuilder) finish() *summary {
	s := b.s
	if s.noHeader {
		s.problem = "its first line is not a session header, so nothing of it could be read"
	} else if s.valid {
		s.problem = history.PartlyRead(s.badLines, 1, "line", s.readErr)
	} else {
		s.problem = history.PartlyRead(0, 0, "line", s.readErr)
	}
	// A file with lines that could not be read is listed even with
	// nothing to show, so the user learns of it.
	s.listable = s.valid && (s.prompts > 0 || b.answered) || s.problem != ""
	if t := history.ClipLine(b.name, maxTitleRunes); t != "" {
		s.title, s.titleSource = t, session.TitleCustom
	} else if t := history.ClipLine(s.firstPrompt, maxTitleRunes); t != "" {
		s.title, s.titleSource = t, session.TitlePrompt
	}
	if s.created.IsZero() {
		s.created = b.firstEvent // a header without a usable timestamp
	}
	return &s
}
