package codex

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
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
	c.events = append(c.events, ev)
	if ev.Kind == session.EventToolResult {
		c.events = append(c.events, outputImages(r.item, ev.ToolID, r.time)...)
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
