package kimi

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Listing reads state.json and only the head and tail of the history
// file. kimi-code's wire holds huge system lines (a 9 KB
// system prompt, a 70 KB tool snapshot per start), which the head skips by
// type without decoding.
const (
	headLines = 400
	headBytes = 4 << 20
	tailBytes = 64 << 10
)

// summary is what listing learns about one session. It is cached per file
// signature and never changed once built, so scans may share it.
type summary struct {
	listable bool // a session with something to show, not archived, not noise

	cwd, model              string
	title, titleSource      string
	firstPrompt, lastPrompt string
	prompts                 int
	created, lastEvent      time.Time
	badLines                int
	readErr                 error // a part could not be read; the summary has the rest
	// problem is the session's Error: why part or all of its history
	// could not be read ("" when it was read whole).
	problem string
	// openErr: the history file could not be opened (gone, when it is
	// fs.ErrNotExist).
	openErr error
}

// unreadable is the summary of a session whose history file cannot be
// read at all: still listed, so the user learns of it.
func unreadable(err error) *summary {
	return &summary{listable: true, problem: history.Unreadable(err)}
}

// problemOf is a session's Error from what listing met: bad of its lines
// (good read well), the error that ended reading its history early, and
// whether a side file (state.json, metadata.json) could not be read.
func problemOf(bad, good int, stopped error, sideFile bool) string {
	p := history.PartlyRead(bad, good, "line", stopped)
	if sideFile {
		p = strings.TrimPrefix(p+"; its state file could not be read", "; ")
	}
	return p
}

// openFailed is headTail's error when the file could not be opened: the
// session's history cannot be read at all.
type openFailed struct{ err error }

func (e openFailed) Error() string { return e.err.Error() }
func (e openFailed) Unwrap() error { return e.err }

// headTail feeds fn the first lines of the file (up to headLines lines or
// headBytes bytes) and then every line of its last tailBytes, never a line
// twice. size is the size the stat pass saw, so a line appended meanwhile
// is not read half-written.
//
// fn is told whether each line ended in a newline: the file's last line
// may lack one because its agent is still writing it. An error opening
// the file is an openFailed.
func headTail(path string, size int64, keep func([]byte) bool, fn func(line []byte, ended bool)) error {
	f, err := os.Open(path)
	if err != nil {
		return openFailed{err}
	}
	defer f.Close()

	head := history.NewLineReader(io.NewSectionReader(f, 0, size), maxLineBytes).KeepLong(keep)
	for n := 0; n < headLines && head.Offset() < headBytes; n++ {
		line, _, err := head.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		fn(line, head.Ended())
	}
	start := max(head.Offset(), size-tailBytes)
	if start >= size {
		return nil
	}
	// Unless the tail begins where the head ended, it begins mid-line: read
	// from one byte earlier and drop everything up to the first newline
	// (that byte itself when start is the start of a line).
	partial := start > head.Offset()
	if partial {
		start--
	}
	tail := history.NewLineReader(io.NewSectionReader(f, start, size-start), maxLineBytes).KeepLong(keep)
	for first := true; ; first = false {
		line, _, err := tail.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if first && partial {
			continue
		}
		fn(line, tail.Ended())
	}
}

// readCurrentSummary reads a kimi-code session: state.json and the head
// and tail of agents/main/wire.jsonl. Other agents' wires (subagents) are
// never read.
func readCurrentSummary(c *candidate, marker string) *summary {
	sum := &summary{}
	state, stateErr := readJSONObject(c.statePath())
	sum.readErr = stateErr
	st := parseState(state)

	var w wireSummary
	err := headTail(c.path, c.sig.Size, keepTypes(listTypes), func(line []byte, ended bool) { w.next(line, ended, marker) })
	if errors.As(err, new(openFailed)) {
		sum.openErr = err
		return sum
	}
	sum.readErr = errors.Join(sum.readErr, err)
	if w.unended && w.records == 0 {
		w.badLines++ // nothing read: not a record being written, a broken file
	}
	sum.badLines = w.badLines
	sum.problem = problemOf(w.badLines, w.records, err, stateErr != nil)

	sum.cwd = cmp.Or(st.cwd, w.cwd)
	sum.model = cmp.Or(w.model, w.modelAlias)
	sum.created = st.created
	if sum.created.IsZero() {
		sum.created = w.created
	}
	sum.lastEvent = w.lastEvent
	sum.prompts = w.prompts
	sum.firstPrompt = w.firstPrompt
	if sum.firstPrompt == "" && st.titleKind == "replaceable" && !untitled(st.title) {
		// kimi-code copies the first prompt into an untouched title; the
		// head can miss it only when its lines are enormous.
		sum.firstPrompt = history.ClipRunes(st.title, maxPromptRunes)
	}
	// state.json's lastPrompt is rewritten on every prompt; the tail can
	// miss the last prompt of a long turn.
	sum.lastPrompt = cmp.Or(history.ClipRunes(st.lastPrompt, maxPromptRunes), w.lastPrompt)

	if !untitled(st.title) {
		sum.title, sum.titleSource = history.ClipLine(st.title, maxTitleRunes), titleSource(st.titleKind)
	}
	sum.fallbackTitle()

	custom := st.titleKind == "custom" && sum.title != ""
	noise := w.titleGen || hasMarker(st.title, marker) || hasMarker(st.lastPrompt, marker)
	// A session whose history could not all be read is listed even with
	// nothing to show, so the user learns of it.
	sum.listable = (w.prompts > 0 || w.answered || st.lastPrompt != "" || custom || sum.problem != "") && !st.archived && !noise
	return sum
}

