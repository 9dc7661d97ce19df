package kimi

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// This file rebuilds a kimi-code conversation from agents/main/wire.jsonl
// the way kimi-code's own transcript reducer does (contextTranscript.ts and
// loopEventFold.ts in its bundle): context messages are appended as they
// come, except that those arriving while tool calls are unanswered wait
// until the results are in; each streamed step (step.begin … step.end)
// becomes one assistant message holding its text parts; /undo removes the
// turns it undid; a compaction is a floor /undo cannot cross. Only real
// human prompts and readable assistant text are kept: no
// thinking, tool calls, tool results, injected reminders or summaries.
// Events (events.go) folds the same way and keeps those too, as entries
// of their own between the messages.

// entry is one message of the rebuilt transcript. Hidden entries are kept
// only where /undo needs them: user turns that are not human input but
// still count as turns (slash commands), and compaction floors.
type entry struct {
	role       string // session.RoleUser or session.RoleAssistant; "" when hidden
	text       strings.Builder
	time       time.Time
	anchor     bool // a user turn /undo counts
	compaction bool // /undo stops here
	// ev, with fold.withEvents, makes this a thinking (its text in text),
	// tool call or tool result entry: never a message, never an anchor.
	ev *session.Event
	// seq numbers the entries as the fold places them, when EachEvent
	// reads (fold.stream).
	seq int
}

// fold is the state of one pass over a wire file.
type fold struct {
	entries    []*entry
	clearFloor int

	open     *entry // the assistant message of the open step
	openStep string
	pending  map[string]bool // tool calls of the open turn without a result yet
	deferred []*entry        // messages held back while tool calls are pending

	withEvents bool
	think      *entry          // the thinking of the open step, once it has some
	recorded   map[string]bool // tool call and result entries made, by kind and id

	// edge is set when the fold starts at a window's first line instead
	// of the file's (tail.go): it notes where unread lines could make a
	// difference.
	edge *windowEdge

	// stream, with withEvents, is EachEvent's (events.go).
	stream *foldStream

	badLines int
}

func newFold() *fold { return &fold{pending: make(map[string]bool)} }

func (f *fold) push(e *entry) {
	f.place(e)
	f.entries = append(f.entries, e)
}

// place numbers an entry the fold places, for EachEvent; its first read
// keeps no text.
func (f *fold) place(e *entry) {
	if es := f.stream; es != nil {
		e.seq = es.n
		es.n++
		if es.planning {
			e.text.Reset()
			if e.ev != nil {
				e.ev = &session.Event{Kind: e.ev.Kind}
			}
		}
	}
}

// keepsText says whether the fold keeps the text of its entries: not in
// EachEvent's first read.
func (f *fold) keepsText() bool { return f.stream == nil || !f.stream.planning }

func (f *fold) line(line []byte) {
	if len(line) == 0 {
		return
	}
	typ, ok := recordType(line)
	if !ok {
		f.badLines++
		return
	}
	if !convTypes[typ] {
		return
	}
	r, ok := decodeRecord(line)
	if !ok {
		f.badLines++
		return
	}
	switch typ {
	case recAppendMessage:
		if r.msgOK {
			f.appendMessage(r.msg, r.time())
		}
	case recLoopEvent:
		if r.evOK {
			f.loopEvent(r.ev, r.Event, r.time())
		}
	case recCompaction:
		if _, kept := jsonNum(r.KeptUsers); kept {
			f.settle()
		} else {
			f.reset()
		}
		f.push(&entry{compaction: true})
	case recUndo:
		if n, ok := jsonNum(r.Count); ok && n >= 1 {
			f.undo(int(n))
		}
	case recClear:
		// The context starts afresh, but the history before it stays on
		// screen; it only stops /undo from reaching back past here.
		f.clearFloor = len(f.entries)
		f.reset()
	}
}

// appendMessage adds a context message (with events, its thinking before
// it and its tool calls or result after it), or holds it back while tool
// calls wait for results.
func (f *fold) appendMessage(m wireMessage, t time.Time) {
	if !f.withEvents {
		if e := messageEntry(m, t); e != nil {
			f.add(e)
		}
		return
	}
	es := f.messageEvents(m, t)
	if e := messageEntry(m, t); e != nil {
		es = append(es, e)
	}
	for _, e := range append(es, f.messageTools(m, t)...) {
		f.add(e)
	}
}

// add appends an entry made from a context message, or holds it back.
func (f *fold) add(e *entry) {
	if f.edge != nil {
		f.edge.add()
	}
	if len(f.pending) > 0 {
		f.place(e)
		f.deferred = append(f.deferred, e)
		return
	}
	f.push(e)
}

// messageEntry turns a context message into an entry, or nil when it shows
// nothing and /undo does not count it (tool results, injections, system).
func messageEntry(m wireMessage, t time.Time) *entry {
	switch jsonStr(m.Role) {
	case "user":
		o := readOrigin(m.Origin)
		e := &entry{time: t, anchor: o.undoAnchor()}
		if text, ok := prompt(m); ok {
			e.role = session.RoleUser
			e.text.WriteString(text)
		}
		if e.role == "" && !e.anchor {
			return nil
		}
		return e
	case "assistant":
		text := contentText(m.Content, false)
		if strings.TrimSpace(text) == "" {
			return nil
		}
		e := &entry{role: session.RoleAssistant, time: t}
		e.text.WriteString(text)
		return e
	}
	return nil
}

