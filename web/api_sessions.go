package web

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/board"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// sessionJSON is the API's view of a session.
type sessionJSON struct {
	Key         string     `json:"key"`
	Runtime     string     `json:"runtime"`
	ID          string     `json:"id"`
	Cwd         string     `json:"cwd"`
	Project     string     `json:"project"`
	Title       string     `json:"title"`
	TitleSource string     `json:"title_source,omitempty"`
	FirstPrompt string     `json:"first_prompt,omitempty"`
	LastPrompt  string     `json:"last_prompt,omitempty"`
	Created     *time.Time `json:"created,omitempty"`
	Updated     *time.Time `json:"updated,omitempty"`
	TimeSource  string     `json:"time_source,omitempty"`
	Model       string     `json:"model,omitempty"`
	Live        bool       `json:"live"`
	PID         int        `json:"pid,omitempty"`
	Tmux        string     `json:"tmux,omitempty"`
	State       string     `json:"state"`
	WaitingFor  string     `json:"waiting_for,omitempty"`
	ParentKey   string     `json:"parent_key,omitempty"`
	HistoryPath string     `json:"history_path,omitempty"`
	URL         string     `json:"url"`
	// Error says why part or all of its history could not be read ("3
	// lines could not be read"); absent when it was read whole.
	Error string `json:"error,omitempty"`

	// From the live state (hooks, timers, process checks), when the
	// session has a live card.
	Attention      string             `json:"attention,omitempty"`
	StateSince     *time.Time         `json:"state_since,omitempty"`
	LastEvent      *time.Time         `json:"last_event,omitempty"`
	PermissionMode string             `json:"permission_mode,omitempty"`
	Dialog         *hookstate.Dialog  `json:"dialog,omitempty"`
	Terminal       string             `json:"terminal,omitempty"`
	TerminalID     string             `json:"terminal_id,omitempty"`
	External       bool               `json:"external,omitempty"`
	Memory         *memoryJSON        `json:"memory,omitempty"`
	Metrics        *hookstate.Metrics `json:"metrics,omitempty"`
	Subagents      []subagentJSON     `json:"subagents,omitempty"`
	StateHistory   []live.Transition  `json:"state_history,omitempty"`
	// From hosting: the user's name for it, how paddock launched it (for
	// Reconnect and Restart), why paddock chose its state, the memory freed
	// when it went to sleep, and the card's earlier runs.
	Name   string          `json:"name,omitempty"`
	Launch json.RawMessage `json:"launch,omitempty"`
	Note   string          `json:"note,omitempty"`
	Freed  uint64          `json:"freed_bytes,omitempty"`
	Runs   []runJSON       `json:"previous_runs,omitempty"`
}

type runJSON struct {
	Key   string    `json:"key"`
	URL   string    `json:"url"`
	Ended time.Time `json:"ended"`
}

