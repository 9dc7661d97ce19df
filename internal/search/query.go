package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"paddock/internal/session"
)

// ErrEmptyQuery is a query with no word to search for.
var ErrEmptyQuery = errors.New("search: the query has no word to search for")

// Query is one search: Text is matched literally — every word, in any
// order, and "quoted words" as a phrase; nothing in it is query syntax.
type Query struct {
	Text    string
	Runtime string      // only this agent's sessions
	Project string      // only sessions in this directory (its path or its last element)
	Session session.Key // only inside this session
	Since   time.Time   // only messages from then on
	Until   time.Time   // only messages before then
	// Only restricts the search to these sessions (say, the live ones);
	// nil means all.
	Only []session.Key
	// PerSession keeps each session's best hit only, so that Limit
	// counts sessions (the board's search box lists sessions).
	PerSession bool
	Limit      int // default 30, at most 200
}

// Hit is one matching message.
type Hit struct {
	Key     session.Key
	Title   string
	Cwd     string
	Seq     int    // the message's place in the conversation, from 0 (for a tool's row, the message it follows)
	Role    string // RoleUser, RoleAssistant, or RoleTool
	At      time.Time
	Snippet []Part // the message around the match, the matched words marked
}

// Part is a stretch of a snippet, matched or not.
type Part struct {
	Text  string `json:"text"`
	Match bool   `json:"match,omitempty"`
}

