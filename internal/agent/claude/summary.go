package claude

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Listing reads only the head and the tail of a transcript.
const (
	headLines = 300
	// headBytes stops the head early when its lines are huge, so one file
	// of giant lines cannot make a listing slow.
	headBytes = 8 << 20
	tailBytes = 64 << 10
)

// summary is what listing learns from one transcript. It is cached per file
// signature and never modified once built, so scans may share it.
type summary struct {
	listable bool // a top-level session with something to show

	cwd, model              string
	title, titleSource      string
	firstPrompt, lastPrompt string
	prompts                 int
	created, lastEvent      time.Time
	badLines                int
	readErr                 error // reading stopped early; the summary has what was read
	// problem is the session's Error: why part or all of the transcript
	// could not be read ("" when it was read whole).
	problem string
}

// unreadable is the summary of a transcript that cannot be read at all:
// still listed, so the user learns of it, with what its name and stat
// say.
func unreadable(err error) *summary {
	return &summary{listable: true, problem: history.Unreadable(err)}
}

// readSummary reads the head (≤ headLines lines) and the tail (≤ tailBytes)
// of the transcript at path, which has the given size (from the stat that
// found it, so a line being appended meanwhile is not half-read).
func readSummary(path string, size int64) (*summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()

	var b summaryBuilder
	headEnd, more := b.readHead(io.NewSectionReader(f, 0, size))
	b.headDone = true
	if more {
		b.readTail(f, headEnd, size)
	}
	return b.finish(), nil
}

// readHead folds the first lines of the file into b. It returns the offset
// where it stopped and whether the file goes on from there.
func (b *summaryBuilder) readHead(r io.Reader) (end int64, more bool) {
	head := history.NewLineReader(r, maxLineBytes)
	for lines := 0; lines < headLines && head.Offset() < headBytes; lines++ {
		line, _, err := head.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.readErr = err
			}
			return head.Offset(), false
		}
		b.next(head, line)
	}
	return head.Offset(), true
}

// readTail folds the last tailBytes of the file into b, never re-reading
// what the head read: the tail starts at headEnd if that is later.
func (b *summaryBuilder) readTail(f io.ReaderAt, headEnd, size int64) {
	start := max(headEnd, size-tailBytes)
	if start >= size {
		return
	}
	// Unless the tail starts exactly where the head stopped, it starts
	// mid-line: read from one byte earlier and drop everything up to the
	// first newline (which is that byte itself when start is a line start).
	partial := start > headEnd
	if partial {
		start--
	}
	tail := history.NewLineReader(io.NewSectionReader(f, start, size-start), maxLineBytes)
	for first := true; ; first = false {
		line, _, err := tail.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.readErr = err
			}
			return
		}
		if !(first && partial) {
			b.next(tail, line)
		}
	}
}

// summaryBuilder folds records, in file order, into a summary.
type summaryBuilder struct {
	s        summary
	headDone bool

	sawMessage bool // a user or assistant record was seen (decides "sidechain")
	sawInput   bool // the first user input was seen (decides agent-name and teammates)
	internal   bool // a subagent, teammate or sidechain transcript
	answered   bool // some assistant record has text

	custom, ai, kebabAI string
	summaries           []summaryRecord
	uuids               map[string]bool
	readErr             error

	records int // lines parsed
	// unended: the last line read had no newline and did not parse —
	// a record Claude may still be writing, not counted as bad unless
	// no line parsed.
	unended bool
}

type summaryRecord struct{ leaf, text string }

// blank: a line of white space only, which holds no record and is no
// broken one.
func blank(line []byte) bool { return len(bytes.TrimSpace(line)) == 0 }

// next folds one line of r's.
func (b *summaryBuilder) next(r *history.LineReader, line []byte) {
	if !r.Ended() {
		b.lastLine(line)
		return
	}
	b.line(line)
}

// line folds one line that ended in a newline.
func (b *summaryBuilder) line(line []byte) {
	if blank(line) {
		return
	}
	r, err := parseLine(line)
	if err != nil {
		b.s.badLines++
		return
	}
	b.records++
	b.record(&r)
}

// lastLine folds the file's last line, which has no newline yet.
func (b *summaryBuilder) lastLine(line []byte) {
	if blank(line) {
		return
	}
	r, err := parseLine(line)
	if err != nil {
		b.unended = true
		return
	}
	b.records++
	b.record(&r)
}

