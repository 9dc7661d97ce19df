package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v5"

	"paddock/internal/board"
	"paddock/views"
)

func (s *Server) boardPage(c *echo.Context) error {
	f, err := s.boardFilter(c.QueryParams())
	if err != nil {
		return err
	}
	p := s.page(c, "LIVE")
	p.WSURL = "/ws?view=board"
	if q := boardQuery(f, ""); q != "" {
		p.WSURL += "&" + q
	}
	b, err := s.board(f, "")
	if err != nil {
		return err
	}
	b.Agents, b.Projects = s.filterOptions(f)
	return s.render(c, http.StatusOK, views.BoardPage(p, b))
}

// inboxPage is every prompt and question waiting, across agents.
func (s *Server) inboxPage(c *echo.Context) error {
	p := s.page(c, "Needs you")
	p.WSURL = "/ws?view=" + viewInbox
	b, err := s.board(views.BoardFilter{}, "")
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.InboxPage(p, b))
}

// boardMore is the board's next page, after the card ?after= names.
func (s *Server) boardMore(c *echo.Context) error {
	q := c.QueryParams()
	f, err := s.boardFilter(q)
	if err != nil {
		return err
	}
	after := q.Get("after")
	if !validToken(after, 250) {
		return newError(http.StatusBadRequest, "bad_after", "after names the board's last card shown (its element id).")
	}
	b, err := s.board(f, after)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.CardsPage(b.Cards, b.More))
}

// boardFilter reads the board's filter from a query: agent (one of the
// registry's), project (as the cards name it), live=1 and q (the search
// box).
func (s *Server) boardFilter(q url.Values) (views.BoardFilter, error) {
	f := views.BoardFilter{Agent: q.Get("agent"), Project: q.Get("project"), Query: strings.TrimSpace(q.Get("q"))}
	if f.Agent != "" && !slices.Contains(s.opts.Agents.Names(), f.Agent) {
		return f, newError(http.StatusBadRequest, "bad_agent", "agent is one of: "+strings.Join(s.opts.Agents.Names(), ", ")+".")
	}
	if len(f.Project) > 256 {
		return f, newError(http.StatusBadRequest, "bad_project", "project is a project's name as the board shows it (at most 256 bytes).")
	}
	if len(f.Query) > 200 || !utf8.ValidString(f.Query) {
		return f, newError(http.StatusBadRequest, "bad_query", "q is text to look for in the sessions' titles, projects, directories and prompts (at most 200 bytes).")
	}
	switch q.Get("live") {
	case "":
	case "1":
		f.Live = true
	default:
		return f, newError(http.StatusBadRequest, "bad_live", "live is 1 (only running sessions) or absent.")
	}
	return f, nil
}

// filterOptions lists the agents and projects of every session for the
// board's filters (not only the page shown), and keeps the chosen one
// even when none of its sessions is left.
func (s *Server) filterOptions(f views.BoardFilter) (agents []views.Option, projects []string) {
	seenAgent, seenProject := map[string]bool{f.Agent: f.Agent != ""}, map[string]bool{}
	if f.Project != "" {
		seenProject[f.Project] = true
		projects = append(projects, f.Project)
	}
	for _, e := range s.opts.Board.List(board.Filter{}) {
		seenAgent[e.Info.Runtime] = true
		if p := e.Info.Project; p != "" && !seenProject[p] {
			seenProject[p] = true
			projects = append(projects, p)
		}
	}
	for _, rt := range s.opts.Agents.Names() {
		if seenAgent[rt] {
			agents = append(agents, views.Option{Value: rt, Label: s.opts.Agents.Label(rt)})
		}
	}
	slices.Sort(projects)
	return agents, projects
}