func (f *fold) loopEvent(e loopEvent, raw json.RawMessage, t time.Time) {
	switch jsonStr(e.Type) {
	case "step.begin":
		f.settle()
		f.open = &entry{role: session.RoleAssistant, time: t}
		f.openStep = jsonStr(e.UUID)
		f.push(f.open)
	case "step.end":
		// An interrupted or failed step stays open: its partial text was
		// shown and is kept until the next step settles it.
		if r := jsonStr(e.FinishReason); r == "interrupted" || r == "error" {
			return
		}
		f.settle()
	case "content.part":
		if f.accepts(e) {
			if f.keepsText() {
				f.open.text.WriteString(partText(e.Part))
			}
			if f.withEvents {
				f.thinking(thinkText(e.Part), t)
			}
		}
	case "tool.call":
		if f.withEvents {
			f.toolCall(raw, t)
		}
		if f.accepts(e) {
			if id := jsonStr(e.ToolCallID); id != "" {
				f.pending[id] = true
			}
		}
	case "tool.result":
		if f.withEvents {
			f.toolResult(raw, t)
		}
		id := jsonStr(e.ToolCallID)
		if f.pending[id] {
			delete(f.pending, id)
			f.flush()
		}
	}
}

// accepts reports whether a streamed event belongs to the open step.
func (f *fold) accepts(e loopEvent) bool {
	return f.open != nil && jsonStrIs(e.StepUUID, f.openStep)
}

// settle closes the open step: unanswered tool calls count as interrupted
// and the held-back messages follow.
func (f *fold) settle() {
	if f.edge != nil {
		f.edge.settle()
	}
	f.think = nil
	if f.open == nil {
		f.flush()
		return
	}
	clear(f.pending)
	f.flush()
	f.open, f.openStep = nil, ""
}

func (f *fold) flush() {
	if len(f.pending) > 0 || len(f.deferred) == 0 {
		return
	}
	f.entries = append(f.entries, f.deferred...)
	f.deferred = f.deferred[:0]
}

func (f *fold) reset() {
	if f.edge != nil {
		f.edge.reset()
	}
	f.open, f.openStep = nil, ""
	f.think = nil
	clear(f.pending)
	f.deferred = nil
}

// undo drops the last n user turns and everything after them, as /undo
// does; it never crosses a compaction or a /clear. (EachEvent's second
// read knows from its first which entries an /undo drops: it only
// resets.)
func (f *fold) undo(n int) {
	if f.stream != nil && !f.stream.planning {
		f.reset()
		return
	}
	removed := 0
	for i := len(f.entries) - 1; i >= f.clearFloor; i-- {
		e := f.entries[i]
		if e.compaction {
			break
		}
		f.entries = append(f.entries[:i], f.entries[i+1:]...)
		if e.anchor {
			removed++
			if removed >= n {
				break
			}
		}
	}
	f.reset()
}

// messages returns the visible messages in order. Deferred messages whose
// tool calls never got a result (the file ends mid-turn) are shown too:
// they were typed. Times never go backwards (kimi's own history view
// clamps them the same way): a record with an earlier clock than the one
// before it takes that one's time.
func (f *fold) messages() []session.Message {
	var out []session.Message
	f.walk(func(e *entry, text string, at time.Time) {
		if e.ev == nil {
			out = append(out, session.Message{Role: e.role, Text: text, Time: at})
		}
	})
	return out
}

// walk calls fn with every entry shown, in order: the visible messages,
// their times clamped as messages describes, and (with withEvents) the
// event entries at their own times.
func (f *fold) walk(fn func(e *entry, text string, at time.Time)) {
	all := append(f.entries[:len(f.entries):len(f.entries)], f.deferred...)
	var last time.Time
	for _, e := range all {
		if e.ev != nil {
			fn(e, e.text.String(), e.time)
			continue
		}
		if e.role == "" {
			continue
		}
		text := e.text.String()
		if strings.TrimSpace(text) == "" {
			continue
		}
		at := e.time
		if !at.IsZero() {
			if at.Before(last) {
				at = last
			}
			last = at
		}
		fn(e, text, at)
	}
}

// readWireConversation reads a whole wire file. A read error stops early
// and is returned with what was read before it.
func readWireConversation(ctx context.Context, path string) ([]session.Message, int, error) {
	f := newFold()
	err := f.read(ctx, path)
	return f.messages(), f.badLines, err
}

// read folds the wire file at path. A read error stops early and is
// returned; what was read before it stays in f.
func (f *fold) read(ctx context.Context, path string) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	ls := history.NewLineReader(file, maxLineBytes).KeepLong(keepTypes(convTypes))
	return eachLine(ctx, ls, func(line []byte) bool {
		f.line(line)
		return true
	})
}
