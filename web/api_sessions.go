package web

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// sessionJSON is the API's view of a session (design.md's SessionInfo).
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

func toJSON(e entry) sessionJSON {
	in := e.info
	state, _ := stateOf(e)
	j := sessionJSON{
		Key: in.Key().String(), Runtime: in.Runtime, ID: in.ID, Cwd: in.Cwd, Project: in.Project,
		Title: in.Title, TitleSource: in.TitleSource, FirstPrompt: in.FirstPrompt, LastPrompt: in.LastPrompt,
		Created: timePtr(in.Created), Updated: timePtr(e.sortTime()), TimeSource: in.TimeSource, Model: in.Model,
		Live: in.Live, PID: in.PID, Tmux: in.Tmux, State: state, WaitingFor: in.WaitingFor,
		ParentKey: in.ParentKey, HistoryPath: in.Path, URL: sessionURL(in.Key()),
	}
	if c := e.card; c != nil {
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

// apiSessions lists sessions, newest activity first.
func (s *Server) apiSessions(c *echo.Context) error {
	limit, err := intParam(c, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	f := catalog.Filter{Runtime: c.QueryParam("runtime"), Query: c.QueryParam("q")}
	var wantLive *bool
	switch c.QueryParam("live") {
	case "":
	case "1", "true":
		t := true
		wantLive = &t
	case "0", "false":
		t := false
		wantLive = &t
	default:
		return newError(http.StatusBadRequest, "bad_live", "live must be true or false.")
	}
	wantState := c.QueryParam("state")
	if wantState != "" && !slices.Contains(hookstate.States(), hookstate.State(wantState)) {
		return newError(http.StatusBadRequest, "bad_state", "state must be one of connecting, idle, prompting, working, approval, input, waiting, ended, asleep.")
	}
	out := []sessionJSON{}
	for _, e := range s.entries(f) {
		if len(out) == limit {
			break
		}
		j := toJSON(e)
		if wantLive != nil && j.Live != *wantLive || wantState != "" && j.State != wantState {
			continue
		}
		out = append(out, j)
	}
	return c.JSON(http.StatusOK, map[string]any{"loaded": s.opts.Sessions.Loaded(), "sessions": out})
}

func (s *Server) apiSession(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	e, err := s.entry(c.Request().Context(), k)
	if err != nil {
		return err
	}
	resp := map[string]any{"session": toJSON(e)}
	if s.opts.Hosting != nil && e.card != nil && e.card.TerminalID != "" {
		if h, err := s.opts.Hosting.Health(c.Request().Context(), *e.card, s.opts.Now()); err == nil {
			resp["health"] = h
		}
	}
	return c.JSON(http.StatusOK, resp)
}

// apiMessages returns one page of the conversation, oldest first. The
// cursor is a message index, so pages stay stable while the agent appends.
func (s *Server) apiMessages(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	e, err := s.entry(c.Request().Context(), k)
	if err != nil {
		return err
	}
	msgs, err := s.messages(c.Request().Context(), e)
	if err != nil {
		return err
	}
	return messagesPage(c, msgs)
}

// apiHealth says paddock is up. It is public, so it carries no secrets and
// nothing about sessions beyond whether the first scan is done.
func (s *Server) apiHealth(c *echo.Context) error {
	return c.JSON(http.StatusOK, map[string]any{
		"status":   "ok",
		"version":  s.opts.Version,
		"loaded":   s.opts.Sessions.Loaded(),
		"uptime_s": int(s.opts.Now().Sub(s.started).Seconds()),
	})
}

// messagesPage answers one page of msgs, oldest first: ?limit (default
// 200) messages before the index ?before (default: the end). The cursor is
// a message index, so pages stay stable while the agent appends.
func messagesPage(c *echo.Context, msgs []session.Message) error {
	limit, err := intParam(c, "limit", 200, 1, 1000)
	if err != nil {
		return err
	}
	before, err := intParam(c, "before", len(msgs), 0, 1<<31-1)
	if err != nil {
		return err
	}
	to := min(before, len(msgs))
	from := max(to-limit, 0)
	out := make([]messageJSON, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, messageJSON{Index: i, Role: msgs[i].Role, Text: msgs[i].Text, Time: timePtr(msgs[i].Time)})
	}
	resp := map[string]any{"total": len(msgs), "messages": out}
	if from > 0 {
		resp["next_before"] = from
	}
	return c.JSON(http.StatusOK, resp)
}
