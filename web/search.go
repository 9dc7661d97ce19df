package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/board"
	"paddock/internal/search"
	"paddock/internal/session"
	"paddock/views"
)

// Search is the full-text index of every session's conversation.
type Search interface {
	Search(ctx context.Context, q search.Query) ([]search.Hit, error)
	Progress() search.Progress
}

// searchQuery reads a search from the request's parameters: q, runtime,
// project, session_id (with runtime), since and until (RFC 3339 or
// YYYY-MM-DD), live=1, limit.
func (s *Server) searchQuery(c *echo.Context) (search.Query, error) {
	q := search.Query{Text: c.QueryParam("q"), Runtime: c.QueryParam("runtime"), Project: c.QueryParam("project")}
	if id := c.QueryParam("session_id"); id != "" {
		if q.Runtime == "" || !validToken(q.Runtime, 32) || !validToken(id, 200) {
			return q, newError(http.StatusBadRequest, "bad_session", "session_id needs its runtime (runtime=claude, …) and a valid id.")
		}
		q.Session = session.Key{Runtime: q.Runtime, ID: id}
	}
	for _, p := range []struct {
		name string
		to   *time.Time
	}{{"since", &q.Since}, {"until", &q.Until}} {
		raw := c.QueryParam(p.name)
		if raw == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, raw)
		if err != nil {
			if t, err = time.ParseInLocation(time.DateOnly, raw, time.Local); err != nil {
				return q, newError(http.StatusBadRequest, "bad_"+p.name, p.name+" is a time (2026-11-30T09:00:00Z) or a day (2026-11-30).")
			}
		}
		*p.to = t
	}
	if raw := c.QueryParam("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > 200 {
			return q, newError(http.StatusBadRequest, "bad_limit", "limit is a whole number from 1 to 200.")
		}
		q.Limit = n
	}
	if c.QueryParam("live") == "1" || c.QueryParam("category") != "" {
		entries, err := s.categoryEntries(c)
		if err != nil {
			return q, err
		}
		q.Only = board.Keys(entries)
	}
	return q, nil
}

// categoryEntries are the board's sessions in the request's category
// (all without one), live ones only with live=1, newest first.
func (s *Server) categoryEntries(c *echo.Context) ([]board.Entry, error) {
	cat := c.QueryParam("category")
	if cat == "" {
		cat = "all"
	}
	entries, err := board.InCategory(s.opts.Board.List(board.Filter{}), cat, s.opts.Now())
	if err != nil {
		return nil, newError(http.StatusBadRequest, "bad_category", "category is one of "+strings.Join(board.Categories, ", ")+" (background is live).")
	}
	if c.QueryParam("live") == "1" {
		entries, _ = board.InCategory(entries, "live", s.opts.Now())
	}
	return entries, nil
}

// runSearch runs the request's search, with its errors mapped.
func (s *Server) runSearch(c *echo.Context) (search.Query, []search.Hit, error) {
	if s.opts.Search == nil {
		return search.Query{}, nil, newError(http.StatusServiceUnavailable, "no_index", "This paddock keeps no search index.")
	}
	q, err := s.searchQuery(c)
	if err != nil {
		return q, nil, err
	}
	hits, err := s.opts.Search.Search(c.Request().Context(), q)
	if errors.Is(err, search.ErrEmptyQuery) {
		return q, nil, newError(http.StatusBadRequest, "empty_query", "Type a word to search for.")
	}
	return q, hits, err
}

// hitURL is the session page opened at the hit's message.
func hitURL(h search.Hit) string {
	return sessionURL(h.Key) + "?" + url.Values{"at": {strconv.Itoa(h.Seq)}}.Encode() + "#m-" + strconv.Itoa(h.Seq)
}

