package web

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/board"
	"paddock/internal/handoff"
	"paddock/internal/hosted"
	"paddock/internal/search"
	"paddock/internal/session"
	"paddock/views"
)

// handoffRequest is POST /api/v1/handoff's body. Source, when empty, is
// the top hit of Query, else the newest session of Category.
type handoffRequest struct {
	Target       string `json:"target"` // "runtime:id"
	Source       string `json:"source,omitempty"`
	Query        string `json:"query,omitempty"`
	Category     string `json:"category,omitempty"`
	Context      string `json:"context,omitempty"`
	Task         string `json:"task"`
	HistoryLimit int    `json:"history_limit,omitempty"`
	Wait         bool   `json:"wait,omitempty"`
	// TimeoutSeconds bounds the wait for the target's reply (default
	// 600, at most 600).
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// Start, instead of a Target, starts a new session paddock hosts
	// and hands the work to it as its first prompt.
	Start *handoffStart `json:"start,omitempty"`
}

// handoffStart is the new session a hand-off starts: its agent, and its
// directory (default: the source's).
type handoffStart struct {
	Runtime string `json:"runtime"`
	Workdir string `json:"workdir,omitempty"`
}

type handoffResult struct {
	Source     string `json:"source"`
	Target     string `json:"target"`
	Delivered  bool   `json:"delivered"`
	Queued     bool   `json:"queued,omitempty"`
	Characters int    `json:"characters"`
	Message    string `json:"message"`
	// Started: the target is a session the hand-off started.
	Started bool   `json:"started,omitempty"`
	Reply   string `json:"reply,omitempty"`
	// TimedOut: waited for the reply and none came in time.
	TimedOut bool `json:"timed_out,omitempty"`
}

// parseKey reads "runtime:id".
func parseKey(s string) (session.Key, bool) {
	rt, id, ok := strings.Cut(strings.TrimSpace(s), ":")
	k := session.Key{Runtime: rt, ID: id}
	return k, ok && validToken(rt, 32) && validToken(id, 200)
}

// apiHandoff is POST /api/v1/handoff: the source session's work, in the
// hand-off template, sent to a running session paddock hosts, with
// delivery checked; with wait, the target's first reply too.
func (s *Server) apiHandoff(c *echo.Context) error {
	var req handoffRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	out, err := s.handOff(c.Request().Context(), req, by(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// handoffFromPage is the session page's Hand off sheet: this session's
// work to the target chosen, with the task written there.
func (s *Server) handoffFromPage(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	req := handoffRequest{Source: k.String(), Target: postForm(c, "target"), Task: postForm(c, "task"), Query: postForm(c, "query")}
	if rt, ok := strings.CutPrefix(req.Target, newTargetPrefix); ok {
		req.Target, req.Start = "", &handoffStart{Runtime: rt}
	}
	out, err := s.handOff(c.Request().Context(), req, by(c))
	if err != nil {
		return s.result(c, err)
	}
	text := "Handed off to " + out.Target + ": delivered."
	switch {
	case out.Started:
		text = "Started " + out.Target + " with the hand-off as its first prompt."
	case out.Queued:
		text = "Handed off to " + out.Target + ": it takes the message when its turn ends."
	}
	return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: text}))
}

