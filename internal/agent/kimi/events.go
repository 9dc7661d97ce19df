package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Events returns a session's full record, oldest first: the messages
// Conversation returns, in the same order and with the same times, with
// the model's visible thinking, its tool calls and their results between
// them (session.ErrNotFound when there is no such session).
//
// kimi-code: the main agent's wire, folded as for Conversation (an /undo
// drops the undone turns' events too). A step's thinking (its "think"
// parts, hidden ones left out) comes before the step's text, its tool
// calls after it, each result as it arrived; a result's isError is
// kimi-code's own. Subagents' wires are not read: their work is the
// parent's tool call and result.
//
// kimi-cli: the context.jsonl messages in file order (they carry no
// time): an assistant message's think parts, its text, its tool_calls,
// then the "tool" messages answering them. kimi-cli has no error flag;
// its error results start with its "<system>ERROR" wrapper.
func (s *Scanner) Events(ctx context.Context, id string) ([]session.Event, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, session.ErrNotFound
	}
	var evs []session.Event
	var bad int
	var err error
	if c.layout == current {
		f := newFold()
		f.withEvents = true
		err = f.read(ctx, c.path)
		evs, bad = f.events(), f.badLines
	} else {
		l := &legacyFold{withEvents: true}
		err = l.read(ctx, c.path)
		evs, bad = l.events, l.bad
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil && len(evs) == 0:
		s.problems.Error(c.path, "cannot read Kimi session", "err", err)
		return nil, err
	case err != nil || bad > 0:
		s.problems.Error(c.path, "Kimi session partly unreadable; showing what could be read", "bad_lines", bad, "err", err)
	}
	return evs, nil
}

// EachEvent hands Events' events to fn as the session is read, and stops
// at fn's first error, which it returns. A kimi-cli context.jsonl is
// read once, each line's events handed over at once. A kimi-code wire is
// folded twice, the same fold each time: first numbering the entries it
// places and keeping no text, to learn which an /undo drops; then
// handing over the entries the first fold kept, each as soon as nothing
// can change it any more (the open step's message and thinking grow
// until the step ends).
func (s *Scanner) EachEvent(ctx context.Context, id string, fn func(session.Event) error) error {
	c, ok := s.find(id)
	if !ok {
		return session.ErrNotFound
	}
	file, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return session.ErrNotFound // removed since find
	}
	if err != nil {
		s.problems.Error(c.path, "cannot read Kimi session", "err", err)
		return err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return err
	}
	size := st.Size() // both reads of a wire read the same bytes
	lines := func(keep func([]byte) bool) *history.LineReader {
		return history.NewLineReader(io.NewSectionReader(file, 0, size), maxLineBytes).KeepLong(keep)
	}
	var fnErr error
	emit := func(e session.Event) {
		if fnErr == nil {
			fnErr = fn(e)
		}
	}
	var bad int
	if c.layout == current {
		plan := newFold()
		plan.withEvents, plan.stream = true, &foldStream{planning: true}
		if err := eachLine(ctx, lines(keepTypes(convTypes)), func(line []byte) bool { plan.line(line); return true }); err != nil {
			if ctx.Err() == nil {
				s.problems.Error(c.path, "cannot read Kimi session", "err", err)
			}
			return err
		}
		es := &foldStream{keep: make([]bool, plan.stream.n), emit: emit}
		for _, e := range slices.Concat(plan.entries, plan.deferred) {
			es.keep[e.seq] = true
		}
		f := newFold()
		f.withEvents, f.stream = true, es
		err = eachLine(ctx, lines(keepTypes(convTypes)), func(line []byte) bool {
			f.line(line)
			es.ready(f)
			return fnErr == nil
		})
		es.end(f)
		bad = f.badLines
	} else {
		l := &legacyFold{withEvents: true, emit: emit}
		err = eachLine(ctx, lines(keepLegacyEvents), func(line []byte) bool {
			l.line(line)
			return fnErr == nil
		})
		bad = l.bad
	}
	switch {
	case fnErr != nil:
		return fnErr
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil || bad > 0:
		s.problems.Error(c.path, "Kimi session partly unreadable; showing what could be read", "bad_lines", bad, "err", err)
	}
	return nil
}

// foldStream is EachEvent's side of a wire's fold (fold.stream).
type foldStream struct {
	planning bool
	n        int // entries placed

	keep []bool // by entry: the first fold kept it
	last time.Time
	emit func(session.Event)
}

// ready hands over the entries at the start of the fold that nothing can
// change any more — all before the open step's thinking or message —
// and lets them go.
func (es *foldStream) ready(f *fold) {
	n := len(f.entries)
	for i := n - 1; i >= 0 && (f.open != nil || f.think != nil); i-- {
		if e := f.entries[i]; e == f.open || e == f.think {
			n = i
		}
	}
	for _, e := range f.entries[:n] {
		es.entry(e)
	}
	k := copy(f.entries, f.entries[n:])
	clear(f.entries[k:])
	f.entries = f.entries[:k]
}