// categorySession is one session of a task search.
type categorySession struct {
	Runtime string    `json:"runtime"`
	ID      string    `json:"id"`
	Title   string    `json:"title,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Live    bool      `json:"live"`
	Updated time.Time `json:"updated"`
	URL     string    `json:"url"`
}

// apiSearch is GET /api/v1/search: the matching messages of every
// session, best first, with whether the index is still being built; with
// a category and no words, the sessions of that category (a task
// search), newest first.
func (s *Server) apiSearch(c *echo.Context) error {
	if c.QueryParam("category") != "" && strings.TrimSpace(c.QueryParam("q")) == "" {
		entries, err := s.categoryEntries(c)
		if err != nil {
			return err
		}
		limit := 30
		if raw := c.QueryParam("limit"); raw != "" {
			if limit, err = strconv.Atoi(raw); err != nil || limit < 1 || limit > 200 {
				return newError(http.StatusBadRequest, "bad_limit", "limit is a whole number from 1 to 200.")
			}
		}
		out := make([]categorySession, 0, min(limit, len(entries)))
		for _, e := range entries[:min(limit, len(entries))] {
			out = append(out, categorySession{Runtime: e.Info.Runtime, ID: e.Info.ID, Title: e.Info.Title, Cwd: e.Dir(), Live: !e.Over(),
				Updated: e.SortTime().UTC(), URL: sessionURL(e.Key())})
		}
		return c.JSON(http.StatusOK, map[string]any{"sessions": out, "total": len(entries)})
	}
	_, hits, err := s.runSearch(c)
	if err != nil {
		return err
	}
	out := make([]search.Record, 0, len(hits))
	for _, h := range hits {
		r := h.Record()
		r.URL = hitURL(h)
		out = append(out, r)
	}
	p := s.opts.Search.Progress()
	return c.JSON(http.StatusOK, map[string]any{"hits": out, "index": map[string]any{"ready": p.Ready, "indexed": p.Indexed, "total": p.Total}})
}

// searchPage is GET /search: the search form and its hits, grouped by
// session in the order of each session's best hit.
func (s *Server) searchPage(c *echo.Context) error {
	v := views.SearchPage{Query: c.QueryParam("q"), Runtime: c.QueryParam("runtime"), Live: c.QueryParam("live") == "1",
		Agents: s.agentChoices(), Category: c.QueryParam("category")}
	for _, cat := range board.Categories {
		v.Categories = append(v.Categories, views.Option{Value: cat, Label: categoryLabels[cat]})
	}
	if v.Category != "" && strings.TrimSpace(v.Query) == "" {
		entries, err := s.categoryEntries(c)
		var ae *apiError
		switch {
		case errors.As(err, &ae):
			v.Problem = ae.Msg
		case err != nil:
			return err
		}
		v.Searched = err == nil
		for _, e := range entries[:min(len(entries), 200)] {
			if v.Runtime != "" && e.Info.Runtime != v.Runtime {
				continue
			}
			title := e.Info.Title
			if title == "" {
				title = "Untitled session"
			}
			v.Sessions = append(v.Sessions, views.SearchGroup{Title: title, Agent: s.opts.Agents.Label(e.Info.Runtime), Project: session.ShortProject(e.Dir(), ""), URL: sessionURL(e.Key())})
		}
		if v.Searched && len(v.Sessions) == 0 {
			v.Problem = "No session of that kind."
		}
		return s.render(c, http.StatusOK, views.Search(s.page(c, "Search"), v))
	}
	if s.opts.Search == nil {
		v.Problem = "This paddock keeps no search index."
	}
	if s.opts.Search != nil {
		p := s.opts.Search.Progress()
		v.Building, v.Indexed, v.Total = !p.Ready, p.Indexed, p.Total
	}
	if v.Query != "" && s.opts.Search != nil {
		_, hits, err := s.runSearch(c)
		var ae *apiError
		switch {
		case errors.As(err, &ae) && ae.Status == http.StatusBadRequest:
			v.Problem = ae.Msg
		case err != nil:
			return err
		}
		v.Searched = err == nil
		v.Groups = groupHits(hits, s.opts.Agents.Label)
	}
	return s.render(c, http.StatusOK, views.Search(s.page(c, "Search"), v))
}

// groupHits puts the hits of one session together, in the order of each
// session's best hit.
func groupHits(hits []search.Hit, label func(string) string) []views.SearchGroup {
	var out []views.SearchGroup
	at := map[session.Key]int{}
	for _, h := range hits {
		i, ok := at[h.Key]
		if !ok {
			i = len(out)
			at[h.Key] = i
			title := h.Title
			if title == "" {
				title = "Untitled session"
			}
			out = append(out, views.SearchGroup{Title: title, Agent: label(h.Key.Runtime), Project: session.ShortProject(h.Cwd, ""), URL: sessionURL(h.Key)})
		}
		hv := views.SearchHit{URL: hitURL(h), Role: h.Role, TimeISO: h.At.UTC().Format(time.RFC3339), TimeText: h.At.Format("2 Jan 2006 15:04"),
			Parts: snippetParts(h.Snippet)}
		out[i].Hits = append(out[i].Hits, hv)
	}
	return out
}

// snippetParts is a hit's snippet for a view.
func snippetParts(ps []search.Part) []views.SnippetPart {
	out := make([]views.SnippetPart, len(ps))
	for i, p := range ps {
		out[i] = views.SnippetPart{Text: p.Text, Match: p.Match}
	}
	return out
}

// agentChoices are every agent paddock knows, for a filter.
func (s *Server) agentChoices() []views.Option {
	var out []views.Option
	for _, rt := range s.opts.Agents.Names() {
		out = append(out, views.Option{Value: rt, Label: s.opts.Agents.Label(rt)})
	}
	return out
}

// categoryLabels name the categories on the search page.
var categoryLabels = map[string]string{
	"subagent": "In a team (subagents)", "github": "GitHub work", "hosted": "Hosted by paddock", "live": "Running now",
	"untitled": "Untitled", "recent": "Last 7 days", "all": "All sessions",
}
