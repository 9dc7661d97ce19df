package opencode

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// pass is the state of one Scan (or Session lookup): the databases it
// opened, the sessions it read and the live bindings.
type pass struct {
	s     *Scanner
	procs []proc
	conns []*conn

	window []session.Info          // listable sessions of each database's window
	byID   map[string]session.Info // every session read, by id (first database wins)
	keep   []string                // ids to list whatever the limit
	cands  []candidate             // sessions a live process may be showing
	live   map[string]int          // session id → pid
	cwds   *history.DirMemo        // cwd existence, for this pass
	connOf map[string]*conn        // which database a candidate came from
}

func newPass(s *Scanner, procs []proc) *pass {
	return &pass{
		s:      s,
		procs:  procs,
		byID:   make(map[string]session.Info),
		cwds:   history.NewDirMemo(isDir),
		connOf: make(map[string]*conn),
	}
}

func (p *pass) close() {
	for _, c := range p.conns {
		c.close()
	}
}

// read reads one database: the newest limit listable sessions, the ids in
// keep, and the sessions the OpenCode processes may be bound to.
func (p *pass) read(ctx context.Context, db dbFile, limit int, keep []string) error {
	c, err := p.s.openDB(ctx, db)
	if err != nil {
		return fmt.Errorf("opencode: %s: %w", db.path, err)
	}
	p.conns = append(p.conns, c)
	if limit != 0 {
		if err := p.readWindow(ctx, c, limit); err != nil {
			return fmt.Errorf("opencode: %s: %w", db.path, err)
		}
	}
	var missing []string
	for _, id := range keep {
		if !slices.Contains(p.keep, id) {
			p.keep = append(p.keep, id)
		}
		if _, ok := p.byID[id]; !ok && validID(id) {
			missing = append(missing, id)
		}
	}
	if err := p.fetchIDs(ctx, c, missing); err != nil {
		return fmt.Errorf("opencode: %s: %w", db.path, err)
	}
	if err := p.readCandidates(ctx, c); err != nil {
		return fmt.Errorf("opencode: %s: %w", db.path, err)
	}
	return nil
}

// readWindow reads sessions newest first, page after page, until limit of
// them are listable (or the table ends). The SQL window is larger than
// limit and grows: sessions without a prompt, in a vanished or throw-away
// directory, are dropped after the query, and they must not push real
// sessions out of the list (else sessions at the edge flicker
// in and out as noise comes and goes).
func (p *pass) readWindow(ctx context.Context, c *conn, limit int) error {
	page := 500
	if limit >= 0 {
		page = max(2*limit, limit+32)
	}
	found := 0
	for offset := 0; ; {
		recs, err := p.fetch(ctx, c, "", nil, fmt.Sprintf("LIMIT %d OFFSET %d", page, offset))
		if err != nil {
			return err
		}
		for _, r := range recs {
			if p.visible(r, false) {
				p.window = append(p.window, r)
				found++
				if limit >= 0 && found >= limit {
					return nil
				}
			}
		}
		if len(recs) < page {
			return nil
		}
		offset += page
		page *= 2
	}
}

// fetchIDs reads the sessions with the given ids that c holds.
func (p *pass) fetchIDs(ctx context.Context, c *conn, ids []string) error {
	for chunk := range slices.Chunk(ids, maxParams) {
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		if _, err := p.fetch(ctx, c, "id IN ("+placeholders(len(chunk))+")", args, ""); err != nil {
			return err
		}
	}
	return nil
}

// maxParams bounds the ids bound in one IN list.
const maxParams = 500

// sessionRow is one row of the session table, with the columns this
// database has ("" or nil for the others).
type sessionRow struct {
	id, dir, title, model string
	created, updated      time.Time
}

