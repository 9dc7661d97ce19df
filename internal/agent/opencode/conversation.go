package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"paddock/internal/session"
)

// conversation reads session id's messages from one database;
// session.ErrNotFound when it does not hold the session.
func (s *Scanner) conversation(ctx context.Context, db dbFile, id string) ([]session.Message, error) {
	c, err := s.openDB(ctx, db)
	if err != nil {
		return nil, err
	}
	defer c.close()
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT count(*) FROM session WHERE id = ?", id).Scan(&n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, session.ErrNotFound
	}
	var msgs []session.Message
	err = withJSONFallback(func(guard bool) error {
		msgs = nil
		rows, err := c.db.QueryContext(ctx, conversationQuery(c, guard), id)
		if err != nil {
			return err
		}
		defer rows.Close()
		var cur convMessage
		flush := func() {
			if m, ok := cur.message(); ok {
				msgs = append(msgs, m)
			}
			cur = convMessage{}
		}
		for rows.Next() {
			var mid string
			var created any
			var role, summary, ptype, text, synthetic, ignored sql.NullString
			if err := rows.Scan(&mid, &created, &role, &summary, &ptype, &text, &synthetic, &ignored); err != nil {
				return err
			}
			if mid != cur.id {
				flush()
				cur.id, cur.role, cur.time = mid, role.String, parseTime(created)
				cur.summary = summary.String == "true"
			}
			cur.add(ptype.String, text.String, synthetic.String == "true", ignored.String == "true")
		}
		if err := rows.Err(); err != nil {
			return err
		}
		flush()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return msgs, nil
}

// conversationQuery selects the text and compaction parts of a session's
// messages in order (messages by creation time then id, parts by id: ids
// are time-sortable). Tool, reasoning, file, step and patch parts are not
// even read.
func conversationQuery(c *conn, guard bool) string {
	md, pd := jsonOf("m.data", guard), jsonOf("p.data", guard)
	created, order := fmt.Sprintf("json_extract(%s, '$.time.created')", md), "m.id, p.id"
	if c.has("message", "time_created") {
		created, order = "m.time_created", "m.time_created, m.id, p.id"
	}
	return fmt.Sprintf(`SELECT m.id, %[3]s,
		json_extract(%[1]s, '$.role'), json_type(%[1]s, '$.summary'),
		json_extract(%[2]s, '$.type'), json_extract(%[2]s, '$.text'),
		json_type(%[2]s, '$.synthetic'), json_type(%[2]s, '$.ignored')
		FROM message m JOIN part p ON p.message_id = m.id
		WHERE m.session_id = ?
		AND json_extract(%[2]s, '$.type') IN ('text', 'compaction')
		ORDER BY %[4]s`, md, pd, created, order)
}

// convMessage gathers one message's parts.
type convMessage struct {
	id, role string
	time     time.Time
	summary  bool // an assistant's compaction summary
	user     userMessage
}

func (m *convMessage) add(ptype, text string, synthetic, ignored bool) {
	m.user.add(ptype, text, synthetic, ignored)
}

// message is the conversation entry of m: a user's real prompt, or an
// assistant's readable text (not a compaction summary); false for
// anything else or nothing to show.
func (m *convMessage) message() (session.Message, bool) {
	var text string
	var ok bool
	switch m.role {
	case session.RoleUser:
		text, ok = m.user.prompt()
	case session.RoleAssistant:
		if !m.summary && !m.user.compaction {
			text = mergeParts(m.user.parts)
			ok = text != ""
		}
	}
	if !ok {
		return session.Message{}, false
	}
	return session.Message{Role: m.role, Text: text, Time: m.time}, true
}