// handOff carries out a hand-off for who.
func (s *Server) handOff(ctx context.Context, req handoffRequest, who string) (handoffResult, error) {
	var out handoffResult
	if s.opts.Hosting == nil {
		return out, errNoHosting
	}
	var target session.Key
	switch {
	case req.Start != nil && req.Target != "":
		return out, newError(http.StatusBadRequest, "bad_target", "Give a target or start, not both.")
	case req.Start != nil:
		if !slices.Contains(s.opts.Hosting.Installed(), req.Start.Runtime) {
			return out, newError(http.StatusBadRequest, "bad_runtime", "start.runtime is an agent installed here: "+strings.Join(s.opts.Hosting.Installed(), ", ")+".")
		}
	default:
		var ok bool
		if target, ok = parseKey(req.Target); !ok {
			return out, newError(http.StatusBadRequest, "bad_target", `target is the receiving session as "runtime:id" (or start a new one with start).`)
		}
	}
	if strings.TrimSpace(req.Task) == "" {
		return out, newError(http.StatusBadRequest, "no_task", "Say what the other session should do (task).")
	}
	source, err := s.handoffSource(ctx, req)
	if err != nil {
		return out, err
	}
	if source == target {
		return out, newError(http.StatusBadRequest, "same_session", "A session cannot hand its work to itself: choose another target.")
	}
	var te board.Entry
	if req.Start == nil {
		if te, err = s.opts.Board.Get(ctx, target); err != nil {
			return out, err
		}
		if te.Card == nil || te.Card.TerminalID == "" || te.Over() {
			return out, newError(http.StatusConflict, "target_not_running",
				"The target is not running in paddock's terminal: resume it, or start a new session with the hand-off (start: {runtime}).")
		}
	}
	se, err := s.opts.Board.Get(ctx, source)
	if err != nil {
		return out, err
	}
	var msgs []session.Message
	if strings.TrimSpace(req.Context) == "" {
		if msgs, err = s.opts.Board.Messages(ctx, se); err != nil {
			return out, err
		}
	}
	text, err := handoff.Build(msgs, handoff.Request{Source: source, SourceTitle: se.Info.Title, Task: req.Task, Context: req.Context,
		Query: req.Query, History: req.HistoryLimit})
	switch {
	case errors.Is(err, handoff.ErrEmptyContext):
		return out, newError(http.StatusUnprocessableEntity, "empty_context", "The source has nothing to hand off: no message matches the query, or it has none.")
	case err != nil:
		return out, err
	}
	before := 0
	var d hosted.Delivery
	if req.Start != nil {
		// A new session takes the hand-off as its first prompt, delivered
		// and checked as any prompt it is started with.
		dir := req.Start.Workdir
		if dir == "" {
			dir = se.Dir()
		}
		created, err := s.opts.Hosting.Create(ctx, hosted.Request{Runtime: req.Start.Runtime, Workdir: dir, Prompt: text, Parent: source.String()})
		if err != nil {
			return out, err
		}
		target = created.Key
		if created.Prompt != nil {
			d = *created.Prompt
		}
	} else {
		if req.Wait {
			if m, err := s.opts.Board.Messages(ctx, te); err == nil {
				before = len(m)
			}
		}
		if d, err = s.opts.Hosting.Send(ctx, *te.Card, text); err != nil {
			return out, err
		}
	}
	out = handoffResult{Source: source.String(), Target: target.String(), Delivered: d.Delivered, Queued: d.Queued,
		Characters: len([]rune(text)), Message: text, Started: req.Start != nil}
	if !d.Delivered && !d.Queued {
		return out, newError(http.StatusBadGateway, "not_delivered", "The hand-off did not reach the target: "+d.Reason+". Nothing was delivered.")
	}
	s.log.Info("session handed off", "source", source.String(), "target", target.String(), "characters", out.Characters, "by", who)
	s.handoffs.set(source, target)
	if s.opts.Audit != nil {
		// Kept: the source's page says where its work went.
		if err := s.opts.Audit.Audit(ctx, s.opts.Now(), who, auditHandoff, handoffDetail(source, target)); err != nil {
			s.log.Warn("hand-off not recorded", "source", source.String(), "error", err)
		}
	}
	if req.Wait {
		out.Reply, out.TimedOut = s.waitReply(ctx, target, before, req.TimeoutSeconds)
	}
	return out, nil
}

// handoffSource resolves the request's source: the one named, else the
// top hit of its query, else the newest session of its category.
func (s *Server) handoffSource(ctx context.Context, req handoffRequest) (session.Key, error) {
	if req.Source != "" {
		k, ok := parseKey(req.Source)
		if !ok {
			return k, newError(http.StatusBadRequest, "bad_source", `source is a session as "runtime:id".`)
		}
		return k, nil
	}
	if strings.TrimSpace(req.Query) != "" {
		if s.opts.Search == nil {
			return session.Key{}, newError(http.StatusServiceUnavailable, "no_index", "This paddock keeps no search index: name the source.")
		}
		hits, err := s.opts.Search.Search(ctx, search.Query{Text: req.Query, Limit: 1})
		if err != nil && !errors.Is(err, search.ErrEmptyQuery) {
			return session.Key{}, err
		}
		if len(hits) == 0 {
			return session.Key{}, newError(http.StatusNotFound, "no_source", "No session matches the query: name the source, or search with other words.")
		}
		return hits[0].Key, nil
	}
	if req.Category != "" {
		entries, err := board.InCategory(s.opts.Board.List(board.Filter{}), req.Category, s.opts.Now())
		if err != nil {
			return session.Key{}, newError(http.StatusBadRequest, "bad_category", "category is one of "+strings.Join(board.Categories, ", ")+".")
		}
		if len(entries) == 0 {
			return session.Key{}, newError(http.StatusNotFound, "no_source", "No session of that category: name the source.")
		}
		return entries[0].Key(), nil
	}
	return session.Key{}, newError(http.StatusBadRequest, "no_source", "Name the source session (source), or find it by a query or a category.")
}

