package codex

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Events returns a session's full record, oldest first: the messages
// Conversation returns, in the same order, with the model's reasoning
// summaries, its tool calls and their outputs between them
// (session.ErrNotFound when it has no rollout; a live session with no
// rollout yet has none).
//
// Everything comes from the response items, what the model saw: the UI
// events Codex writes beside them (agent_reasoning, item_completed
// CommandExecution, …) repeat them, and only a command's outcome is taken
// from those. A rollback drops the undone turns' events with their
// messages.
func (s *Scanner) Events(ctx context.Context, id string) ([]session.Event, error) {
	c, ok := s.find(id)
	if !ok {
		if validID(id) && s.bindings(ctx).locked[id] {
			return nil, nil
		}
		return nil, session.ErrNotFound
	}
	conv, err := readRollout(ctx, c.path, &conversation{withEvents: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, session.ErrNotFound // removed since find
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case conv == nil:
		s.problems.Error(c.path, "cannot read Codex rollout", "err", err)
		return nil, err
	}
	if err != nil || conv.badLines > 0 {
		s.problems.Error(c.path, "Codex rollout partly unreadable; showing what could be read",
			"bad_lines", conv.badLines, "err", err)
	}
	return conv.events, nil
}

// calls pairs a command's outcome with its output: Codex 0.169 writes the
// item_completed CommandExecution just before the function_call_output,
// older versions after it, or not at all.
type calls struct {
	results map[string]int  // call id → index in events of its output
	failed  map[string]bool // call ids whose command failed or was declined
}

// addEvent records what r holds besides a message: a command's outcome, a
// reasoning summary, a tool call or a tool's output.
func (c *conversation) addEvent(r *record) {
	if r.exec.callID != "" && r.exec.failed {
		if c.calls.failed == nil {
			c.calls.failed = make(map[string]bool)
		}
		c.calls.failed[r.exec.callID] = true
		if i, ok := c.calls.results[r.exec.callID]; ok && i < len(c.events) && c.events[i].ToolID == r.exec.callID {
			c.events[i].IsError = true
		}
	}
	if len(r.item) == 0 {
		return
	}
	ev, ok := itemEvent(r.item)
	if !ok {
		return
	}
	ev.Time = r.time
	if ev.Kind == session.EventToolResult && ev.ToolID != "" {
		if c.calls.failed[ev.ToolID] {
			ev.IsError = true
		}
		if c.calls.results == nil {
			c.calls.results = make(map[string]int)
		}
		c.calls.results[ev.ToolID] = len(c.events)
	}
	c.appendEvents(ev)
	if ev.Kind == session.EventToolResult {
		c.appendEvents(outputImages(r.item, ev.ToolID, r.time)...)
	}
}

// appendEvents adds evs to the record: kept (Events), or as EachEvent's
// stream takes them.
func (c *conversation) appendEvents(evs ...session.Event) {
	switch es := c.stream; {
	case es == nil:
		c.events = append(c.events, evs...)
	case es.planning:
		for _, e := range evs {
			// What the fold itself reads of an event: its place, its
			// call id, its error flag (which a later record may set).
			c.events = append(c.events, session.Event{Kind: e.Kind, ToolID: e.ToolID, IsError: e.IsError})
			es.seqs = append(es.seqs, es.n)
			es.n++
		}
	default:
		for _, e := range evs {
			es.event(e)
		}
	}
}

// EachEvent hands Events' events to fn as the rollout is read, and stops
// at fn's first error, which it returns. The rollout is read twice, the
// same fold each time: first numbering the events and keeping of each
// only its call id and error flag, to learn which a rollback drops and
// which outputs a later record marks failed; then handing over the
// events the first read kept, as they are read, keeping nothing.
func (s *Scanner) EachEvent(ctx context.Context, id string, fn func(session.Event) error) error {
	c, ok := s.find(id)
	if !ok {
		if validID(id) && s.bindings(ctx).locked[id] {
			return nil
		}
		return session.ErrNotFound
	}
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return session.ErrNotFound // removed since find
	}
	if err != nil {
		s.problems.Error(c.path, "cannot read Codex rollout", "err", err)
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size() // both reads read the same bytes
	plan := &conversation{withEvents: true, stream: &eventStream{planning: true}}
	if _, err := readRecords(ctx, history.NewLineReader(io.NewSectionReader(f, 0, size), maxLineBytes), true, plan.add); ctx.Err() != nil {
		return ctx.Err()
	} else if err != nil {
		s.problems.Error(c.path, "cannot read Codex rollout", "err", err)
		return err
	}
	es := &eventStream{fn: fn, keep: make([]bool, plan.stream.n), failed: make([]bool, plan.stream.n)}
	for i, seq := range plan.stream.seqs {
		es.keep[seq], es.failed[seq] = true, plan.events[i].IsError
	}
	plan = nil
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	es.cancel = cancel
	conv := &conversation{withEvents: true, stream: es}
	bad, err := readRecords(rctx, history.NewLineReader(io.NewSectionReader(f, 0, size), maxLineBytes), true, conv.add)
	switch {
	case es.err != nil:
		return es.err
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if err != nil || bad > 0 {
		s.problems.Error(c.path, "Codex rollout partly unreadable; showing what could be read",
			"bad_lines", bad, "err", err)
	}
	return nil
}

// eventStream is EachEvent's side of the fold (conversation.stream).
type eventStream struct {
	planning bool
	seqs     []int // planning: the number of each event kept so far
	n        int   // events numbered

	keep, failed []bool // by number, from the first read
	fn           func(session.Event) error
	err          error // fn's, which ends the read
	cancel       context.CancelFunc
}

// event hands over the next event of the second read, if the first kept
// it, with the error flag it ended with.
func (es *eventStream) event(e session.Event) {
	i := es.n
	es.n++
	if es.err != nil || i >= len(es.keep) || !es.keep[i] {
		return
	}
	e.IsError = es.failed[i]
	if es.err = es.fn(e); es.err != nil {
		es.cancel()
	}
}

// outputImages are the images a call's output returned (view_image):
// input_image parts of an output array.
func outputImages(item []byte, callID string, t time.Time) []session.Event {
	var output []byte
	_ = members(item, func(k, v []byte) bool {
		if string(k) == "output" {
			output = v
			return false
		}
		return true
	})
	if len(output) == 0 || output[0] != '[' {
		return nil
	}
	return imageParts(output, "", callID, t)
}

// imageParts reads the input_image parts of a content array; Codex keeps
// each image as a data URL.
func imageParts(arr []byte, role, toolID string, t time.Time) []session.Event {
	var out []session.Event
	_ = elements(arr, func(el []byte) {
		var typ, url string
		_ = members(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = str(v)
			case "image_url":
				url = str(v)
			}
			return true
		})
		if typ != "input_image" {
			return
		}
		if e, ok := session.DataURLImage(url, role, toolID, t); ok {
			out = append(out, e)
		}
	})
	return out
}

