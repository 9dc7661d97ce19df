package claude

import (
	"context"
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
// Conversation returns, in the same order, with the model's thinking, its
// tool calls and their results between them, all from the current branch
// (session.ErrNotFound if there is no transcript).
//
// Claude writes one API message as several lines sharing message.id (text,
// thinking, tool_use); as in Conversation their texts are one message,
// placed where its first text was.
func (s *Scanner) Events(ctx context.Context, id string) ([]session.Event, error) {
	c, ok := s.find(id)
	if !ok {
		return nil, session.ErrNotFound
	}
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, session.ErrNotFound // removed since find
	}
	if err != nil {
		s.problems.Error(c.path, "cannot read Claude transcript", "err", err)
		return nil, err
	}
	defer f.Close()
	t := &transcript{withEvents: true}
	err = t.read(ctx, f)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(c.path, "Claude transcript partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return t.events(), nil
}

// EachEvent hands Events' events to fn as the transcript is read, and
// stops at fn's first error, which it returns. The file is read twice:
// first for its tree alone (uuids, parents, message ids), to find the
// branch and which lines of one API message join; then record by record,
// each record of the branch handing over its events at once — held back
// only while a message split over lines has more lines to come.
func (s *Scanner) EachEvent(ctx context.Context, id string, fn func(session.Event) error) error {
	c, ok := s.find(id)
	if !ok {
		return session.ErrNotFound
	}
	f, err := os.Open(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return session.ErrNotFound // removed since find
	}
	if err != nil {
		s.problems.Error(c.path, "cannot read Claude transcript", "err", err)
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size() // both reads read the same bytes
	tree := &transcript{treeOnly: true}
	if err := tree.read(ctx, io.NewSectionReader(f, 0, size)); ctx.Err() != nil {
		return ctx.Err()
	} else if err != nil {
		s.problems.Error(c.path, "cannot read Claude transcript", "err", err)
		return err
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	es := tree.eventPlan(fn, cancel)
	tree = nil
	t := &transcript{withEvents: true, stream: es}
	err = t.read(rctx, io.NewSectionReader(f, 0, size))
	switch {
	case es.err != nil:
		return es.err
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if err := es.end(); err != nil {
		return err
	}
	if err != nil || t.badLines > 0 {
		s.problems.Error(c.path, "Claude transcript partly unreadable; showing what could be read",
			"bad_lines", t.badLines, "err", err)
	}
	return nil
}

// eventStream hands over the events of a streaming read's records, as
// events() would make them of the whole transcript (transcript.stream).
type eventStream struct {
	kept     []bool      // by record: not on an abandoned branch
	joined   []bool      // by record: its text joins the message before
	lastJoin map[int]int // a message's record → the last record joining it
	n        int         // records read

	held      []session.Event // a message still being joined, and what came after it
	holdUntil int
	fn        func(session.Event) error
	err       error // fn's, which ends the read
	cancel    context.CancelFunc
}

// eventPlan finds, from a tree-only read, which records events() keeps
// and which of their messages join: the same walk, without the texts.
func (t *transcript) eventPlan(fn func(session.Event) error, cancel context.CancelFunc) *eventStream {
	abandoned := t.abandonedTest()
	es := &eventStream{kept: make([]bool, len(t.records)), joined: make([]bool, len(t.records)),
		lastJoin: map[int]int{}, fn: fn, cancel: cancel}
	lastID, lastMsg := "", -1
	for i, r := range t.records {
		if r.uuid != "" && abandoned.test(r.uuid) {
			continue
		}
		es.kept[i] = true
		if !r.hasMsg {
			continue
		}
		if r.messageID != "" && r.messageID == lastID && lastMsg >= 0 {
			es.joined[i] = true
			es.lastJoin[lastMsg] = i
			continue
		}
		lastID, lastMsg = r.messageID, i
	}
	return es
}

// record takes the next record of the streaming read.
func (es *eventStream) record(c *convRecord) {
	i := es.n
	es.n++
	if es.err != nil || i >= len(es.kept) || !es.kept[i] {
		return
	}
	for _, e := range c.events {
		if e.Kind == session.EventMessage {
			if es.joined[i] && len(es.held) > 0 {
				es.held[0].Text += "\n\n" + c.msg.Text
				continue
			}
			e = session.Event{Kind: session.EventMessage, Role: c.msg.Role, Text: c.msg.Text, Time: c.msg.Time}
			if until, ok := es.lastJoin[i]; ok {
				es.held, es.holdUntil = append(es.held[:0], e), until
				continue
			}
		}
		es.put(e)
	}
	if len(es.held) > 0 && i >= es.holdUntil {
		es.flush()
	}
}

// put hands e over, or holds it behind a message still being joined.
func (es *eventStream) put(e session.Event) {
	if len(es.held) > 0 {
		es.held = append(es.held, e)
		return
	}
	if es.err == nil {
		if es.err = es.fn(e); es.err != nil {
			es.cancel()
		}
	}
}

// flush hands over what was held.
func (es *eventStream) flush() {
	held := es.held
	es.held = nil
	for _, e := range held {
		es.put(e)
	}
}

// end hands over what is still held (the file ended early) and returns
// fn's error.
func (es *eventStream) end() error {
	es.flush()
	return es.err
}

// events is messages with every other event of the branch's records: the
// same records in the same order, and the same joining of one API message's
// texts, so its EventMessage entries are exactly messages().
func (t *transcript) events() []session.Event {
	abandoned := t.abandonedTest()
	var out []session.Event
	lastID := ""
	lastMsg := -1
	for _, r := range t.records {
		if len(r.events) == 0 || (r.uuid != "" && abandoned.test(r.uuid)) {
			continue
		}
		for _, e := range r.events {
			if e.Kind != session.EventMessage {
				out = append(out, e)
				continue
			}
			if r.messageID != "" && r.messageID == lastID && lastMsg >= 0 {
				out[lastMsg].Text += "\n\n" + r.msg.Text
				continue
			}
			out = append(out, session.Event{Kind: session.EventMessage, Role: r.msg.Role, Text: r.msg.Text, Time: r.msg.Time})
			lastMsg = len(out) - 1
			lastID = r.messageID
		}
	}
	return out
}

// recordEvents reads the events of one user or assistant record from its
// content, in order: thinking, tool calls (tool_use and the API's
// server-side and MCP tool uses), tool results, and one slot for the
// record's message (hasMsg) where its first text part is. A sidechain's
// parts belong to a subagent, not to the session.
func recordEvents(r *record, hasMsg bool) []session.Event {
	var out []session.Event
	slot := func() {
		if hasMsg {
			out = append(out, session.Event{Kind: session.EventMessage})
			hasMsg = false
		}
	}
	if (r.Type == typeUser || r.Type == typeAssistant) && !r.Sidechain && len(r.Content) > 0 && r.Content[0] == '[' {
		role := session.RoleUser
		if r.Type == typeAssistant {
			role = session.RoleAssistant
		}
		_ = eachElement(r.Content, func(part []byte) {
			evs := partEvents(part, role)
			for _, e := range evs {
				if e.Kind == session.EventMessage {
					slot()
					continue
				}
				e.Time = r.Time
				out = append(out, e)
			}
		})
	}
	if hasMsg { // a plain string content, or texts the walk did not reach
		out = append([]session.Event{{Kind: session.EventMessage}}, out...)
	}
	return out
}

// partEvents reads one content part of a record written by role: a text
// part gives an empty EventMessage (the record's message slot), thinking
// (of an assistant) a thinking event, a tool use a call, a tool result a
// result followed by the images it returned, an image an image; anything
// else (redacted thinking, documents) nothing.
func partEvents(part []byte, role string) []session.Event {
	if part[0] != '{' {
		return nil
	}
	var typ, id, name, toolUseID string
	var thinking, input, content, isError, source []byte
	_ = eachMember(part, func(key, val []byte) {
		switch string(key) {
		case "type":
			typ, _ = jsonString(val)
		case "thinking":
			thinking = val
		case "id":
			id, _ = jsonString(val)
		case "name":
			name, _ = jsonString(val)
		case "input":
			input = val
		case "tool_use_id":
			toolUseID, _ = jsonString(val)
		case "content":
			content = val
		case "is_error":
			isError = val
		case "source":
			source = val
		}
	})
	switch typ {
	case "text":
		return []session.Event{{Kind: session.EventMessage}}
	case "thinking":
		text, _ := jsonString(thinking)
		if text = strings.TrimSpace(text); role != session.RoleAssistant || text == "" {
			return nil
		}
		return []session.Event{{Kind: session.EventThinking, Text: text}}
	case "tool_use", "server_tool_use", "mcp_tool_use":
		return []session.Event{{Kind: session.EventToolCall, Tool: name, ToolID: id, Input: history.ClipJSON(input)}}
	case "image":
		if e, ok := sourceImage(source, role, ""); ok {
			return []session.Event{e}
		}
		return nil
	}
	if typ == "tool_result" || strings.HasSuffix(typ, "_tool_result") {
		out := []session.Event{{
			Kind:    session.EventToolResult,
			ToolID:  toolUseID,
			Text:    history.ClipOutput(resultText(content)),
			IsError: jsonTrue(isError),
		}}
		if len(content) > 0 && content[0] == '[' {
			_ = eachElement(content, func(p []byte) {
				if p[0] != '{' {
					return
				}
				var typ string
				var source []byte
				_ = eachMember(p, func(key, val []byte) {
					switch string(key) {
					case "type":
						typ, _ = jsonString(val)
					case "source":
						source = val
					}
				})
				if e, ok := sourceImage(source, "", toolUseID); typ == "image" && ok {
					out = append(out, e)
				}
			})
		}
		return out
	}
	return nil
}

// sourceImage reads an image part's source, {"type":"base64",
// "media_type":…, "data":…}; a source by URL or file id is no image the
// history holds.
func sourceImage(source []byte, role, toolID string) (session.Event, bool) {
	if len(source) == 0 || source[0] != '{' {
		return session.Event{}, false
	}
	var typ, mediaType, data string
	_ = eachMember(source, func(key, val []byte) {
		switch string(key) {
		case "type":
			typ, _ = jsonString(val)
		case "media_type":
			mediaType, _ = jsonString(val)
		case "data":
			data, _ = jsonString(val)
		}
	})
	if typ != "base64" {
		return session.Event{}, false
	}
	return session.ImageEvent(mediaType, data, role, toolID, time.Time{})
}

// resultText is the readable output of a tool result's content: a string
// as it is; of a part list, the text parts (and a web search's result
// titles and addresses), one per line; anything else as JSON text.
func resultText(content []byte) string {
	if len(content) == 0 {
		return ""
	}
	if s, ok := jsonString(content); ok {
		return s
	}
	if content[0] != '[' {
		return history.ClipJSON(content)
	}
	var lines []string
	_ = eachElement(content, func(part []byte) {
		if part[0] != '{' {
			return
		}
		var typ, text, title, url string
		_ = eachMember(part, func(key, val []byte) {
			switch string(key) {
			case "type":
				typ, _ = jsonString(val)
			case "text":
				text, _ = jsonString(val)
			case "title":
				title, _ = jsonString(val)
			case "url":
				url, _ = jsonString(val)
			}
		})
		switch {
		case typ == "text" && text != "":
			lines = append(lines, text)
		case url != "":
			lines = append(lines, strings.TrimSpace(title+" "+url))
		}
	})
	return strings.Join(lines, "\n")
}