// fallbackTitle titles an untitled session by its first prompt, else its
// last.
func (s *summary) fallbackTitle() {
	if s.title != "" {
		return
	}
	for _, p := range []string{s.firstPrompt, s.lastPrompt} {
		if t := history.ClipLine(p, maxTitleRunes); t != "" {
			s.title, s.titleSource = t, session.TitlePrompt
			return
		}
	}
}

// readLegacySummary reads a Python kimi-cli session: its state.json (and
// the metadata.json older versions wrote), the head and tail of
// context.jsonl, and the first timestamp of wire.jsonl as its creation
// time. context.jsonl has no times of its own.
func readLegacySummary(c *candidate, marker string) *summary {
	sum := &summary{cwd: c.cwd}
	var state, meta map[string]json.RawMessage
	if c.dir != "" {
		var err1, err2 error
		state, err1 = readJSONObject(filepath.Join(c.dir, "state.json"))
		meta, err2 = readJSONObject(filepath.Join(c.dir, "metadata.json"))
		sum.readErr = errors.Join(err1, err2)
		sum.created = legacyCreated(filepath.Join(c.dir, "wire.jsonl"))
	}
	sideErr := sum.readErr != nil
	ls := parseLegacyState(state, meta)

	var l legacyLines
	err := headTail(c.path, c.sig.Size, keepLegacy, func(line []byte, ended bool) { l.next(line, ended, marker) })
	if errors.As(err, new(openFailed)) {
		sum.openErr = err
		return sum
	}
	sum.readErr = errors.Join(sum.readErr, err)
	if l.unended && l.records == 0 {
		l.badLines++ // nothing read: not a record being written, a broken file
	}
	sum.badLines = l.badLines
	sum.problem = problemOf(l.badLines, l.records, err, sideErr)
	sum.prompts = l.prompts
	sum.firstPrompt, sum.lastPrompt = l.firstPrompt, l.lastPrompt
	if t := history.ClipLine(ls.customTitle, maxTitleRunes); t != "" {
		sum.title, sum.titleSource = t, session.TitleCustom
	}
	sum.fallbackTitle()
	noise := l.titleGen || hasMarker(ls.customTitle, marker)
	sum.listable = (l.prompts > 0 || l.answered || ls.customTitle != "" || sum.problem != "") && !ls.archived && !noise
	return sum
}

// legacyMessage is one line of a kimi-cli context.jsonl: a kosong Message
// ({"role","content",…}) or bookkeeping ({"role":"_usage",…}).
type legacyMessage struct {
	Role      json.RawMessage `json:"role"`
	Content   json.RawMessage `json:"content"`
	ToolCalls json.RawMessage `json:"tool_calls"` // assistant: [{id, function: {name, arguments}}]
}

// legacyRole returns the role of a context line without decoding it when
// the line starts with it, as kimi-cli writes every line.
func legacyRole(line []byte) (string, bool) {
	for _, prefix := range []string{`{"role":"`, `{"role": "`} {
		if rest, ok := strings.CutPrefix(string(line[:min(len(line), 32)]), prefix); ok {
			if end := strings.IndexByte(rest, '"'); end >= 0 {
				return rest[:end], true
			}
		}
	}
	return "", false
}

// legacyPrompt returns the human text of a context message. kimi-cli has
// no origin field: it wraps what it injects ("<system>CHECKPOINT 3</system>",
// tool notes, "<system-reminder>…") and those parts are dropped.
func legacyPrompt(m legacyMessage) (string, bool) {
	if jsonStr(m.Role) != "user" {
		return "", false
	}
	text := contentText(m.Content, true)
	return text, strings.TrimSpace(text) != ""
}

func legacyAnswer(m legacyMessage) (string, bool) {
	if jsonStr(m.Role) != "assistant" {
		return "", false
	}
	text := contentText(m.Content, false)
	return text, strings.TrimSpace(text) != ""
}