// topLevel is the WHERE clause of listable sessions: not a subagent's
// (parent_id set by the task tool) and not archived, where the database
// has those columns.
func topLevel(c *conn) string {
	w := []string{"1"}
	if c.has("session", "parent_id") {
		w = append(w, "(parent_id IS NULL OR parent_id = '')")
	}
	if c.has("session", "time_archived") {
		w = append(w, "(time_archived IS NULL OR time_archived = 0)")
	}
	return strings.Join(w, " AND ")
}

// updatedCol is the column sessions are ordered by.
func updatedCol(c *conn) string {
	if c.has("session", "time_updated") {
		return "time_updated"
	}
	return "time_created"
}

func optCol(c *conn, table, col string) string {
	if c.has(table, col) {
		return col
	}
	return "NULL"
}

// querySessions reads top-level, unarchived session rows matching where
// (may be ""), newest first, with suffix (LIMIT ...) appended.
func querySessions(ctx context.Context, c *conn, where string, args []any, suffix string) ([]sessionRow, error) {
	q := fmt.Sprintf("SELECT id, %s, %s, %s, %s, %s FROM session WHERE %s",
		optCol(c, "session", "directory"), optCol(c, "session", "title"),
		optCol(c, "session", "time_created"), updatedCol(c), optCol(c, "session", "model"),
		topLevel(c))
	if where != "" {
		q += " AND (" + where + ")"
	}
	q += " ORDER BY " + updatedCol(c) + " DESC, id " + suffix
	rows, err := c.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []sessionRow
	for rows.Next() {
		var id, dir, title, model sql.NullString
		var created, updated any
		if err := rows.Scan(&id, &dir, &title, &created, &updated, &model); err != nil {
			return nil, err
		}
		r := sessionRow{
			id:      id.String,
			dir:     clean(dir.String),
			title:   clean(title.String),
			model:   modelName(model.String),
			created: parseTime(created),
			updated: parseTime(updated),
		}
		if r.created.IsZero() {
			r.created = r.updated
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// fetch reads session rows and their prompt summaries and records them in
// p.byID (a session already read from another database keeps that one).
// It returns the new ones in query order.
func (p *pass) fetch(ctx context.Context, c *conn, where string, args []any, suffix string) ([]session.Info, error) {
	rows, err := querySessions(ctx, c, where, args, suffix)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, r := range rows {
		if _, ok := p.byID[r.id]; !ok {
			ids = append(ids, r.id)
		}
	}
	sums, err := summaries(ctx, c, ids)
	if err != nil {
		return nil, err
	}
	var out []session.Info
	for _, r := range rows {
		if _, ok := p.byID[r.id]; ok {
			continue
		}
		info := p.s.info(c, r, sums[r.id])
		p.byID[r.id] = info
		p.connOf[r.id] = c
		out = append(out, info)
	}
	return out, nil
}

// info builds a session's list entry (Live and PID are set later).
func (s *Scanner) info(c *conn, r sessionRow, sum promptSummary) session.Info {
	info := session.Info{
		Runtime:     runtimeName,
		ID:          r.id,
		Cwd:         r.dir,
		Project:     session.ShortProject(r.dir, s.home),
		FirstPrompt: history.ClipRunes(sum.first, maxPromptRunes),
		LastPrompt:  history.ClipRunes(sum.last, maxPromptRunes),
		PromptCount: sum.count,
		Created:     r.created,
		Updated:     r.updated,
		TimeSource:  TimeFromDB,
		Model:       cmp.Or(r.model, sum.model),
		Path:        c.path,
		Error:       history.PartlyRead(sum.bad, 1, "record", nil),
	}
	switch {
	case r.title != "" && !isDefaultTitle(r.title):
		info.Title, info.TitleSource = history.ClipLine(r.title, maxTitleRunes), session.TitleAI
	case sum.first != "":
		info.Title, info.TitleSource = history.ClipLine(sum.first, maxTitleRunes), session.TitlePrompt
	}
	return info
}

// visible applies the shared working-directory rule (history.Listable) and
// OpenCode's own: a session nobody prompted yet is listed only while a
// live process holds it, or when records of it could not be read (its
// prompts may be among them; the user learns of it).
func (p *pass) visible(info session.Info, live bool) bool {
	return (live || info.PromptCount > 0 || info.Error != "") && p.cwds.Listable(info.Cwd, live, p.s.opts.KeepMissingCwd)
}

// result merges what the pass read: the newest limit sessions of the
// windows, the kept ids and the live sessions, newest first, each with its
// liveness. A negative limit keeps every window session.
func (p *pass) result(limit int) []session.Info {
	byTime := func(a, b session.Info) int {
		return cmp.Or(b.Updated.Compare(a.Updated), cmp.Compare(a.ID, b.ID))
	}
	win := slices.Clone(p.window)
	slices.SortStableFunc(win, byTime)
	var out []session.Info
	seen := make(map[string]bool)
	add := func(info session.Info) {
		if seen[info.ID] {
			return
		}
		seen[info.ID] = true
		if pid, ok := p.live[info.ID]; ok {
			info.Live, info.PID = true, pid
		}
		out = append(out, info)
	}
	for _, info := range win {
		if limit >= 0 && len(out) >= limit {
			break
		}
		add(info)
	}
	for _, id := range p.keep {
		if info, ok := p.byID[id]; ok && p.visible(info, p.live[id] != 0) {
			add(info)
		}
	}
	for id := range p.live {
		if info, ok := p.byID[id]; ok && p.visible(info, true) {
			add(info)
		}
	}
	slices.SortStableFunc(out, byTime)
	return out
}

// promptSummary is what listing needs from a session's user messages.
type promptSummary struct {
	first, last string
	count       int
	model       string // of the last prompt: providerID/modelID
	bad         int    // its messages and parts whose data is no JSON
}

// summaries reads the real prompts of the given sessions: user messages'
// text parts, merged per message, without synthetic or ignored parts and
// without compaction requests. Only user messages' parts are read, and of
// those only the fields needed, so pasted images and tool output are never
// loaded for a listing.
func summaries(ctx context.Context, c *conn, ids []string) (map[string]promptSummary, error) {
	out := make(map[string]promptSummary, len(ids))
	for chunk := range slices.Chunk(ids, maxParams) {
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		guarded := false
		err := withJSONFallback(func(guard bool) error {
			guarded = guard
			rows, err := c.db.QueryContext(ctx, summaryQuery(c, len(chunk), guard), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			var cur string // session id
			var sum promptSummary
			var m userMessage
			flushMsg := func() {
				if text, ok := m.prompt(); ok {
					sum.count++
					if sum.first == "" {
						sum.first = text
					}
					sum.last = text
					if m.model != "" {
						sum.model = m.model
					}
				}
				m = userMessage{}
			}
			for rows.Next() {
				var sid, mid string
				var provider, model, ptype, text, synthetic, ignored sql.NullString
				if err := rows.Scan(&sid, &mid, &provider, &model, &ptype, &text, &synthetic, &ignored); err != nil {
					return err
				}
				if mid != m.id {
					flushMsg()
				}
				if sid != cur {
					if cur != "" {
						out[cur] = sum
					}
					cur, sum = sid, promptSummary{}
				}
				m.id = mid
				if model.String != "" {
					m.model = joinModel(provider.String, model.String)
				}
				m.add(ptype.String, text.String, synthetic.String == "true", ignored.String == "true")
			}
			if err := rows.Err(); err != nil {
				return err
			}
			flushMsg()
			if cur != "" {
				out[cur] = sum
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if guarded {
			// Some row is no JSON: count them, per session, for the
			// sessions' Errors. Only then are all the chunk's rows parsed.
			if err := countBad(ctx, c, args, out); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// countBad adds to out, per session among ids, the messages and parts
// whose data is no JSON.
func countBad(ctx context.Context, c *conn, ids []any, out map[string]promptSummary) error {
	in := placeholders(len(ids))
	q := fmt.Sprintf(`SELECT sid, sum(n) FROM (
		SELECT session_id AS sid, count(*) AS n FROM message
			WHERE session_id IN (%[1]s) AND NOT json_valid(data) GROUP BY session_id
		UNION ALL
		SELECT m.session_id, count(*) FROM part p JOIN message m ON p.message_id = m.id
			WHERE m.session_id IN (%[1]s) AND NOT json_valid(p.data) GROUP BY m.session_id
	) GROUP BY sid`, in)
	rows, err := c.db.QueryContext(ctx, q, append(slices.Clone(ids), ids...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var sid string
		var n int
		if err := rows.Scan(&sid, &n); err != nil {
			return err
		}
		sum := out[sid]
		sum.bad += n
		out[sid] = sum
	}
	return rows.Err()
}

func summaryQuery(c *conn, n int, guard bool) string {
	md, pd := jsonOf("m.data", guard), jsonOf("p.data", guard)
	order := "m.session_id, m.id, p.id"
	if c.has("message", "time_created") {
		order = "m.session_id, m.time_created, m.id, p.id"
	}
	return fmt.Sprintf(`SELECT m.session_id, m.id,
		json_extract(%[1]s, '$.model.providerID'), json_extract(%[1]s, '$.model.modelID'),
		json_extract(%[2]s, '$.type'), json_extract(%[2]s, '$.text'),
		json_type(%[2]s, '$.synthetic'), json_type(%[2]s, '$.ignored')
		FROM message m JOIN part p ON p.message_id = m.id
		WHERE m.session_id IN (%[3]s)
		AND json_extract(%[1]s, '$.role') = 'user'
		AND json_extract(%[2]s, '$.type') IN ('text', 'compaction')
		ORDER BY %[4]s`, md, pd, placeholders(n), order)
}

// jsonOf is col, or with guard, col where it is valid JSON and NULL
// elsewhere: SQLite's JSON functions fail the whole query on one malformed
// row, so a query that failed that way is run again guarded (and slower:
// every document is parsed twice).
func jsonOf(col string, guard bool) string {
	if !guard {
		return col
	}
	return "(CASE WHEN json_valid(" + col + ") THEN " + col + " END)"
}

// withJSONFallback runs query unguarded, and again guarded when SQLite
// reported malformed JSON.
func withJSONFallback(query func(guard bool) error) error {
	err := query(false)
	if err != nil && strings.Contains(err.Error(), "malformed JSON") {
		err = query(true)
	}
	return err
}

// userMessage gathers one user message's parts.
type userMessage struct {
	id         string
	parts      []string
	compaction bool
	model      string
}

func (m *userMessage) add(ptype, text string, synthetic, ignored bool) {
	switch {
	case ptype == "compaction":
		m.compaction = true
	case ptype == "text" && !synthetic && !ignored:
		m.parts = append(m.parts, text)
	}
}

// prompt is the message's human text; false for a compaction request (the
// automatic "what did we do so far") or a message with nothing typed.
func (m *userMessage) prompt() (string, bool) {
	if m.compaction {
		return "", false
	}
	text := mergeParts(m.parts)
	return text, text != ""
}

// mergeParts joins a message's text parts as OpenCode shows them: one
// block each.
func mergeParts(parts []string) string {
	var kept []string
	for _, t := range parts {
		if t = strings.TrimSpace(clean(t)); t != "" {
			kept = append(kept, t)
		}
	}
	return strings.Join(kept, "\n\n")
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// modelName reads session.model, {"id":"…","providerID":"…"}, as
// "provider/model" (OpenCode's own notation).
func modelName(raw string) string {
	if raw == "" {
		return ""
	}
	var m struct {
		ID         string `json:"id"`
		ProviderID string `json:"providerID"`
	}
	if json.Unmarshal([]byte(raw), &m) != nil {
		return ""
	}
	return joinModel(m.ProviderID, m.ID)
}

func joinModel(provider, model string) string {
	model, provider = clean(model), clean(provider)
	if model == "" || provider == "" {
		return model
	}
	return provider + "/" + model
}
