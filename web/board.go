package web

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"paddock/internal/catalog"
	"paddock/views"
)

var catalogAll = catalog.Filter{}

func (s *Server) boardPage(c *echo.Context) error {
	p := s.page(c, "LIVE")
	p.WSURL = "/ws?view=board"
	return s.render(c, http.StatusOK, views.BoardPage(p, s.board()))
}
