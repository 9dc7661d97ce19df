package web

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/hosted"
	"paddock/internal/live"
)

// Hosting is what the web layer needs to start and drive agents in
// paddock's tmux (internal/hosted).
type Hosting interface {
	Create(ctx context.Context, r hosted.Request) (hosted.Created, error)
	Send(ctx context.Context, c live.Card, text string) (hosted.Delivery, error)
	Keys(ctx context.Context, c live.Card, keys ...string) error
	Screen(ctx context.Context, c live.Card, scrollBack int) (string, error)
	Kill(ctx context.Context, c live.Card) error
	Installed() []string
	Resume(ctx context.Context, r hosted.Resumable) (hosted.Created, error)
	Reconnect(ctx context.Context, r hosted.Resumable) (hosted.Created, error)
	Restart(ctx context.Context, c live.Card) (hosted.Created, error)
	Sleep(ctx context.Context, c live.Card) (hosted.Slept, error)
	Health(ctx context.Context, c live.Card, now time.Time) (hosted.Health, error)
}

var errNoHosting = newError(http.StatusNotImplemented, "hosting_unavailable", "This paddock cannot start agents: tmux is not available to it.")

// decodeJSON reads a JSON request body strictly: unknown fields and
// trailing data are errors the caller is told about.
func decodeJSON(c *echo.Context, v any) error {
	if ct := c.Request().Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return newError(http.StatusUnsupportedMediaType, "want_json", "Send the request body as application/json.")
	}
	d := json.NewDecoder(c.Request().Body)
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			return newError(http.StatusRequestEntityTooLarge, "too_large", "The request is larger than paddock takes (64 KB); put long text in a file the agent can read.")
		}
		return newError(http.StatusBadRequest, "bad_json", "The request body is not the JSON this call takes: "+err.Error())
	}
	if d.More() {
		return newError(http.StatusBadRequest, "bad_json", "The request body holds more than one JSON value.")
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return newError(http.StatusBadRequest, "bad_json", "The request body has trailing data.")
	}
	return nil
}

// hostedLiveCard is liveCard when this paddock can host sessions at all.
func (s *Server) hostedLiveCard(c *echo.Context) (live.Card, error) {
	if s.opts.Hosting == nil {
		return live.Card{}, errNoHosting
	}
	return s.liveCard(c)
}

// liveCard is the live card of the session in the path; a session with no
// card is not hosted.
func (s *Server) liveCard(c *echo.Context) (live.Card, error) {
	k, err := sessionKey(c)
	if err != nil {
		return live.Card{}, err
	}
	card, ok := s.opts.Board.Card(k)
	if !ok {
		if _, err := s.opts.Board.Get(c.Request().Context(), k); err != nil {
			return live.Card{}, err
		}
		return live.Card{}, hosted.ErrNotHosted
	}
	return card, nil
}

// apiCreateSession starts an agent in a new hosted terminal (POST
// /api/v1/sessions), sending the first prompt when there is one.
func (s *Server) apiCreateSession(c *echo.Context) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	var req hosted.Request
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	out, err := s.opts.Hosting.Create(c.Request().Context(), req)
	if err != nil {
		return err
	}
	resp := map[string]any{"key": out.Key.String(), "runtime": out.Key.Runtime, "id": out.Key.ID,
		"url": sessionURL(out.Key), "terminal_id": out.TerminalID, "reused": out.Reused}
	if out.Prompt != nil {
		resp["prompt"] = out.Prompt
	}
	status := http.StatusCreated
	if out.Reused {
		status = http.StatusOK // nothing was created: an idle session took the prompt
	}
	return c.JSON(status, resp)
}

