package pi

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

// EachEvent hands Events' events to fn as the file is read, and stops at
// fn's first error, which it returns. The file is read twice: first for
// its tree alone (the ids), to find the branch; then entry by entry,
// each entry of the branch handing over its events at once — unless the
// branch runs against the file's order (a hand-edited file), which only
// the whole record can put right: then Events' events are handed over.
func (s *Scanner) EachEvent(ctx context.Context, id string, fn func(session.Event) error) error {
	c, err := s.find(ctx, id)
	if err != nil {
		return err
	}
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return session.ErrNotFound // removed since find
	}
	if err != nil {
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size() // both reads read the same bytes
	tree := &transcript{nodesOnly: true}
	fr := fileRead{t: tree}
	fr.readFile(ctx, f, size, size)
	if t, err := fr.transcript(); ctx.Err() != nil {
		return ctx.Err()
	} else if t == nil {
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return err
	}
	branch := tree.branch()
	if !slices.IsSorted(branch) {
		evs, err := s.Events(ctx, id)
		if err != nil {
			return err
		}
		for _, e := range evs {
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	}
	keep := make([]bool, len(tree.nodes))
	for _, i := range branch {
		keep[i] = true
	}
	tree = nil
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	es := &eventStream{keep: keep, fn: fn, cancel: cancel}
	t, err := readTranscriptWith(rctx, io.NewSectionReader(f, 0, size), &transcript{withEvents: true, stream: es})
	switch {
	case es.err != nil:
		return es.err
	case ctx.Err() != nil:
		return ctx.Err()
	case t == nil:
		s.problems.Error(c.path, "cannot read Pi session file", "err", err)
		return err
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(c.path, "Pi session file partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return nil
}

// eventStream hands the events of the branch's entries over as a
// streaming read numbers them (transcript.stream).
type eventStream struct {
	keep   []bool // by node: on the branch
	n      int    // nodes read
	fn     func(session.Event) error
	err    error // fn's, which ends the read
	cancel context.CancelFunc
}

// node takes the next node's message and events, as events does.
func (es *eventStream) node(msg session.Message, events []session.Event) {
	i := es.n
	es.n++
	if es.err != nil || i >= len(es.keep) || !es.keep[i] {
		return
	}
	for _, e := range events {
		if e.Kind == session.EventMessage {
			e = session.Event{Kind: session.EventMessage, Role: msg.Role, Text: msg.Text, Time: msg.Time}
		}
		if es.err = es.fn(e); es.err != nil {
			es.cancel()
			return
		}
	}
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