// waitReply waits for the target's first answer after the hand-off: a
// new assistant message past the before it had.
func (s *Server) waitReply(ctx context.Context, target session.Key, before, seconds int) (string, bool) {
	if seconds <= 0 || seconds > 600 {
		seconds = 600
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(seconds)*time.Second)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if e, err := s.opts.Board.Get(ctx, target); err == nil {
			if msgs, err := s.opts.Board.Messages(ctx, e); err == nil && len(msgs) > before {
				for _, m := range msgs[before:] {
					if m.Role == session.RoleAssistant {
						return m.Text, false
					}
				}
			}
		}
		select {
		case <-ctx.Done():
			return "", true
		case <-tick.C:
		}
	}
}

// auditHandoff is the audit log's action for a hand-off; its detail is
// handoffDetail.
const auditHandoff = "session.handoff"

func handoffDetail(source, target session.Key) string {
	return "source=" + source.String() + " target=" + target.String()
}

// handedOff says where k's work was last handed off to, from the audit
// log ("" when never, or without one). It runs with every render of the
// session's head: one row is read, not the log.
func (s *Server) handedOff(ctx context.Context, k session.Key) string {
	if s.opts.Audit == nil {
		return ""
	}
	prefix := "source=" + k.String() + " target="
	e, ok, err := s.opts.Audit.LatestAudit(ctx, auditHandoff, prefix)
	if err != nil || !ok {
		return ""
	}
	return "Handed off to " + strings.TrimPrefix(e.Detail, prefix) + " " + relTime(s.opts.Now(), e.At) + "."
}

// newTargetPrefix marks, in the page's Hand off sheet, the choice of a
// new session of an agent ("new:codex") rather than a running one.
const newTargetPrefix = "new:"

// handoffMarks is the target each session's work was last handed off to:
// read once from the audit log, then kept as hand-offs happen, so that
// the board's cards say so without a query per card.
type handoffMarks struct {
	mu     sync.Mutex
	loaded bool
	to     map[session.Key]session.Key
}

// handoffMarksRead is how many of the audit log's newest hand-offs the
// board's marks start from.
const handoffMarksRead = 2000

func (m *handoffMarks) set(source, target session.Key) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.to == nil {
		m.to = map[session.Key]session.Key{}
	}
	m.to[source] = target
}

// handedOffTo is where k's work was last handed off to.
func (s *Server) handedOffTo(k session.Key) (session.Key, bool) {
	m := &s.handoffs
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded && s.opts.Audit != nil {
		m.loaded = true
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		es, err := s.opts.Audit.AuditOf(ctx, auditHandoff, handoffMarksRead)
		if err != nil {
			s.log.Warn("hand-offs not read: the board does not mark them", "error", err)
		}
		if m.to == nil {
			m.to = map[session.Key]session.Key{}
		}
		// Newest first: a session's newest hand-off (or one made since
		// serve started) is the one kept.
		for _, e := range es {
			src, tgt, ok := parseHandoffDetail(e.Detail)
			if _, newer := m.to[src]; ok && !newer {
				m.to[src] = tgt
			}
		}
	}
	t, ok := m.to[k]
	return t, ok
}

// parseHandoffDetail reads handoffDetail back.
func parseHandoffDetail(d string) (source, target session.Key, ok bool) {
	src, tgt, found := strings.Cut(strings.TrimPrefix(d, "source="), " target=")
	if !found || !strings.HasPrefix(d, "source=") {
		return source, target, false
	}
	source, ok1 := parseKey(src)
	target, ok2 := parseKey(tgt)
	return source, target, ok1 && ok2
}
