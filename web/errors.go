package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"paddock/internal/auth"
	"paddock/internal/board"
	"paddock/internal/catalog"
	"paddock/internal/decisions"
	"paddock/internal/hosted"
	"paddock/internal/session"
	"paddock/internal/store"
	"paddock/views"
)

// apiError carries a status and a message that is safe to show a client;
// the wrapped error (if any) is only logged.
type apiError struct {
	Status int
	Code   string
	Msg    string
	Err    error
}

func (e *apiError) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Msg
}

func (e *apiError) Unwrap() error { return e.Err }

func newError(status int, code, msg string) *apiError {
	return &apiError{Status: status, Code: code, Msg: msg}
}

var (
	errUnauthenticated = newError(http.StatusUnauthorized, "unauthenticated", "This device is not paired with paddock.")
	errCSRF            = newError(http.StatusForbidden, "csrf", "The request was refused: missing or wrong CSRF token, or it came from another site.")
	errBadHost         = newError(http.StatusMisdirectedRequest, "bad_host", "This server does not answer to that host name.")
	errBadOrigin       = newError(http.StatusForbidden, "bad_origin", "Cross-origin websocket connections are refused.")
)

// classify maps any error to the status, code and client-safe message. It is
// the one place where errors become HTTP.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	switch {
	case errors.Is(err, session.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such session.")
	case errors.Is(err, auth.ErrRateLimited):
		return newError(http.StatusTooManyRequests, "rate_limited", "Too many pairing attempts from this address. Wait a minute and try again.")
	case errors.Is(err, auth.ErrUsedCode):
		return newError(http.StatusGone, "code_used", "This pairing link was already used. Run `paddock pair` for a new one.")
	case errors.Is(err, auth.ErrExpiredCode):
		return newError(http.StatusGone, "code_expired", "This pairing link has expired. Run `paddock pair` for a new one.")
	case errors.Is(err, auth.ErrInvalidCode):
		return newError(http.StatusBadRequest, "code_invalid", "This pairing link is not valid. Run `paddock pair` for a new one.")
	case errors.Is(err, auth.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such device or token.")
	case errors.Is(err, auth.ErrInvalidName):
		return newError(http.StatusBadRequest, "bad_name", "A name is 1 to 64 printable characters.")
	case errors.Is(err, auth.ErrRevoked), errors.Is(err, auth.ErrUnauthenticated):
		return errUnauthenticated
	case errors.Is(err, hosted.ErrInvalid):
		return newError(http.StatusBadRequest, "invalid", userMessage(err, hosted.ErrInvalid))
	case errors.Is(err, hosted.ErrNotInstalled):
		return newError(http.StatusUnprocessableEntity, "not_installed", userMessage(err, hosted.ErrNotInstalled)+". Install it, or start paddock with it on PATH.")
	case errors.Is(err, hosted.ErrNotHosted):
		return newError(http.StatusConflict, "not_hosted", "This session does not run in a terminal paddock started, so paddock cannot type into it.")
	case errors.Is(err, decisions.ErrInvalid):
		return newError(http.StatusBadRequest, "invalid", userMessage(err, decisions.ErrInvalid))
	case errors.Is(err, decisions.ErrNotRecorded):
		return notRecorded(err)
	case errors.Is(err, decisions.ErrNotFound):
		return newError(http.StatusNotFound, "not_found", "No such approval or question (it may be older than a day).")
	case errors.Is(err, catalog.ErrUnsupported):
		return newError(http.StatusNotImplemented, "unsupported", "paddock cannot do that with this agent's history.")
	case errors.Is(err, session.ErrLive):
		return newError(http.StatusConflict, "session_live", "The session is running: stop its agent first.")
	case errors.Is(err, board.ErrBadCursor):
		return newError(http.StatusBadRequest, "bad_cursor", "cursor must be the next_cursor of an earlier page.")
	case errors.Is(err, hosted.ErrGone):
		return newError(http.StatusGone, "terminal_gone", "This session's terminal is gone: the agent exited or was killed.")
	}
	if code := echo.StatusCode(err); code != 0 {
		msg := http.StatusText(code)
		if code == http.StatusNotFound {
			msg = "There is nothing at this address."
		}
		return newError(code, strings.ToLower(strings.ReplaceAll(http.StatusText(code), " ", "_")), msg)
	}
	return &apiError{Status: http.StatusInternalServerError, Code: "internal", Msg: "Something went wrong inside paddock; the details are in its log.", Err: err}
}

// notRecorded is a decision paddock refused because it could not save it:
// 503, saying why, that nothing reached the agent, and what to do.
func notRecorded(err error) *apiError {
	why, hint := "its database did not take the write", "Answer again in a moment, or in the agent's own terminal."
	if we, ok := errors.AsType[*store.WriteError](err); ok {
		why = we.Reason
		if we.Full() {
			hint = "Free some disk space, then answer again, or answer in the agent's own terminal."
		}
	}
	return &apiError{Status: http.StatusServiceUnavailable, Code: "not_recorded", Err: err,
		Msg: "paddock could not save this answer: " + why + ". Nothing was sent: the agent still waits. " + hint}
}

// userMessage is err's text without the sentinel's own prefix, for errors
// whose wrapping message was written for the user.
func userMessage(err, sentinel error) string {
	msg := strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
	if msg == "" {
		return sentinel.Error()
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}

func wantsJSON(c *echo.Context) bool {
	p := c.Request().URL.Path
	return strings.HasPrefix(p, "/api/") || strings.Contains(c.Request().Header.Get("Accept"), "application/json")
}

// handleError is echo's HTTPErrorHandler: JSON for the API, an HTML page for
// browsers. err.Error() never reaches the client.
func (s *Server) handleError(c *echo.Context, err error) {
	if resp, uErr := echo.UnwrapResponse(c.Response()); uErr == nil && resp.Committed {
		return
	}
	ae := classify(err)
	if ae.Status >= 500 {
		s.log.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "error", err)
	}
	if wantsJSON(c) {
		_ = c.JSON(ae.Status, map[string]any{"error": map[string]string{"code": ae.Code, "message": ae.Msg}})
		return
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(ae.Status)
		return
	}
	title := http.StatusText(ae.Status)
	if c.Request().Header.Get("HX-Request") == "true" {
		_ = s.render(c, ae.Status, views.ErrorFragment(views.Error{Status: ae.Status, Title: title, Message: ae.Msg}))
		return
	}
	_ = s.render(c, ae.Status, views.ErrorPage(s.page(c, title), views.Error{Status: ae.Status, Title: title, Message: ae.Msg}))
}