// Record is a hit as the API and the command line print it (JSON).
type Record struct {
	Runtime string    `json:"runtime"`
	ID      string    `json:"id"`
	Title   string    `json:"title,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Seq     int       `json:"seq"`
	Role    string    `json:"role"`
	Time    time.Time `json:"time"`
	Snippet []Part    `json:"snippet"`
	URL     string    `json:"url,omitempty"` // where the web opens it
}

// Record is h for printing.
func (h Hit) Record() Record {
	return Record{Runtime: h.Key.Runtime, ID: h.Key.ID, Title: h.Title, Cwd: h.Cwd, Seq: h.Seq, Role: h.Role, Time: h.At.UTC(), Snippet: h.Snippet}
}

// Marked is the snippet as text, the matched words in [brackets].
func (h Hit) Marked() string {
	var b strings.Builder
	for _, p := range h.Snippet {
		if p.Match {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// Snippet markers: control characters a conversation's text does not
// hold in the stretches FTS5 returns.
const (
	markOpen  = "\x02"
	markClose = "\x03"
)

// Search runs q: the best-matching messages first (FTS5's bm25), the newer
// first among equals.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	match, err := matchExpr(q.Text)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 30
	}
	limit = min(limit, 200)
	// The best rows are found first, scored and sorted by what they hold
	// alone; the snippets are made for those rows only.
	var where []string
	args := []any{match}
	join := false
	if q.Runtime != "" {
		where, join = append(where, "s.runtime = ?"), true
		args = append(args, q.Runtime)
	}
	if q.Project != "" {
		where, join = append(where, "(s.cwd = ? OR s.project = ?)"), true
		args = append(args, q.Project, q.Project)
	}
	if q.Session != (session.Key{}) {
		where, join = append(where, "s.key = ?"), true
		args = append(args, q.Session.String())
	}
	if !q.Since.IsZero() {
		where = append(where, "m.at >= ?")
		args = append(args, q.Since.UnixMilli())
	}
	if !q.Until.IsZero() {
		where = append(where, "m.at < ?")
		args = append(args, q.Until.UnixMilli())
	}
	if q.Only != nil {
		if len(q.Only) == 0 {
			return nil, nil
		}
		marks := strings.Repeat("?,", len(q.Only))
		where, join = append(where, "s.key IN ("+marks[:len(marks)-1]+")"), true
		for _, k := range q.Only {
			args = append(args, k.String())
		}
	}
	// A word in very many messages is ranked among the newest sessions'
	// (sessions are numbered oldest first): scoring every one of them
	// costs more than the user waits, and among so many the newer matter
	// more.
	matching := ` FROM messages m`
	if join {
		matching += ` JOIN sessions s ON s.num = (m.rowid >> ` + strconv.Itoa(seqBits) + `)`
	}
	matching += ` WHERE messages MATCH ?`
	for _, w := range where {
		matching += " AND " + w
	}
	var from int64
	err = ix.db.QueryRowContext(ctx, `SELECT m.rowid`+matching+` ORDER BY m.rowid DESC LIMIT 1 OFFSET ?`,
		append(slices.Clone(args), ix.o.RankWindow-1)...).Scan(&from)
	if err == nil {
		matching += " AND m.rowid >= ?"
		args = append(args, from)
	}
	top := `SELECT m.rowid, m.rank, m.at` + matching + ` ORDER BY m.rank, m.at DESC LIMIT ?`
	if q.PerSession {
		// SQLite gives the bare columns of a min() group the values of
		// the row holding the minimum: each session's best message.
		top = `SELECT m.rowid, min(m.rank) AS r, m.at` + matching +
			` GROUP BY m.rowid >> ` + strconv.Itoa(seqBits) + ` ORDER BY r, m.at DESC LIMIT ?`
	}
	args = append(args, limit)
	rows, err := ix.db.QueryContext(ctx, top, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var order []int64
	lo, hi := int64(-1), int64(-1)
	for rows.Next() {
		var id, at int64
		var rank float64
		if err := rows.Scan(&id, &rank, &at); err != nil {
			rows.Close()
			return nil, fmt.Errorf("search: %w", err)
		}
		order = append(order, id)
		if lo < 0 || id < lo {
			lo = id
		}
		hi = max(hi, id)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(order) == 0 {
		return nil, nil
	}
	// The snippets, the dearest part, for those rows only: one pass over
	// the matches between the first and the last of them. (Joining the
	// rows back to the index one by one runs the whole match again for
	// each: five times slower for a phrase.)
	marks := strings.Repeat("?,", len(order))
	snip := `SELECT m.rowid, s.runtime, s.id, s.title, s.cwd, m.role, m.at, m.msg,
			CASE WHEN m.rowid IN (` + marks[:len(marks)-1] + `) THEN snippet(messages, 0, '` + markOpen + `', '` + markClose + `', '…', 24) END
		FROM messages m JOIN sessions s ON s.num = (m.rowid >> ` + strconv.Itoa(seqBits) + `)
		WHERE messages MATCH ? AND m.rowid BETWEEN ? AND ?`
	sargs := make([]any, 0, len(order)+3)
	for _, id := range order {
		sargs = append(sargs, id)
	}
	sargs = append(sargs, match, lo, hi)
	rows, err = ix.db.QueryContext(ctx, snip, sargs...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	byID := make(map[int64]Hit, len(order))
	for rows.Next() {
		var h Hit
		var rowid, at int64
		var snippet sql.NullString
		if err := rows.Scan(&rowid, &h.Key.Runtime, &h.Key.ID, &h.Title, &h.Cwd, &h.Role, &at, &h.Seq, &snippet); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if !snippet.Valid {
			continue
		}
		h.At = time.UnixMilli(at)
		h.Snippet = parts(snippet.String)
		byID[rowid] = h
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	out := make([]Hit, 0, len(order))
	for _, id := range order {
		if h, ok := byID[id]; ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// matchExpr turns what the user typed into an FTS5 expression that means
// it literally: each word a quoted string (AND between them), each
// "quoted" stretch one phrase. The tokenizer's own rules split the words
// further; characters FTS5 treats as syntax are only ever inside quotes.
func matchExpr(text string) (string, error) {
	var terms []string
	add := func(s string) {
		if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
			return // nothing the tokenizer would keep
		}
		terms = append(terms, `"`+strings.ReplaceAll(s, `"`, `""`)+`"`)
	}
	for i, chunk := range strings.Split(text, `"`) {
		if i%2 == 1 { // inside quotes: a phrase
			add(strings.TrimSpace(chunk))
			continue
		}
		for _, w := range strings.Fields(chunk) {
			add(w)
		}
	}
	if len(terms) == 0 {
		return "", ErrEmptyQuery
	}
	return strings.Join(terms, " "), nil
}

// parts splits a snippet at its markers.
func parts(s string) []Part {
	var out []Part
	for s != "" {
		open := strings.Index(s, markOpen)
		if open < 0 {
			out = append(out, Part{Text: s})
			break
		}
		if open > 0 {
			out = append(out, Part{Text: s[:open]})
		}
		s = s[open+len(markOpen):]
		end := strings.Index(s, markClose)
		if end < 0 {
			out = append(out, Part{Text: s, Match: true})
			break
		}
		out = append(out, Part{Text: s[:end], Match: true})
		s = s[end+len(markClose):]
	}
	return out
}