// end hands over the rest, as walk orders it.
func (es *foldStream) end(f *fold) {
	for _, e := range slices.Concat(f.entries, f.deferred) {
		es.entry(e)
	}
}

// entry hands over one entry as events() does, if the first fold kept it.
func (es *foldStream) entry(e *entry) {
	if e.seq >= len(es.keep) || !es.keep[e.seq] {
		return
	}
	text := e.text.String()
	if e.ev != nil {
		ev := *e.ev
		if ev.Kind == session.EventThinking {
			if strings.TrimSpace(text) == "" {
				return
			}
			ev.Text = text
		}
		ev.Time = e.time
		es.emit(ev)
		return
	}
	if e.role == "" || strings.TrimSpace(text) == "" {
		return
	}
	at := e.time
	if !at.IsZero() {
		if at.Before(es.last) {
			at = es.last
		}
		es.last = at
	}
	es.emit(session.Event{Kind: session.EventMessage, Role: e.role, Text: text, Time: at})
}

// events is messages with the event entries between them: the same walk,
// so its EventMessage entries are exactly messages().
func (f *fold) events() []session.Event {
	var out []session.Event
	f.walk(func(e *entry, text string, at time.Time) {
		if e.ev == nil {
			out = append(out, session.Event{Kind: session.EventMessage, Role: e.role, Text: text, Time: at})
			return
		}
		ev := *e.ev
		if ev.Kind == session.EventThinking {
			if strings.TrimSpace(text) == "" {
				return
			}
			ev.Text = text
		}
		ev.Time = at
		out = append(out, ev)
	})
	return out
}

// thinking adds a step's thinking text to its entry, made on the first
// text and placed before the step's message.
func (f *fold) thinking(text string, t time.Time) {
	if text == "" || f.open == nil {
		return
	}
	if f.think == nil {
		f.think = &entry{time: t, ev: &session.Event{Kind: session.EventThinking}}
		i := len(f.entries) - 1
		for i >= 0 && f.entries[i] != f.open {
			i--
		}
		if i < 0 {
			f.push(f.think)
		} else {
			f.place(f.think)
			f.entries = slices.Insert(f.entries, i, f.think)
		}
	}
	if f.keepsText() {
		f.think.text.WriteString(text)
	}
}

// loopDetail is what a tool.call or tool.result loop event says beyond
// what the fold reads.
type loopDetail struct {
	ToolCallID json.RawMessage `json:"toolCallId"`
	Name       json.RawMessage `json:"name"`
	Args       json.RawMessage `json:"args"`
	Result     json.RawMessage `json:"result"` // {output, isError}
}

// record reports whether the entry of kind for id is new, remembering it:
// a call may be both a loop event and part of a context message.
func (f *fold) record(kind, id string) bool {
	if id == "" {
		return true
	}
	if f.recorded == nil {
		f.recorded = make(map[string]bool)
	}
	key := kind + "\x00" + id
	if f.recorded[key] {
		return false
	}
	f.recorded[key] = true
	return true
}

func (f *fold) toolCall(raw json.RawMessage, t time.Time) {
	var d loopDetail
	if json.Unmarshal(raw, &d) != nil {
		return
	}
	id := jsonStr(d.ToolCallID)
	if !f.record(session.EventToolCall, id) {
		return
	}
	f.push(&entry{time: t, ev: &session.Event{Kind: session.EventToolCall, Tool: jsonStr(d.Name), ToolID: id, Input: jsonInput(d.Args)}})
}

func (f *fold) toolResult(raw json.RawMessage, t time.Time) {
	var d loopDetail
	if json.Unmarshal(raw, &d) != nil {
		return
	}
	id := jsonStr(d.ToolCallID)
	if !f.record(session.EventToolResult, id) {
		return
	}
	r := object(d.Result)
	f.push(&entry{time: t, ev: &session.Event{
		Kind:    session.EventToolResult,
		ToolID:  id,
		Text:    history.ClipOutput(outputText(r["output"])),
		IsError: jsonBool(r["isError"]),
	}})
	for _, ev := range partImages(r["output"], "", id, t) {
		f.push(&entry{time: t, ev: &ev})
	}
}

// partImages are the image_url parts of a content list, whose URL is a
// data URL: kimi-code spells the member imageUrl, kimi-cli image_url.
func partImages(raw json.RawMessage, role, toolID string, t time.Time) []session.Event {
	var parts []map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []session.Event
	for _, p := range parts {
		if jsonStr(p["type"]) != "image_url" {
			continue
		}
		img := p["imageUrl"]
		if img == nil {
			img = p["image_url"]
		}
		if ev, ok := session.DataURLImage(jsonStr(object(img)["url"]), role, toolID, t); ok {
			out = append(out, ev)
		}
	}
	return out
}

