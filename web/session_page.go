package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v5"

	"paddock/internal/hookstate"
	"paddock/internal/session"
	"paddock/views"
)

// sessionKey reads and validates the {runtime}/{id} path parameters. The
// id is never used to build a path here; scanners validate it again.
func sessionKey(c *echo.Context) (session.Key, error) {
	k := session.Key{Runtime: c.Param("runtime"), ID: c.Param("id")}
	if !validToken(k.Runtime, 32) || !validToken(k.ID, 200) {
		return k, newError(http.StatusBadRequest, "bad_session_key", "A session address is /s/<runtime>/<id>, with letters, digits, '-', '_' or '.'.")
	}
	return k, nil
}

func validToken(s string, maxLen int) bool {
	if s == "" || len(s) > maxLen || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

func (s *Server) sessionPage(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	e, err := s.opts.Board.Get(ctx, k)
	if err != nil {
		return err
	}
	r, err := s.opts.Board.Recent(ctx, e, pageSize)
	unread := unreadable(ctx, e, err)
	if err != nil && unread == "" {
		return err
	}
	// A GET changes nothing: the page, once shown, says it was read
	// (POST …/read, which a cross-site link cannot send).
	v := s.sessionView(ctx, e, r)
	if unread != "" {
		// The page still opens, with what is known and why there is no
		// conversation to show.
		v.HistoryError = unread
	}
	v.MarkRead = e.Card != nil && e.Card.Attention == hookstate.AttentionUnread
	if raw := c.QueryParam("at"); raw != "" {
		// Opened at a message (a search hit, #m-N names it): the page
		// around it rather than the newest.
		at, err := strconv.Atoi(raw)
		if err != nil || at < 0 {
			return newError(http.StatusBadRequest, "bad_message", "at is a message's place in the conversation, a whole number from 0.")
		}
		msgs, err := s.opts.Board.Messages(ctx, e)
		if err != nil {
			return err
		}
		v.Conversation = s.atPage(k, msgs, at)
	}
	p := s.page(c, v.Card.Title)
	q := url.Values{"view": {"session"}, "runtime": {k.Runtime}, "id": {k.ID}}
	if c.QueryParam("at") != "" {
		q.Set("at", c.QueryParam("at")) // the live feed keeps the reader's page
	}
	p.WSURL = "/ws?" + q.Encode()
	return s.render(c, http.StatusOK, views.SessionPage(p, v))
}

// olderMessages is the htmx fragment for the page of messages before the
// cursor ?before (see cursor), loaded when the user scrolls up. It reads
// the whole conversation (cached). When an anchor's message is gone (the
// conversation was rewound), the page is reloaded rather than showing a
// page that may not join the one below.
func (s *Server) olderMessages(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	cur, ok := parseCursor(c.QueryParam("before"))
	if !ok {
		return newError(http.StatusBadRequest, "bad_cursor", "before must be a message index (a whole number ≥ 0) or a cursor from the page.")
	}
	ctx := c.Request().Context()
	e, err := s.opts.Board.Get(ctx, k)
	if err != nil {
		return err
	}
	msgs, err := s.opts.Board.Messages(ctx, e)
	if err != nil {
		return err
	}
	to, ok := cur.resolve(msgs)
	if !ok {
		c.Response().Header().Set("HX-Refresh", "true")
		return s.render(c, http.StatusOK, views.OlderGone(sessionURL(k)))
	}
	return s.render(c, http.StatusOK, views.OlderPage(s.conversationPage(k, msgs, to)))
}

// markRead is POST /s/{runtime}/{id}/read: the session page was shown,
// so its unread result is read.
func (s *Server) markRead(c *echo.Context) error {
	k, err := sessionKey(c)
	if err != nil {
		return err
	}
	if err := s.opts.Board.MarkRead(c.Request().Context(), k); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