func (b *summaryBuilder) record(r *record) {
	if b.s.created.IsZero() && !r.Time.IsZero() {
		b.s.created = r.Time
	}
	if r.UUID != "" {
		if b.uuids == nil {
			b.uuids = make(map[string]bool)
		}
		b.uuids[r.UUID] = true
	}
	switch r.Type {
	case typeUser, typeAssistant:
		b.message(r)
	case typeAgentName:
		// Teammates and named subagents start with their agent name. Claude
		// 2.1+ also names top-level sessions, but only after the first
		// prompt, so only a name before any input marks an internal session
		// — except the name the user gave with `claude
		// --name X`, which 2.1.328 writes as custom-title X and then
		// agent-name X ahead of the first prompt. A teammate named so is
		// still caught by its team-lead brief.
		if r.Value != "" && !b.sawInput && !b.headDone && r.Value != b.custom {
			b.internal = true
		}
	case typeCustomTitle:
		if r.Value != "" {
			b.custom = r.Value // the latest rename wins
		}
	case typeAITitle:
		b.aiTitle(r.Value)
	case typeSummary:
		if r.Value != "" {
			b.summaries = append(b.summaries, summaryRecord{r.LeafUUID, r.Value})
		}
	}
}

func (b *summaryBuilder) message(r *record) {
	if !b.sawMessage {
		b.sawMessage = true
		if r.Sidechain {
			b.internal = true
		}
	}
	if r.Sidechain {
		return
	}
	if b.s.cwd == "" && r.Cwd != "" {
		// The session's first directory is the one `claude --resume` needs.
		b.s.cwd = r.Cwd
	}
	if r.Time.After(b.s.lastEvent) {
		b.s.lastEvent = r.Time
	}
	if in, ok := r.userInput(); ok && !b.sawInput {
		b.sawInput = true
		if !b.headDone && isTeammateStart(in) {
			b.internal = true
		}
	}
	if p, ok := r.prompt(); ok {
		if b.s.prompts == 0 {
			b.s.firstPrompt = history.ClipRunes(p, maxPromptRunes)
		}
		b.s.lastPrompt = history.ClipRunes(p, maxPromptRunes)
		b.s.prompts++
	}
	if r.Type == typeAssistant {
		if _, ok := r.answer(); ok {
			b.answered = true
		}
		// "<synthetic>" marks Claude Code's own stand-in replies.
		if r.Model != "" && r.Model[0] != '<' {
			b.s.model = r.Model
		}
	}
}

// aiTitle keeps the latest readable AI title; a kebab-case slug is kept
// apart so it can never override a readable title.
func (b *summaryBuilder) aiTitle(t string) {
	t = history.ClipLine(t, maxTitleRunes)
	switch {
	case t == "":
	case isKebab(t):
		b.kebabAI = t
	default:
		b.ai = t
	}
}

func (b *summaryBuilder) finish() *summary {
	s := b.s
	s.readErr = b.readErr
	if b.unended && b.records == 0 {
		s.badLines++ // nothing parsed: not a record being written, a broken file
	}
	s.problem = history.PartlyRead(s.badLines, b.records, "line", s.readErr)
	// A transcript with lines that could not be read is listed even with
	// nothing to show, so the user learns of it (unless what was read
	// says it is a subagent's or a teammate's).
	s.listable = !b.internal && (s.prompts > 0 || b.answered || s.problem != "")
	s.title, s.titleSource = b.title()
	return &s
}

// title picks the best title: custom > readable AI > summary > first prompt
// > kebab-case AI slug > last prompt.
func (b *summaryBuilder) title() (string, string) {
	candidates := []struct{ text, source string }{
		{b.custom, session.TitleCustom},
		{b.ai, session.TitleAI},
		{b.summaryTitle(), session.TitleSummary},
		{b.s.firstPrompt, session.TitlePrompt},
		{b.kebabAI, session.TitleAI},
		{b.s.lastPrompt, session.TitlePrompt},
	}
	for _, c := range candidates {
		if t := history.ClipLine(c.text, maxTitleRunes); t != "" {
			return t, c.source
		}
	}
	return "", ""
}

// summaryTitle returns the latest summary that belongs to this transcript.
// Older Claude versions copy the summaries of earlier sessions into the
// head of a continued one; those name a leafUuid that is not in this file
// and would give the session someone else's title.
func (b *summaryBuilder) summaryTitle() string {
	for i := len(b.summaries) - 1; i >= 0; i-- {
		s := b.summaries[i]
		if s.leaf == "" || b.uuids[s.leaf] {
			return s.text
		}
	}
	return ""
}
