package web

import (
	"mime"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v5"

	"paddock/internal/export"
	"paddock/internal/session"
)

// exportSession is GET /s/{runtime}/{id}/export (and its /api/v1 twin):
// the session's record as a file to save, in ?format= (markdown, json,
// jsonl, text), with ?tools=1 its thinking, tool calls and results too.
// X-Paddock-Messages says how many messages it holds.
func (s *Server) exportSession(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	f, err := export.ParseFormat(c.QueryParam("format"))
	if err != nil {
		return newError(http.StatusBadRequest, "bad_format", "format is markdown, json, jsonl or text.")
	}
	tools := c.QueryParam("tools") == "1"
	ctx := c.Request().Context()
	e, err := s.opts.Board.Get(ctx, k)
	if err != nil {
		return err
	}
	// Read twice, never held: once for the count and the calls' results,
	// once to write.
	record := func(fn func(session.Event) error) error { return s.opts.Board.EachEvent(ctx, k, fn) }
	x, err := export.Plan(record, tools)
	if err != nil {
		return err
	}
	meta := export.Session{Runtime: k.Runtime, ID: k.ID, Title: e.Info.Title, Cwd: e.Info.Cwd, Model: e.Info.Model,
		Created: e.Info.Created, Updated: e.Info.Updated}
	h := c.Response().Header()
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": export.FileName(meta, f)}))
	h.Set("X-Paddock-Messages", strconv.Itoa(x.Messages()))
	h.Set("Content-Type", f.ContentType())
	// Streamed as it is read: a long session is never held, as its record
	// or as its export.
	c.Response().WriteHeader(http.StatusOK)
	if err := x.Write(c.Response(), f, meta); err != nil {
		// The file is cut short: the connection is dropped so that the
		// browser reports a failed download, never a complete one.
		s.log.Warn("export cut short", "session", k.String(), "error", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}