// messageEvents returns the thinking of a context message (an assistant
// message kimi-code migrated or replayed whole), or nothing.
func (f *fold) messageEvents(m wireMessage, t time.Time) []*entry {
	if jsonStr(m.Role) != "assistant" {
		return nil
	}
	text := thinkParts(m.Content)
	if strings.TrimSpace(text) == "" {
		return nil
	}
	e := &entry{time: t, ev: &session.Event{Kind: session.EventThinking}}
	e.text.WriteString(text)
	return []*entry{e}
}

// messageTools returns a context message's tool calls (assistant) or its
// result (role "tool"), those not already recorded from loop events.
func (f *fold) messageTools(m wireMessage, t time.Time) []*entry {
	var out []*entry
	switch jsonStr(m.Role) {
	case "assistant":
		for _, ev := range toolCalls(m.ToolCalls) {
			if f.record(session.EventToolCall, ev.ToolID) {
				out = append(out, &entry{time: t, ev: &ev})
			}
		}
	case "tool":
		id := jsonStr(m.ToolCallID)
		if f.record(session.EventToolResult, id) {
			ev := toolMessage(id, m.Content)
			out = append(out, &entry{time: t, ev: &ev})
			for _, img := range partImages(m.Content, "", id, t) {
				out = append(out, &entry{time: t, ev: &img})
			}
		}
	}
	return out
}

// toolCalls reads a message's tool calls: kimi-code's {"type":"function",
// "id","name","arguments"} and kimi-cli's (kosong's) {"id","function":
// {"name","arguments"}}; arguments is JSON text.
func toolCalls(raw json.RawMessage) []session.Event {
	var out []session.Event
	for _, el := range array(raw) {
		tc := object(el)
		if tc == nil {
			continue
		}
		name, args := tc["name"], tc["arguments"]
		if fn := object(tc["function"]); fn != nil {
			name, args = fn["name"], fn["arguments"]
		}
		out = append(out, session.Event{Kind: session.EventToolCall, Tool: jsonStr(name), ToolID: jsonStr(tc["id"]), Input: jsonInput(args)})
	}
	return out
}

// toolMessage is the result a "tool" message holds: its text parts. Neither
// program flags an error there; kimi-cli starts an error's output with
// "<system>ERROR".
func toolMessage(id string, content json.RawMessage) session.Event {
	text := outputText(content)
	return session.Event{
		Kind:    session.EventToolResult,
		ToolID:  id,
		Text:    history.ClipOutput(text),
		IsError: strings.HasPrefix(strings.TrimSpace(text), "<system>ERROR"),
	}
}

// thinkText returns the text of a streamed "think" part that is shown
// (kimi-code's {"type":"think","think"}; hidden and encrypted-only parts
// give ""); every other part gives "".
func thinkText(raw json.RawMessage) string {
	p := object(raw)
	if p == nil || jsonStr(p["type"]) != "think" || jsonBool(p["hidden"]) {
		return ""
	}
	if t := jsonStr(p["think"]); t != "" {
		return t
	}
	return jsonStr(p["text"])
}

// thinkParts joins the shown think parts of message content.
func thinkParts(content json.RawMessage) string {
	var b strings.Builder
	for _, p := range array(content) {
		b.WriteString(thinkText(p))
	}
	return b.String()
}

// outputText returns a tool's output: a string, or content parts whose
// text parts are joined (media and thinking are left out).
func outputText(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		return jsonStr(raw)
	}
	return contentText(raw, false)
}

// jsonInput returns a call's input as JSON text: an object or array as it
// is, a string holding JSON (kimi's arguments) as that JSON, any other
// string as a JSON string, nothing as "".
func jsonInput(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '{' || raw[0] == '[' {
		return string(raw)
	}
	text := jsonStr(raw)
	if t := strings.TrimSpace(text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return t
	}
	if text == "" {
		return ""
	}
	b, _ := json.Marshal(text) // a string cannot fail to marshal
	return string(b)
}

// Events of kimi-cli's context.jsonl (legacyFold).

// keepLegacyEvents keeps long context lines that may be messages or tool
// results; bookkeeping is skipped.
func keepLegacyEvents(prefix []byte) bool {
	role, ok := legacyRole(prefix)
	return !ok || role == "user" || role == "assistant" || role == "tool"
}

func (l *legacyFold) thinking(content json.RawMessage) {
	if text := thinkParts(content); strings.TrimSpace(text) != "" {
		l.event(session.Event{Kind: session.EventThinking, Text: text})
	}
}

func (l *legacyFold) toolCalls(raw json.RawMessage) {
	l.event(toolCalls(raw)...)
}

// toolLine reads a "tool" message: {"role":"tool","content",
// "tool_call_id"}.
func (l *legacyFold) toolLine(line []byte) {
	var m struct {
		Content    json.RawMessage `json:"content"`
		ToolCallID json.RawMessage `json:"tool_call_id"`
	}
	if json.Unmarshal(line, &m) != nil {
		l.bad++
		return
	}
	l.event(toolMessage(jsonStr(m.ToolCallID), m.Content))
}
