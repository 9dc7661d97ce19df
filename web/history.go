package web

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/session"
	"paddock/views"
)

// eventJSON is one board.Entry of a session's full record.
type eventJSON struct {
	Kind    string     `json:"kind"`
	Role    string     `json:"role,omitempty"`
	Text    string     `json:"text,omitempty"`
	Tool    string     `json:"tool,omitempty"`
	ToolID  string     `json:"tool_id,omitempty"`
	Input   string     `json:"input,omitempty"`
	IsError bool       `json:"is_error,omitempty"`
	Time    *time.Time `json:"time,omitempty"`
	// An image: the type its history declares, its size, and where it is
	// served ("" when it is not: too large, unreadable or not raster).
	MediaType string `json:"media_type,omitempty"`
	Size      int    `json:"size,omitempty"`
	URL       string `json:"url,omitempty"`
}

// apiEvents is GET /api/v1/sessions/{runtime}/{id}/events: messages,
// thinking, tool calls and results, oldest first.
func (s *Server) apiEvents(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	evs, err := s.opts.Board.Events(c.Request().Context(), k)
	if err != nil {
		return err
	}
	out := make([]eventJSON, 0, len(evs))
	images := 0
	for _, e := range evs {
		j := eventJSON{Kind: e.Kind, Role: e.Role, Text: e.Text, Tool: e.Tool, ToolID: e.ToolID,
			Input: e.Input, IsError: e.IsError, Time: timePtr(e.Time)}
		if e.Kind == session.EventImage {
			j.MediaType, j.Size = e.MediaType, e.Size
			if servedImageType(e) != "" {
				j.URL = "/api/v1/sessions/" + url.PathEscape(k.Runtime) + "/" + url.PathEscape(k.ID) + "/images/" + strconv.Itoa(images)
			}
			images++
		}
		out = append(out, j)
	}
	return c.JSON(http.StatusOK, map[string]any{"key": k.String(), "events": out})
}

// deleteSession deletes a session's history, as its agent keeps it, and
// records who did.
func (s *Server) deleteSession(c *echo.Context) (session.Key, error) {
	k, err := sessionKey(c)
	if err != nil {
		return k, err
	}
	ctx := c.Request().Context()
	// The board holds the rule (the same as the page's Delete button).
	if err := s.opts.Board.Delete(ctx, k); err != nil {
		return k, err
	}
	if s.opts.Audit != nil {
		if err := s.opts.Audit.Audit(ctx, s.opts.Now(), by(c), "session.delete", "session="+k.String()); err != nil {
			s.log.Warn("session deleted but not audited", "session", k.String(), "error", err)
		}
	}
	s.log.Info("session history deleted", "session", k.String(), "by", by(c))
	return k, nil
}

// apiDelete is DELETE /api/v1/sessions/{runtime}/{id}.
func (s *Server) apiDelete(c *echo.Context) error {
	if _, err := s.deleteSession(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// deleteFromPage is the session page's "Delete history" (htmx, after a
// confirmation): back to the board when done.
func (s *Server) deleteFromPage(c *echo.Context) error {
	if _, err := s.deleteSession(c); err != nil {
		return s.result(c, err)
	}
	c.Response().Header().Set("HX-Location", "/")
	return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: "Deleted."}))
}
