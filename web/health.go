package web

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"paddock/internal/store"
)

// StoreHealth says whether paddock's database takes writes (the store).
type StoreHealth interface {
	Health() store.Health
}

// storeProblem is why paddock cannot save what it is told ("" while it
// can), in words for the user.
func (s *Server) storeProblem() string {
	if s.opts.Store == nil {
		return ""
	}
	return s.opts.Store.Health().Unwritable
}

// apiHealth says paddock is up, and "degraded" with the reason when its
// database takes no writes (a decision from the phone is then refused).
// It is public, so it carries no secrets and nothing about sessions
// beyond whether the first scan is done.
func (s *Server) apiHealth(c *echo.Context) error {
	out := map[string]any{
		"status":   "ok",
		"version":  s.opts.Version,
		"loaded":   s.opts.Board.Loaded(),
		"uptime_s": int(s.opts.Now().Sub(s.started).Seconds()),
	}
	if s.opts.Store != nil {
		if h := s.opts.Store.Health(); !h.OK() {
			out["status"] = "degraded"
			out["reason"] = "paddock cannot save: " + h.Unwritable
			out["since"] = h.Since.UTC()
		}
	}
	if probs := s.opts.Board.Problems(); len(probs) > 0 {
		out["sources"] = sourcesJSON(probs) // warnings: paddock itself works
	}
	return c.JSON(http.StatusOK, out)
}
