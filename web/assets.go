package web

import (
	"net/http"

	"github.com/labstack/echo/v5"
)

// staticAsset serves embedded files under content-hashed URLs, cached
// forever: a changed file gets a new URL.
func (s *Server) staticAsset(c *echo.Context) error {
	p := c.Request().URL.Path
	as, ok := s.assets.ByURL(p)
	if !ok && p == s.chroma.URL {
		as, ok = s.chroma, true
	}
	if !ok {
		return newError(http.StatusNotFound, "not_found", "No such file.")
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	return c.Blob(http.StatusOK, as.ContentType, as.Body)
}

func (s *Server) favicon(c *echo.Context) error {
	as, _ := s.assets.ByURL(s.assets.URL("icon.svg"))
	c.Response().Header().Set("Cache-Control", "public, max-age=86400")
	return c.Blob(http.StatusOK, "image/svg+xml", as.Body)
}

// serviceWorker is the installed app's worker. It is fetched again on every
// visit (no-cache) so that a new paddock's worker replaces the old one.
func (s *Server) serviceWorker(c *echo.Context) error {
	c.Response().Header().Set("Cache-Control", "no-cache")
	return c.Blob(http.StatusOK, "text/javascript; charset=utf-8", s.assets.ServiceWorker())
}
