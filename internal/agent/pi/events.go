package pi

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"paddock/internal/history"
	"strings"
	"time"

	"paddock/internal/session"
)

// Events returns a session's full record, oldest first: the messages
// Conversation returns, in the same order, with the model's thinking, its
// tool calls and their results, and the shell commands the user ran with
// `!` (a bash call and its output), all from the current branch
// (session.ErrNotFound when no file has that id).
func (s *Scanner) Events(ctx context.Context, id string) ([]session.Event, error) {
	c, err := s.find(ctx, id)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, session.ErrNotFound // removed since find
	}
	if err != nil {
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return nil, err
	}
	defer f.Close()
	t, err := readTranscriptFile(ctx, f, &transcript{withEvents: true})
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case t == nil:
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return nil, err
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(c.path, "Pi session file partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return t.events(), nil
}

// events is messages with every other event of the branch's entries: the
// same entries in the same order, so its EventMessage entries are exactly
// messages().
func (t *transcript) events() []session.Event {
	var out []session.Event
	for _, i := range t.branch() {
		for _, e := range t.nodeEvents[i] {
			if e.Kind == session.EventMessage {
				m, _ := t.msg(i)
				e = session.Event{Kind: session.EventMessage, Role: m.Role, Text: m.Text, Time: m.Time}
			}
			out = append(out, e)
		}
	}
	return out
}

// entryEvents reads the events of one message entry, in content order:
// an assistant's thinking and tool calls, with one slot for the entry's
// message (hasMsg) where its first text part is; a tool result; a user's
// `!` shell command as a bash call and its output. Other roles (custom,
// branchSummary, compactionSummary) are not part of the record.
func entryEvents(e *entry, hasMsg bool) []session.Event {
	var out []session.Event
	when := e.when()
	add := func(ev session.Event) {
		ev.Time = when
		out = append(out, ev)
	}
	var m piMessage
	_, _ = objectEnd(e.Message, 0, 1, m.member)
	switch m.role {
	case roleAssistant:
		eachElement(m.content, func(part []byte) {
			ev, ok := partEvent(part)
			switch {
			case !ok:
			case ev.Kind == session.EventMessage:
				if hasMsg {
					add(ev)
					hasMsg = false
				}
			default:
				add(ev)
			}
		})
	case roleToolResult:
		add(session.Event{Kind: session.EventToolResult, ToolID: m.toolCallID,
			Text: history.ClipOutput(resultText(m.content)), IsError: m.isError})
		for _, ev := range contentImages(m.content, "", m.toolCallID) {
			add(ev)
		}
	case roleUser:
		for _, ev := range contentImages(m.content, session.RoleUser, "") {
			add(ev)
		}
	case roleBash:
		input, _ := json.Marshal(map[string]string{"command": m.command})
		add(session.Event{Kind: session.EventToolCall, Tool: "bash", Input: string(input)})
		add(session.Event{Kind: session.EventToolResult, Text: history.ClipOutput(m.output),
			IsError: m.cancelled || m.exitCode != 0})
	}
	if hasMsg { // a user message, or a plain string content
		out = append([]session.Event{{Kind: session.EventMessage, Time: when}}, out...)
	}
	return out
}

// Message roles beyond user and assistant that the record keeps.
const (
	roleToolResult = "toolResult"
	roleBash       = "bashExecution" // a command the user ran with `!`
)

// piMessage is what events read of a message object.
type piMessage struct {
	role, toolCallID string
	content          []byte
	isError          bool
	command, output  string
	exitCode         float64
	cancelled        bool
}

func (m *piMessage) member(key, val []byte) {
	switch string(key) {
	case "role":
		m.role, _ = jsonString(val)
	case "content":
		m.content = val
	case "toolCallId":
		m.toolCallID, _ = jsonString(val)
	case "isError":
		m.isError = string(val) == "true"
	case "command":
		m.command, _ = jsonString(val)
	case "output":
		m.output, _ = jsonString(val)
	case "exitCode":
		m.exitCode, _ = jsonNumber(val)
	case "cancelled":
		m.cancelled = string(val) == "true"
	}
}

// partEvent reads one part of an assistant's content: a text part gives
// an empty EventMessage (the entry's message slot), non-blank thinking a
// thinking event, a toolCall a call; anything else (images, redacted
// thinking) nothing.
func partEvent(part []byte) (session.Event, bool) {
	if len(part) == 0 || part[0] != '{' {
		return session.Event{}, false
	}
	var typ, thinking, id, name string
	var args []byte
	redacted := false
	_, _ = objectEnd(part, 0, 1, func(key, val []byte) {
		switch string(key) {
		case "type":
			typ, _ = jsonString(val)
		case "thinking":
			thinking, _ = jsonString(val)
		case "redacted":
			redacted = string(val) == "true"
		case "id":
			id, _ = jsonString(val)
		case "name":
			name, _ = jsonString(val)
		case "arguments":
			args = val
		}
	})
	switch typ {
	case "text":
		return session.Event{Kind: session.EventMessage}, true
	case "thinking":
		if thinking = strings.TrimSpace(thinking); redacted || thinking == "" {
			return session.Event{}, false
		}
		return session.Event{Kind: session.EventThinking, Text: thinking}, true
	case "toolCall":
		return session.Event{Kind: session.EventToolCall, Tool: name, ToolID: id, Input: history.ClipJSON(args)}, true
	}
	return session.Event{}, false
}

// contentImages are the image parts of a content list, {"type":"image",
// "data": base64, "mimeType"}, attached by role or returned by toolID.
func contentImages(content []byte, role, toolID string) []session.Event {
	var out []session.Event
	eachElement(content, func(part []byte) {
		if len(part) == 0 || part[0] != '{' {
			return
		}
		var typ, data, mimeType string
		_, _ = objectEnd(part, 0, 1, func(key, val []byte) {
			switch string(key) {
			case "type":
				typ, _ = jsonString(val)
			case "data":
				data, _ = jsonString(val)
			case "mimeType":
				mimeType, _ = jsonString(val)
			}
		})
		if typ != "image" {
			return
		}
		if ev, ok := session.ImageEvent(mimeType, data, role, toolID, time.Time{}); ok {
			out = append(out, ev)
		}
	})
	return out
}

// resultText is the text of a tool result's content: a string as it is,
// the text parts of a part list one per line (images have none).
func resultText(content []byte) string {
	if s, ok := jsonString(content); ok {
		return s
	}
	var lines []string
	eachElement(content, func(part []byte) {
		if len(part) == 0 || part[0] != '{' {
			return
		}
		var typ, text string
		_, _ = objectEnd(part, 0, 1, func(key, val []byte) {
			switch string(key) {
			case "type":
				typ, _ = jsonString(val)
			case "text":
				text, _ = jsonString(val)
			}
		})
		if typ == "text" {
			lines = append(lines, text)
		}
	})
	return strings.Join(lines, "\n")
}