type messageJSON struct {
	Index int        `json:"index"`
	Role  string     `json:"role"`
	Text  string     `json:"text"`
	Time  *time.Time `json:"time,omitempty"`
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func toJSON(e board.Entry) sessionJSON {
	in := e.Info
	state, _ := e.State()
	j := sessionJSON{
		Key: in.Key().String(), Runtime: in.Runtime, ID: in.ID, Cwd: in.Cwd, Project: in.Project,
		Title: in.Title, TitleSource: in.TitleSource, FirstPrompt: in.FirstPrompt, LastPrompt: in.LastPrompt,
		Created: timePtr(in.Created), Updated: timePtr(e.SortTime()), TimeSource: in.TimeSource, Model: in.Model,
		Live: in.Live, PID: in.PID, Tmux: in.Tmux, State: state, WaitingFor: in.WaitingFor,
		ParentKey: in.ParentKey, HistoryPath: in.Path, URL: sessionURL(in.Key()), Error: in.Error,
	}
	if c := e.Card; c != nil {
		j.Live = !c.State.Over()
		j.Attention = string(c.Attention)
		j.StateSince = timePtr(c.Since)
		j.LastEvent = timePtr(c.LastEvent)
		j.PermissionMode = c.PermissionMode
		j.Dialog = c.Dialog
		j.Terminal, j.TerminalID, j.External = c.Terminal, c.TerminalID, c.External
		if c.PID > 0 {
			j.PID = c.PID
		}
		if c.Model != "" {
			j.Model = c.Model
		}
		if c.Parent.ID != "" {
			j.ParentKey = c.Parent.String()
		}
		if c.Memory.RSS > 0 {
			j.Memory = &memoryJSON{RSS: c.Memory.RSS, Processes: c.Memory.Processes}
		}
		j.Metrics = &c.Metrics
		j.StateHistory = c.History
		j.Name, j.Note, j.Freed = c.Name, c.Note, c.Freed
		if len(c.Launch) > 0 {
			j.Launch = json.RawMessage(c.Launch)
		}
		for _, r := range c.Runs {
			j.Runs = append(j.Runs, runJSON{Key: r.Key.String(), URL: sessionURL(r.Key), Ended: r.Ended})
		}
		for _, a := range c.Subagents {
			j.Subagents = append(j.Subagents, subagentJSON{ID: a.ID, Type: a.Type, Task: a.Task, Running: a.Running,
				ToolCalls: a.ToolCalls, Started: timePtr(a.Started), Ended: timePtr(a.Ended), Transcript: a.Transcript})
		}
	}
	return j
}

type memoryJSON struct {
	RSS       uint64 `json:"rss_bytes"`
	Processes int    `json:"processes"`
}

type subagentJSON struct {
	ID         string     `json:"id"`
	Type       string     `json:"type,omitempty"`
	Task       string     `json:"task,omitempty"`
	Running    bool       `json:"running"`
	ToolCalls  int        `json:"tool_calls"`
	Started    *time.Time `json:"started,omitempty"`
	Ended      *time.Time `json:"ended,omitempty"`
	Transcript string     `json:"transcript,omitempty"`
}

func intParam(c *echo.Context, name string, def, lo, hi int) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, newError(http.StatusBadRequest, "bad_"+name, name+" must be a whole number from "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+".")
	}
	return n, nil
}

// apiSessions lists sessions, newest activity first, a page at a time:
// ?limit= of them after ?cursor= (the next_cursor of the page before).
func (s *Server) apiSessions(c *echo.Context) error {
	limit, err := intParam(c, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	sel := board.Select{Filter: board.Filter{Runtime: c.QueryParam("runtime"), Query: c.QueryParam("q")}}
	switch c.QueryParam("live") {
	case "":
	case "1", "true":
		t := true
		sel.Live = &t
	case "0", "false":
		t := false
		sel.Live = &t
	default:
		return newError(http.StatusBadRequest, "bad_live", "live must be true or false.")
	}
	sel.State = c.QueryParam("state")
	if sel.State != "" && !slices.Contains(hookstate.States(), hookstate.State(sel.State)) {
		return newError(http.StatusBadRequest, "bad_state", "state must be one of connecting, idle, prompting, working, approval, input, waiting, ended, asleep.")
	}
	page, next, err := s.opts.Board.Page(sel, c.QueryParam("cursor"), limit)
	if err != nil {
		return err
	}
	out := make([]sessionJSON, 0, len(page))
	for _, e := range page {
		out = append(out, toJSON(e))
	}
	resp := map[string]any{"loaded": s.opts.Board.Loaded(), "sessions": out}
	if next != "" {
		resp["next_cursor"] = next
	}
	return c.JSON(http.StatusOK, resp)
}

func (s *Server) apiSession(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	e, err := s.opts.Board.Get(c.Request().Context(), k)
	if err != nil {
		return err
	}
	resp := map[string]any{"session": toJSON(e)}
	if s.opts.Hosting != nil && e.Card != nil && e.Card.TerminalID != "" {
		if h, err := s.opts.Hosting.Health(c.Request().Context(), *e.Card, s.opts.Now()); err == nil {
			resp["health"] = h
		}
	}
	return c.JSON(http.StatusOK, resp)
}

// apiMessages returns one page of the conversation, oldest first. Without
// ?before it is the newest page, read from the end of the history when the
// whole is not cached (the first page of a long session must not wait for a
// full parse); ?before is a cursor (see cursor) into the whole.
func (s *Server) apiMessages(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := s.opts.Board.Get(ctx, k)
	if err != nil {
		return err
	}
	if c.QueryParam("before") == "" {
		limit, err := intParam(c, "limit", 200, 1, 1000)
		if err != nil {
			return err
		}
		r, err := s.opts.Board.Recent(ctx, e, limit)
		if err != nil {
			return historyFailed(ctx, e, err)
		}
		if r.Total >= 0 {
			return c.JSON(http.StatusOK, withHistoryError(pageJSON(r.Msgs, r.Total-len(r.Msgs), r.Total), e))
		}
		return c.JSON(http.StatusOK, withHistoryError(tailPageJSON(r.Msgs), e))
	}
	msgs, err := s.opts.Board.Messages(ctx, e)
	if err != nil {
		return historyFailed(ctx, e, err)
	}
	page, err := messagesPageJSON(c, msgs)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, withHistoryError(page, e))
}