// itemEvent reads a response item that is not a message: reasoning, a
// function, custom (apply_patch), local shell or web search call, or a
// call's output. Other items (image generation, compaction markers, …) and
// reasoning without readable text (only encrypted_content) give nothing.
func itemEvent(item []byte) (session.Event, bool) {
	var typ, name, callID, itemID string
	var arguments, input, action, output, summary, content []byte
	_ = members(item, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = str(v)
		case "name":
			name = str(v)
		case "call_id":
			callID = str(v)
		case "id":
			itemID = str(v)
		case "arguments":
			arguments = v
		case "input":
			input = v
		case "action":
			action = v
		case "output":
			output = v
		case "summary":
			summary = v
		case "content":
			content = v
		}
		return true
	})
	switch typ {
	case "reasoning":
		text := partsText(summary, "\n\n", "summary_text")
		if text == "" {
			text = partsText(content, "\n\n", "reasoning_text", "text")
		}
		if strings.TrimSpace(text) == "" {
			return session.Event{}, false
		}
		return session.Event{Kind: session.EventThinking, Text: text}, true
	case "function_call":
		return session.Event{Kind: session.EventToolCall, Tool: name, ToolID: callID, Input: jsonInput(arguments)}, true
	case "custom_tool_call":
		return session.Event{Kind: session.EventToolCall, Tool: name, ToolID: callID, Input: jsonInput(input)}, true
	case "local_shell_call":
		return session.Event{Kind: session.EventToolCall, Tool: "local_shell", ToolID: cmp.Or(callID, itemID), Input: jsonInput(action)}, true
	case "web_search_call":
		return session.Event{Kind: session.EventToolCall, Tool: "web_search", ToolID: cmp.Or(callID, itemID), Input: jsonInput(action)}, true
	case "function_call_output", "custom_tool_call_output":
		text, failed := outputText(output)
		return session.Event{
			Kind:    session.EventToolResult,
			ToolID:  callID,
			Text:    history.ClipOutput(text),
			IsError: failed || refused(text),
		}, true
	}
	return session.Event{}, false
}

// jsonInput returns a call's input as JSON text. Codex keeps a function
// call's arguments as a string holding JSON, a custom tool's input as
// free text (an apply_patch body) and a shell action as an object: JSON
// objects and arrays pass as they are, any other text becomes a JSON
// string, and nothing at all is "".
func jsonInput(raw []byte) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '{' || raw[0] == '[' {
		if json.Valid(raw) {
			return string(raw)
		}
		return ""
	}
	text := str(raw)
	if t := strings.TrimSpace(text); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		return t
	}
	if text == "" {
		return ""
	}
	b, _ := json.Marshal(text) // a string cannot fail to marshal
	return string(b)
}

// outputText returns a call's output: a string, an array of content
// items ({"type":"input_text","text"}, images), or an object
// {"content", "success"} whose success false marks a failure.
func outputText(raw []byte) (string, bool) {
	switch {
	case len(raw) == 0:
		return "", false
	case raw[0] == '"':
		return str(raw), false
	case raw[0] == '[':
		return partsText(raw, "\n", "input_text", "output_text", "text"), false
	case isObject(raw):
		var content, success []byte
		_ = members(raw, func(k, v []byte) bool {
			switch string(k) {
			case "content":
				content = v
			case "success":
				success = v
			}
			return true
		})
		text, _ := outputText(content)
		return text, string(success) == "false"
	}
	return "", false
}

// partsText joins the text of the array elements whose type is in types,
// as they are (a tool's output keeps its whitespace).
func partsText(arr []byte, sep string, types ...string) string {
	var texts []string
	_ = elements(arr, func(el []byte) {
		var typ, text string
		_ = members(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = str(v)
			case "text":
				text = str(v)
			}
			return true
		})
		for _, t := range types {
			if typ == t && text != "" {
				texts = append(texts, text)
				break
			}
		}
	})
	return strings.Join(texts, sep)
}

// refused reports Codex's own outputs for a call that did not run or was
// cut short: the person declined the approval ("exec command rejected by
// user", "patch rejected by user") or interrupted the turn while it ran
// (the output ends "aborted by user"). Codex records no error flag for
// them; these fixed texts are how its history tells.
func refused(text string) bool {
	t := strings.TrimSpace(text)
	if t == "exec command rejected by user" || t == "patch rejected by user" {
		return true
	}
	last := t[strings.LastIndexByte(t, '\n')+1:]
	return last == "aborted by user"
}
