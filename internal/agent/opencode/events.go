package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Events returns a session's full record, oldest first: the messages
// Conversation returns (the same ones, in the same order) with, around
// them, the model's reasoning parts and its tool parts (each a call, and
// a result once the tool completed or failed). Within one message the
// parts keep their order; the message's merged text stands where its
// first text part was. Step, patch, file, snapshot and agent parts are not
// part of the record. session.ErrNotFound when no database has the id.
func (s *Scanner) Events(ctx context.Context, id string) ([]session.Event, error) {
	var out []session.Event
	if err := s.EachEvent(ctx, id, func(e session.Event) error { out = append(out, e); return nil }); err != nil {
		return nil, err
	}
	return out, nil
}

// EachEvent hands Events' events to fn as the rows are read, one message
// at a time, and stops at fn's first error, which it returns.
func (s *Scanner) EachEvent(ctx context.Context, id string, fn func(session.Event) error) error {
	if !validID(id) {
		return session.ErrNotFound
	}
	var fnErr error
	emitted := 0
	emit := func(e session.Event) error {
		if fnErr = fn(e); fnErr == nil {
			emitted++
		}
		return fnErr
	}
	var errs []error
	for _, db := range s.databases() {
		err := s.events(ctx, db, id, emit)
		switch {
		case err == nil:
			return nil
		case fnErr != nil:
			return fnErr
		case errors.Is(err, session.ErrNotFound):
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			s.problems.Log(slog.LevelError, "events:"+db.path, "cannot read OpenCode session", "path", db.path, "err", err)
			if emitted > 0 {
				return err // part of it was handed over: another database cannot take over
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return session.ErrNotFound
}

// events hands session id's record in one database to emit;
// session.ErrNotFound when it does not hold the session.
func (s *Scanner) events(ctx context.Context, db dbFile, id string, emit func(session.Event) error) error {
	c, err := s.openDB(ctx, db)
	if err != nil {
		return err
	}
	defer c.close()
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT count(*) FROM session WHERE id = ?", id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return session.ErrNotFound
	}
	emitted, skip := 0, 0
	query := func(guard bool) error {
		rows, err := c.db.QueryContext(ctx, eventsQuery(c, guard), id)
		if err != nil {
			return err
		}
		defer rows.Close()
		var cur eventMessage
		flush := func() error {
			evs := cur.appendTo(nil)
			cur = eventMessage{}
			for _, e := range evs {
				if skip > 0 {
					skip--
					continue
				}
				emitted++
				if err := emit(e); err != nil {
					return err
				}
			}
			return nil
		}
		for rows.Next() {
			var mid string
			var created, partStart, toolStart, toolEnd any
			var role, summary, ptype, text, synthetic, ignored sql.NullString
			var tool, callID, status, input, output, toolErr sql.NullString
			var mime, url, attachments sql.NullString
			if err := rows.Scan(&mid, &created, &role, &summary, &ptype, &text, &synthetic, &ignored,
				&partStart, &tool, &callID, &status, &input, &output, &toolErr, &toolStart, &toolEnd,
				&mime, &url, &attachments); err != nil {
				return err
			}
			if mid != cur.conv.id {
				if err := flush(); err != nil {
					return err
				}
				cur.conv.id, cur.conv.role, cur.conv.time = mid, role.String, parseTime(created)
				cur.conv.summary = summary.String == "true"
			}
			switch ptype.String {
			case "text", "compaction":
				cur.text()
				cur.conv.add(ptype.String, text.String, synthetic.String == "true", ignored.String == "true")
			case "reasoning":
				if t := strings.TrimSpace(clean(text.String)); t != "" {
					cur.add(session.Event{Kind: session.EventThinking, Text: t, Time: cur.at(partStart)})
				}
			case "tool":
				cur.tool(toolPart{
					name: clean(tool.String), callID: clean(callID.String), status: status.String,
					input: clean(input.String), output: output.String, err: toolErr.String,
					start: parseTime(toolStart), end: parseTime(toolEnd), attachments: attachments.String,
				})
			case "file":
				if e, ok := fileImage(mime.String, url.String, cur.conv.role, ""); ok {
					e.Time = cur.at(partStart)
					cur.add(e)
				}
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return flush()
	}
	// A database with malformed JSON is read again with the guarded
	// query (withJSONFallback). SQLite fails the query at the first such
	// row it reaches, so the messages handed over before it come again,
	// the same, first: they are skipped.
	err = query(false)
	if err != nil && strings.Contains(err.Error(), "malformed JSON") {
		skip = emitted
		err = query(true)
	}
	return err
}

// eventsQuery selects the text, compaction, reasoning, tool and file parts
// of a session's messages, in Conversation's order (conversationQuery), with
// the fields of each kind. `->` gives a tool's input as JSON text whatever
// its type.
func eventsQuery(c *conn, guard bool) string {
	md, pd := jsonOf("m.data", guard), jsonOf("p.data", guard)
	created, order := fmt.Sprintf("json_extract(%s, '$.time.created')", md), "m.id, p.id"
	if c.has("message", "time_created") {
		created, order = "m.time_created", "m.time_created, m.id, p.id"
	}
	return fmt.Sprintf(`SELECT m.id, %[3]s,
		json_extract(%[1]s, '$.role'), json_type(%[1]s, '$.summary'),
		json_extract(%[2]s, '$.type'), json_extract(%[2]s, '$.text'),
		json_type(%[2]s, '$.synthetic'), json_type(%[2]s, '$.ignored'),
		json_extract(%[2]s, '$.time.start'),
		json_extract(%[2]s, '$.tool'), json_extract(%[2]s, '$.callID'),
		json_extract(%[2]s, '$.state.status'), %[2]s -> '$.state.input',
		json_extract(%[2]s, '$.state.output'), json_extract(%[2]s, '$.state.error'),
		json_extract(%[2]s, '$.state.time.start'), json_extract(%[2]s, '$.state.time.end'),
		json_extract(%[2]s, '$.mime'), json_extract(%[2]s, '$.url'), %[2]s -> '$.state.attachments'
		FROM message m JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ?
		AND json_extract(%[2]s, '$.type') IN ('text', 'compaction', 'reasoning', 'tool', 'file')
		ORDER BY %[4]s`, md, pd, created, order)
}

// toolPart is what a tool part's state holds: status pending or running
// (a call without a result yet), completed (output) or error.
type toolPart struct {
	name, callID, status string
	input, output, err   string
	start, end           time.Time
	attachments          string // JSON: the files a completed call returned (a read image)
}

// eventMessage gathers one message's events: its text through the same
// convMessage Conversation uses, the rest in part order.
type eventMessage struct {
	conv   convMessage
	events []session.Event
	textAt int  // where the merged text goes among events
	seen   bool // a text or compaction part was seen (textAt is set)
}

// text marks where the message's text stands: at its first text part.
func (m *eventMessage) text() {
	if !m.seen {
		m.seen, m.textAt = true, len(m.events)
	}
}

func (m *eventMessage) add(e session.Event) { m.events = append(m.events, e) }

// at is a part's time, or the message's when the part has none.
func (m *eventMessage) at(v any) time.Time {
	if t := parseTime(v); !t.IsZero() {
		return t
	}
	return m.conv.time
}

func (m *eventMessage) tool(p toolPart) {
	start := p.start
	if start.IsZero() {
		start = m.conv.time
	}
	m.add(session.Event{Kind: session.EventToolCall, Tool: p.name, ToolID: p.callID, Input: p.input, Time: start})
	end := p.end
	if end.IsZero() {
		end = start
	}
	switch p.status {
	case "completed":
		m.add(session.Event{Kind: session.EventToolResult, ToolID: p.callID, Text: history.ClipOutput(clean(p.output)), Time: end})
		var files []struct{ Mime, URL string }
		if p.attachments != "" && json.Unmarshal([]byte(p.attachments), &files) == nil {
			for _, f := range files {
				if e, ok := fileImage(f.Mime, f.URL, "", p.callID); ok {
					e.Time = end
					m.add(e)
				}
			}
		}
	case "error":
		m.add(session.Event{Kind: session.EventToolResult, ToolID: p.callID, Text: history.ClipOutput(clean(p.err)), IsError: true, Time: end})
	}
}

// fileImage is a file part that is an image OpenCode keeps inline, as a
// data URL (a file:// part is a path, never read).
func fileImage(mime, url, role, toolID string) (session.Event, bool) {
	if !strings.HasPrefix(strings.ToLower(mime), "image/") {
		return session.Event{}, false
	}
	return session.DataURLImage(url, role, toolID, time.Time{})
}

// appendTo appends the message's events to out, its conversation message
// (if Conversation would show one) in its place.
func (m *eventMessage) appendTo(out []session.Event) []session.Event {
	msg, ok := m.conv.message()
	if !ok || !m.seen {
		return append(out, m.events...)
	}
	out = append(out, m.events[:m.textAt]...)
	out = append(out, session.Event{Kind: session.EventMessage, Role: msg.Role, Text: msg.Text, Time: msg.Time})
	return append(out, m.events[m.textAt:]...)
}