// decodeLegacy decodes a context line if it may be a user or assistant
// message; tool results and bookkeeping are skipped undecoded.
func decodeLegacy(line []byte) (m legacyMessage, wanted, ok bool) {
	if role, fast := legacyRole(line); fast && role != "user" && role != "assistant" {
		return legacyMessage{}, false, true
	}
	if json.Unmarshal(line, &m) != nil {
		return legacyMessage{}, false, false
	}
	return m, true, true
}

// legacyLines folds context lines into listing facts.
type legacyLines struct {
	firstPrompt, lastPrompt string
	prompts                 int
	answered, titleGen      bool
	badLines                int
	records                 int // lines read as messages
	// unended: the last line read had no newline and was no message —
	// one kimi-cli may still be writing.
	unended bool
}

// next folds one line; ended says it ended in a newline.
func (l *legacyLines) next(line []byte, ended bool, marker string) {
	if ended {
		l.line(line, marker)
		return
	}
	bad := l.badLines
	l.line(line, marker)
	if l.badLines > bad {
		l.badLines, l.unended = bad, true
	}
}

func (l *legacyLines) line(line []byte, marker string) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	m, wanted, ok := decodeLegacy(line)
	if !ok {
		l.badLines++
		return
	}
	l.records++
	if !wanted {
		return
	}
	if text, ok := legacyPrompt(m); ok {
		if hasMarker(text, marker) {
			l.titleGen = true
		}
		if l.prompts == 0 {
			l.firstPrompt = history.ClipRunes(text, maxPromptRunes)
		}
		l.lastPrompt = history.ClipRunes(text, maxPromptRunes)
		l.prompts++
	} else if _, ok := legacyAnswer(m); ok {
		l.answered = true
	}
}

// legacyCreated returns the first record time of a kimi-cli wire.jsonl
// ({"timestamp": <unix seconds>, "message": …}), reading at most its first
// few lines; zero when there is none.
func legacyCreated(path string) time.Time {
	f, err := os.Open(path)
	if err != nil {
		return time.Time{}
	}
	defer f.Close()
	ls := history.NewLineReader(io.LimitReader(f, 64<<10), maxLineBytes)
	for range 4 {
		line, _, err := ls.Next()
		if err != nil {
			return time.Time{}
		}
		var r struct {
			Timestamp json.RawMessage `json:"timestamp"`
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		if sec, ok := jsonNum(r.Timestamp); ok && sec > 0 {
			return msTime(sec * 1000)
		}
	}
	return time.Time{}
}

// readLegacyConversation reads a whole context.jsonl.
func readLegacyConversation(ctx context.Context, path string) ([]session.Message, int, error) {
	l := &legacyFold{}
	err := l.read(ctx, path)
	return l.msgs, l.bad, err
}

// legacyFold is one pass over a kimi-cli context.jsonl: its messages and,
// withEvents, its full record (events.go).
type legacyFold struct {
	withEvents bool
	msgs       []session.Message
	events     []session.Event
	bad        int
	// emit, with withEvents, takes each event instead of events, and
	// no message is kept (EachEvent).
	emit func(session.Event)
}

// read folds the file at path. A read error stops early and is returned;
// what was read before it stays in l.
func (l *legacyFold) read(ctx context.Context, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	keep := keepLegacy
	if l.withEvents {
		keep = keepLegacyEvents
	}
	ls := history.NewLineReader(f, maxLineBytes).KeepLong(keep)
	return eachLine(ctx, ls, func(line []byte) bool {
		l.line(line)
		return true
	})
}

func (l *legacyFold) line(line []byte) {
	if len(line) == 0 {
		return
	}
	if l.withEvents {
		if role, fast := legacyRole(line); fast && role == "tool" {
			l.toolLine(line)
			return
		}
	}
	m, wanted, ok := decodeLegacy(line)
	if !ok {
		l.bad++
		return
	}
	if !wanted {
		return
	}
	if l.withEvents && jsonStr(m.Role) == "tool" {
		l.toolLine(line) // a line that does not start with its role
		return
	}
	if text, ok := legacyPrompt(m); ok {
		l.message(session.RoleUser, text)
	} else if jsonStr(m.Role) == "assistant" {
		if l.withEvents {
			l.thinking(m.Content)
		}
		if text, ok := legacyAnswer(m); ok {
			l.message(session.RoleAssistant, text)
		}
		if l.withEvents {
			l.toolCalls(m.ToolCalls)
		}
	}
}

func (l *legacyFold) message(role, text string) {
	if l.emit == nil {
		l.msgs = append(l.msgs, session.Message{Role: role, Text: text})
	}
	if l.withEvents {
		l.event(session.Event{Kind: session.EventMessage, Role: role, Text: text})
	}
}

// event adds events to the record, or hands them to emit.
func (l *legacyFold) event(evs ...session.Event) {
	if l.emit == nil {
		l.events = append(l.events, evs...)
		return
	}
	for _, e := range evs {
		l.emit(e)
	}
}
