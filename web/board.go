package web

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v5"

	"paddock/views"
)

func (s *Server) boardPage(c *echo.Context) error {
	p := s.page(c, "LIVE")
	p.WSURL = "/ws?view=board"
	b := s.board()
	b.Agents, b.Projects = s.filterOptions(b.Cards)
	return s.render(c, http.StatusOK, views.BoardPage(p, b))
}

// filterOptions lists the agents and projects on the board for its filters.
// Only the full page renders the filters (the websocket pushes the list
// alone), so board() does not build them on every push.
func (s *Server) filterOptions(cards []views.Card) (agents []views.Option, projects []string) {
	seenAgent, seenProject := map[string]bool{}, map[string]bool{}
	for _, c := range cards {
		seenAgent[c.Runtime] = true
		if c.Project != "" && !seenProject[c.Project] {
			seenProject[c.Project] = true
			projects = append(projects, c.Project)
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