// withHistoryError adds to a page of e's messages why part of its history
// could not be read ("history_error"), when it could not.
func withHistoryError(page map[string]any, e board.Entry) map[string]any {
	if e.Info.Error != "" {
		page["history_error"] = e.Info.Error
	}
	return page
}

// historyFailed is the answer when e's conversation could not be read
// (err): why, when its history cannot be read, else err itself.
func historyFailed(ctx context.Context, e board.Entry, err error) error {
	if unreadable(ctx, e, err) == "" || e.Info.Error == "" {
		return err
	}
	return &apiError{Status: http.StatusUnprocessableEntity, Code: "history_unreadable",
		Msg: "This session's history cannot be read: " + e.Info.Error + ".", Err: err}
}

// messagesPage answers one page of msgs, oldest first: ?limit (default
// 200) messages before the cursor ?before (default: the end).
func messagesPage(c *echo.Context, msgs []session.Message) error {
	page, err := messagesPageJSON(c, msgs)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, page)
}

// messagesPageJSON is the page messagesPage answers.
func messagesPageJSON(c *echo.Context, msgs []session.Message) (map[string]any, error) {
	limit, err := intParam(c, "limit", 200, 1, 1000)
	if err != nil {
		return nil, err
	}
	to := len(msgs)
	if v := c.QueryParam("before"); v != "" {
		cur, ok := parseCursor(v)
		if !ok {
			return nil, newError(http.StatusBadRequest, "bad_before", "before must be a cursor this API returned as next, or a message index (a whole number ≥ 0).")
		}
		if to, ok = cur.resolve(msgs); !ok {
			return nil, errStaleCursor
		}
	}
	from := max(to-limit, 0)
	return pageJSON(msgs[from:to], from, len(msgs)), nil
}

var errStaleCursor = newError(http.StatusConflict, "stale_cursor", "The message this cursor starts from is no longer in the conversation (it was rewound or replaced): read the newest page again, without before.")

// pageJSON is a page whose position is known: page is the conversation's
// messages from index from on, of total. next and next_before (the same
// index, as a number, as older clients read it) are absent at the first
// message.
func pageJSON(page []session.Message, from, total int) map[string]any {
	out := make([]messageJSON, 0, len(page))
	for i, m := range page {
		out = append(out, messageJSON{Index: from + i, Role: m.Role, Text: m.Text, Time: timePtr(m.Time)})
	}
	resp := map[string]any{"total": total, "messages": out}
	if from > 0 {
		resp["next"] = strconv.Itoa(from)
		resp["next_before"] = from
	}
	return resp
}

// tailMessageJSON is a message of a page read from the end of a history:
// its index is not known.
type tailMessageJSON struct {
	Role string     `json:"role"`
	Text string     `json:"text"`
	Time *time.Time `json:"time,omitempty"`
}

