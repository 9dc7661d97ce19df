package opencode

import (
	"context"
	"encoding/json"
	"errors"

	"paddock/internal/history/jsonpeek"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// OpenCode records each call as a step-finish part of the assistant
// message it is part of ({"type":"step-finish","tokens":{"input",
// "output","reasoning","cache":{"read","write"},"total"},"cost":…}), and
// adds each step's tokens and cost to the message itself (message.data
// tokens and cost, with modelID). A message is counted as one record of
// its sums (never its steps too, which would count them twice), and the
// context after it is its last step's (the sums add up every step's
// input). input excludes the cache; reasoning is billed as output. The
// cost is OpenCode's own from its model table, and 0 where it has no
// price for the model (the mock's, a local model's): a cost of 0 is taken
// as not recorded, and priced from paddock's table where it can be. The
// session's subagents (child sessions, which the board does not list)
// are its calls too.
//
// The database is read only through the scanner's private copy of it
// (history.Snapshots), like everything else of OpenCode's; a read takes
// the messages updated since the last read's newest.

type usageReader struct{ s *Scanner }

// usageState is what the reader carries from one read to the next.
type usageState struct {
	Since int64 `json:"u,omitempty"` // the newest time_updated read, ms
}

// dbFile's name in a cursor.
const dbMark = "db"

func (r usageReader) Read(ctx context.Context, info session.Info, from usage.Cursor) (usage.Batch, error) {
	bs, errs := r.ReadMany(ctx, []session.Info{info}, []usage.Cursor{from})
	return bs[0], errs[0]
}

// ReadMany reads several sessions, opening each database once for all
// of them rather than once per session.
func (r usageReader) ReadMany(ctx context.Context, infos []session.Info, froms []usage.Cursor) ([]usage.Batch, []error) {
	out := make([]usage.Batch, len(infos))
	errs := make([]error, len(infos))
	since := make([]int64, len(infos))
	todo := map[int]bool{}
	for i, info := range infos {
		errs[i] = session.ErrNotFound
		if !validID(info.ID) {
			continue
		}
		out[i].Fresh = len(froms[i].Files) == 0
		if !out[i].Fresh {
			var st usageState
			_ = json.Unmarshal(froms[i].State, &st)
			since[i] = st.Since
		}
		todo[i] = true
	}
	for _, db := range r.s.databases() {
		var here []int
		for i := range todo {
			if infos[i].Path == "" || infos[i].Path == db.path {
				here = append(here, i)
			}
		}
		if len(here) == 0 {
			continue
		}
		c, err := r.s.openDB(ctx, db)
		if err != nil {
			for _, i := range here {
				errs[i] = err
			}
			continue
		}
		for _, i := range here {
			recs, newest, err := usageOf(ctx, c, infos[i].ID, since[i])
			if errors.Is(err, session.ErrNotFound) {
				continue
			}
			delete(todo, i)
			if errs[i] = err; err != nil {
				continue
			}
			out[i].Records = recs
			out[i].Cursor.Files = []usage.Mark{{Name: dbMark}}
			out[i].Cursor.State, errs[i] = json.Marshal(usageState{Since: newest})
		}
		c.close()
	}
	return out, errs
}

// usageOf reads the calls of session id (and its subagents') from c
// updated at or after since (ms); session.ErrNotFound when c does not
// hold the session.
func usageOf(ctx context.Context, c *conn, id string, since int64) ([]usage.Record, int64, error) {
	var n int
	if err := c.db.QueryRowContext(ctx, "SELECT count(*) FROM session WHERE id = ?", id).Scan(&n); err != nil {
		return nil, since, err
	}
	if n == 0 {
		return nil, since, session.ErrNotFound
	}
	sessions := "m.session_id = ?"
	args := []any{id}
	if c.has("session", "parent_id") {
		sessions = "(m.session_id = ? OR m.session_id IN (SELECT id FROM session WHERE parent_id = ?))"
		args = append(args, id)
	}
	updated := "0"
	if c.has("message", "time_updated") {
		updated = "m.time_updated"
	}
	// A message is read again whole, with every step, when it changed
	// (OpenCode adds each finished step's tokens to its message): a
	// message's steps are few, and a read never holds half a message.
	q := `SELECT m.id, m.data, ` + updated + `, p.id, p.data
		FROM message m LEFT JOIN part p ON p.message_id = m.id AND p.data LIKE '%"step-finish"%'
		WHERE ` + sessions + ` AND m.data LIKE '%"assistant"%'`
	if since > 0 && updated != "0" {
		q += ` AND ` + updated + ` >= ?`
		args = append(args, since)
	}
	q += ` ORDER BY m.id, p.id`
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, since, err
	}
	defer rows.Close()
	var out []usage.Record
	var cur struct {
		id        string
		msg       usage.Record
		assistant bool
		ok        bool // the message has tokens
		steps     []usage.Record
	}
	flush := func() {
		if cur.ok {
			cur.msg.Context = stepContext(cur.msg)
			if n := len(cur.steps); n > 0 {
				cur.msg.Context = stepContext(cur.steps[n-1])
			}
			out = append(out, cur.msg)
		}
		cur.steps, cur.ok = nil, false
	}
	newest := since
	for rows.Next() {
		var mid string
		var mdata []byte
		var mup any
		var pid, pdata *string
		if err := rows.Scan(&mid, &mdata, &mup, &pid, &pdata); err != nil {
			return nil, since, err
		}
		newest = max(newest, millis(mup))
		if mid != cur.id {
			flush()
			cur.id = mid
			cur.msg, cur.assistant, cur.ok = messageUsage(mid, mdata)
		}
		if pid != nil && pdata != nil && cur.assistant {
			if st, ok := stepUsage([]byte(*pdata)); ok {
				cur.steps = append(cur.steps, st)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, since, err
	}
	flush()
	return out, newest, nil
}

// millis reads an integer column of milliseconds.
func millis(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}

// stepContext is how many tokens a call's context held after it.
func stepContext(r usage.Record) int64 {
	return r.Input + r.Output + r.CacheRead + r.CacheWrite
}

var (
	messageFields = []string{"role", "modelID", "tokens", "cost", "time"}
	stepFields    = []string{"type", "tokens", "cost"}
	tokenFields   = []string{"input", "output", "reasoning", "cache"}
	cacheFields   = []string{"read", "write"}
	createdField  = []string{"created"}
)

// messageUsage reads an assistant message's model and time, and its
// summed tokens (the call, when it has no steps); ok is false while it
// has no tokens.
func messageUsage(id string, data []byte) (r usage.Record, assistant, ok bool) {
	r.Key = "msg:" + id
	var role, tokens, cost []byte
	jsonpeek.Fields(data, messageFields, func(i int, v []byte) {
		switch i {
		case 0:
			role = v
		case 1:
			r.Model = usage.Text(v)
		case 2:
			tokens = v
		case 3:
			cost = v
		case 4:
			jsonpeek.Fields(v, createdField, func(_ int, v []byte) { r.Time = usage.When(v) })
		}
	})
	if !jsonpeek.Is(role, "assistant") {
		return usage.Record{}, false, false
	}
	readTokens(&r, tokens, cost)
	return r, true, stepContext(r) > 0
}

// stepUsage reads a step-finish part's call.
func stepUsage(data []byte) (usage.Record, bool) {
	var r usage.Record
	var typ, tokens, cost []byte
	jsonpeek.Fields(data, stepFields, func(i int, v []byte) {
		switch i {
		case 0:
			typ = v
		case 1:
			tokens = v
		case 2:
			cost = v
		}
	})
	if !jsonpeek.Is(typ, "step-finish") {
		return r, false
	}
	readTokens(&r, tokens, cost)
	return r, stepContext(r) > 0
}

func readTokens(r *usage.Record, tokens, cost []byte) {
	jsonpeek.Fields(tokens, tokenFields, func(i int, v []byte) {
		switch i {
		case 0:
			r.Input = usage.Count(v)
		case 1:
			r.Output += usage.Count(v)
		case 2:
			r.Output += usage.Count(v)
		case 3:
			jsonpeek.Fields(v, cacheFields, func(i int, v []byte) {
				if i == 0 {
					r.CacheRead = usage.Count(v)
				} else {
					r.CacheWrite = usage.Count(v)
				}
			})
		}
	})
	if c, ok := usage.Dollars(cost); ok && c != 0 {
		r.Cost, r.HasCost = c, true
	}
}
