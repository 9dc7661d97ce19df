package pi

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"paddock/internal/scan/clip"
	"paddock/internal/scan/jsonl"
	"paddock/internal/session"
)

// What listing parses of a session file. The header and the first
// headLines lines, and every line in the last tailBytes, are parsed whole.
// Lines in between are only parsed when they carry one of the markers
// below: the latest session_info name can sit anywhere in a long session
// and is the title (seed 002 §2.1), and user prompts are few and short.
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

var middleMarkers = [][]byte{
	[]byte(`"` + typeSessionInfo + `"`),
	[]byte(`"` + roleUser + `"`),
	[]byte(`"` + typeModelChange + `"`),
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
}

// readSummary reads the session file at path, which had the given size
// when stat'ed (so a line appended meanwhile is not half-read).
func readSummary(path string, size int64) (*summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b summaryBuilder
	b.read(io.NewSectionReader(f, 0, size), size)
	return b.finish(), nil
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
}

func (b *summaryBuilder) read(r io.Reader, size int64) {
	lr := jsonl.NewReader(r, maxLineBytes)
	tailStart := size - tailBytes
	for n := 0; ; n++ {
		start := lr.Offset()
		line, tooLong, err := lr.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.s.readErr = err
			}
			b.skippedTime()
			return
		}
		if n == 0 {
			h, herr := parseHeader(line)
			if tooLong || herr != nil {
				return // not a Pi session: nothing else matters
			}
			b.s.valid = true
			b.s.id, b.s.cwd, b.s.created, b.s.model = h.id, h.cwd, h.created, h.model
			continue
		}
		if tooLong {
			b.s.badLines++
			continue
		}
		if n > headLines && start < tailStart && !hasMarker(line) {
			b.skipped = append(b.skipped[:0], line[:min(len(line), markerWindow)]...)
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, err := parseEntry(line)
		if err != nil {
			b.s.badLines++
			continue
		}
		b.skipped = b.skipped[:0]
		b.entry(&e)
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

func hasMarker(line []byte) bool {
	line = line[:min(len(line), markerWindow)]
	for _, m := range middleMarkers {
		if bytes.Contains(line, m) {
			return true
		}
	}
	return false
}

func (b *summaryBuilder) entry(e *entry) {
	// Any entry Pi appended is activity; the effective time needs the
	// latest (seed 002 §2.4).
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
			p := clip.Runes(e.Text, maxPromptRunes)
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
	s.listable = s.valid && (s.prompts > 0 || b.answered)
	if t := clip.Line(b.name, maxTitleRunes); t != "" {
		s.title, s.titleSource = t, session.TitleCustom
	} else if t := clip.Line(s.firstPrompt, maxTitleRunes); t != "" {
		s.title, s.titleSource = t, session.TitlePrompt
	}
	if s.created.IsZero() {
		s.created = b.firstEvent // a header without a usable timestamp
	}
	return &s
}