// apiSendMessage types a message into a hosted session and says whether it
// arrived.
func (s *Server) apiSendMessage(c *echo.Context) error {
	card, err := s.hostedLiveCard(c)
	if err != nil {
		return err
	}
	var req struct {
		Text string `json:"text"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	d, err := s.opts.Hosting.Send(c.Request().Context(), card, req.Text)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

// apiControl is interrupt (Ctrl-C), escape, kill, restart and sleep.
func (s *Server) apiControl(c *echo.Context) error {
	card, err := s.hostedLiveCard(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	resp := map[string]any{"ok": true}
	switch action := c.Param("action"); action {
	case "interrupt":
		err = s.opts.Hosting.Keys(ctx, card, "C-c")
	case "escape":
		err = s.opts.Hosting.Keys(ctx, card, "Escape")
	case "kill":
		err = s.opts.Hosting.Kill(ctx, card)
	case "restart":
		var out hosted.Created
		if out, err = s.opts.Hosting.Restart(ctx, card); err == nil {
			resp = createdJSON(out)
		}
	case "sleep":
		var out hosted.Slept
		if out, err = s.opts.Hosting.Sleep(ctx, card); err == nil {
			resp["freed_bytes"] = out.Freed
		}
	default:
		return newError(http.StatusNotFound, "unknown_action", "Actions are interrupt, escape, kill, restart, sleep, resume, reconnect, message, keys and screen.")
	}
	if err != nil {
		return err
	}
	s.log.Info("session control", "session", card.Key.String(), "action", c.Param("action"))
	return c.JSON(http.StatusOK, resp)
}

// createdJSON is the answer to a resume, reconnect or restart.
func createdJSON(out hosted.Created) map[string]any {
	return map[string]any{"key": out.Key.String(), "url": sessionURL(out.Key), "terminal_id": out.TerminalID, "fresh": out.Fresh}
}

// apiKeys presses named keys (the phone's key bar: Esc, Tab, Ctrl-C,
// arrows, Enter, 1-4).
func (s *Server) apiKeys(c *echo.Context) error {
	card, err := s.hostedLiveCard(c)
	if err != nil {
		return err
	}
	var req struct {
		Keys []string `json:"keys"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	if len(req.Keys) == 0 {
		return newError(http.StatusBadRequest, "invalid", "Name at least one key.")
	}
	if err := s.opts.Hosting.Keys(c.Request().Context(), card, req.Keys...); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"ok": true})
}

// apiScreen is the hosted terminal's text.
func (s *Server) apiScreen(c *echo.Context) error {
	card, err := s.hostedLiveCard(c)
	if err != nil {
		return err
	}
	back, err := intParam(c, "scrollback", 0, 0, 10000)
	if err != nil {
		return err
	}
	text, err := s.opts.Hosting.Screen(c.Request().Context(), card, back)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"key": card.Key.String(), "screen": text})
}

// resumable describes the session in the path for Resume: from its
// history, and its live card when it has one.
func (s *Server) resumable(c *echo.Context) (hosted.Resumable, error) {
	k, err := sessionKey(c)
	if err != nil {
		return hosted.Resumable{}, err
	}
	e, err := s.opts.Board.Get(c.Request().Context(), k)
	if err != nil {
		return hosted.Resumable{}, err
	}
	r := hosted.Resumable{Key: k, Cwd: e.Info.Cwd, Transcript: e.Info.Path}
	if e.Card != nil {
		r.Card = *e.Card
		if r.Cwd == "" {
			r.Cwd = e.Card.Cwd
		}
		if r.Transcript == "" {
			r.Transcript = e.Card.Transcript
		}
	}
	return r, nil
}

// apiResume brings an ended session back in a new hosted terminal.
func (s *Server) apiResume(c *echo.Context) error { return s.apiRelaunch(c, "resume") }

// apiReconnect opens a new terminal for an ended session paddock started,
// from its saved launch.
func (s *Server) apiReconnect(c *echo.Context) error { return s.apiRelaunch(c, "reconnect") }

func (s *Server) apiRelaunch(c *echo.Context, how string) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	out, err := s.relaunch(c, how)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, createdJSON(out))
}

// relaunch is Resume or Reconnect of the session in the path.
func (s *Server) relaunch(c *echo.Context, how string) (hosted.Created, error) {
	r, err := s.resumable(c)
	if err != nil {
		return hosted.Created{}, err
	}
	ctx := c.Request().Context()
	var out hosted.Created
	if how == "reconnect" {
		out, err = s.opts.Hosting.Reconnect(ctx, r)
	} else {
		out, err = s.opts.Hosting.Resume(ctx, r)
	}
	if err != nil {
		return out, err
	}
	done := map[string]string{"reconnect": "session reconnected", "resume": "session resumed"}[how]
	s.log.Info(done, "session", r.Key.String(), "terminal", out.TerminalID, "fresh", out.Fresh)
	return out, nil
}