// tailPageJSON is the newest page of a conversation that was not counted:
// no total, no indices, and next is an anchor naming the page's oldest
// message.
func tailPageJSON(page []session.Message) map[string]any {
	out := make([]tailMessageJSON, 0, len(page))
	for _, m := range page {
		out = append(out, tailMessageJSON{Role: m.Role, Text: m.Text, Time: timePtr(m.Time)})
	}
	resp := map[string]any{"messages": out}
	if len(page) > 0 {
		resp["next"] = anchorCursor(page)
	}
	return resp
}

// A cursor names where a page of a conversation ends (exclusive), so the
// page before a page is asked for with the cursor of its first message.
// It is either a message index ("80"), stable while the agent appends, or,
// when the page was read from the end of a history so its indices are not
// known, an anchor: "t<d>-<hash>", where d is how many messages there were
// from the page's first message to the end, and hash identifies that
// message and the ones after it in the page (up to anchorSpan: role, time
// and text). An anchor is resolved against the whole conversation (a full
// parse, cached) to the last place where its messages are at least d from
// the end: appends only move the end away, so the page before it neither
// skips nor repeats a message however many arrived meanwhile.
type cursor struct {
	index int // ≥ 0: an index; -1: the anchor below
	dist  int
	hash  uint64
	// at is the anchored message's time in Unix ns ("-<base 36>" after the
	// hash; 0: it has none): only messages of that time are hashed, so a
	// cursor that matches nothing costs a scan of times, not a hash of the
	// whole conversation.
	at int64
}

// anchorSpan is how many messages an anchor hashes: more than one, so two
// identical messages (a repeated "continue" with no time) do not alias.
const anchorSpan = 3

// anchorCursor is the cursor of page[0], page being the last len(page)
// messages of the conversation.
func anchorCursor(page []session.Message) string {
	c := "t" + strconv.Itoa(len(page)) + "-" + strconv.FormatUint(spanHash(page), 16)
	if len(page) > 0 && !page[0].Time.IsZero() {
		c += "-" + strconv.FormatInt(page[0].Time.UnixNano(), 36)
	}
	return c
}

// spanHash hashes the first anchorSpan messages of msgs.
func spanHash(msgs []session.Message) uint64 {
	h := fnv.New64a()
	var n [8]byte
	field := func(s string) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	for _, m := range msgs[:min(len(msgs), anchorSpan)] {
		field(m.Role)
		field(m.Text)
		if m.Time.IsZero() {
			field("")
		} else {
			field(strconv.FormatInt(m.Time.UnixNano(), 10))
		}
	}
	return h.Sum64()
}

func parseCursor(v string) (cursor, bool) {
	if n, err := strconv.Atoi(v); err == nil {
		return cursor{index: n}, n >= 0
	}
	d, rest, ok := strings.Cut(strings.TrimPrefix(v, "t"), "-")
	if !ok || !strings.HasPrefix(v, "t") {
		return cursor{}, false
	}
	hash, at, timed := strings.Cut(rest, "-")
	dist, err1 := strconv.Atoi(d)
	sum, err2 := strconv.ParseUint(hash, 16, 64)
	if err1 != nil || err2 != nil || dist < 1 {
		return cursor{}, false
	}
	cu := cursor{index: -1, dist: dist, hash: sum}
	if timed {
		ns, err := strconv.ParseInt(at, 36, 64)
		if err != nil || ns == 0 {
			return cursor{}, false
		}
		cu.at = ns
	}
	return cu, true
}

// resolve is the index in msgs (the whole conversation) the cursor names;
// false when an anchor's messages are no longer there.
func (cu cursor) resolve(msgs []session.Message) (int, bool) {
	if cu.index >= 0 {
		return min(cu.index, len(msgs)), true
	}
	// The window hashed at i is msgs[i:i+min(dist, anchorSpan)], as it was
	// in the page.
	span := min(cu.dist, anchorSpan)
	for i := len(msgs) - cu.dist; i >= 0; i-- {
		if t := msgs[i].Time; cu.at != 0 && (t.IsZero() || t.UnixNano() != cu.at) {
			continue
		}
		if spanHash(msgs[i:i+span]) == cu.hash {
			return i, true
		}
	}
	return 0, false
}
