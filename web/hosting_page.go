package web

import (
	"errors"
	"net/http"
	"slices"

	"github.com/labstack/echo/v5"

	"paddock/internal/board"
	"paddock/internal/hookstate"
	"paddock/internal/hosted"
	"paddock/views"
)

// recentDirs are the newest distinct project directories, for the form.
func (s *Server) recentDirs(n int) []string {
	var out []string
	for _, e := range s.opts.Board.List(board.Filter{}) {
		if d := e.Info.Cwd; d != "" && !slices.Contains(out, d) {
			out = append(out, d)
			if len(out) == n {
				break
			}
		}
	}
	return out
}

func (s *Server) newSessionForm(c *echo.Context, f views.NewSession, status int) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	for _, name := range s.opts.Hosting.Installed() {
		a, _ := s.opts.Agents.Get(name)
		f.Agents = append(f.Agents, views.AgentChoice{Name: name, Label: s.opts.Agents.Label(name), Modes: a.Launch.Modes, Efforts: a.Launch.Efforts})
	}
	f.RecentDirs = s.recentDirs(20)
	if f.Workdir == "" && len(f.RecentDirs) > 0 {
		f.Workdir = f.RecentDirs[0]
	}
	if f.Error == "" && len(f.Agents) == 0 {
		f.Error = "No agent CLI is on paddock's PATH: install one (claude, codex, opencode, pi, kimi, cursor-agent) and restart paddock."
	}
	return s.render(c, status, views.NewSessionPage(s.page(c, "New session"), f))
}

// newSessionPage is GET /new.
func (s *Server) newSessionPage(c *echo.Context) error {
	return s.newSessionForm(c, views.NewSession{Runtime: c.QueryParam("runtime"), Workdir: c.QueryParam("workdir"),
		Parent: c.QueryParam("parent")}, http.StatusOK)
}

// newSessionSubmit is POST /new: start the agent and open its page, or
// show the form again with what went wrong.
func (s *Server) newSessionSubmit(c *echo.Context) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	req := hosted.Request{Runtime: r.PostForm.Get("runtime"), Workdir: r.PostForm.Get("workdir"), Prompt: r.PostForm.Get("prompt"),
		PermissionMode: r.PostForm.Get("permission_mode"), Model: r.PostForm.Get("model"), Effort: r.PostForm.Get("effort"),
		Name: r.PostForm.Get("name"), Parent: r.PostForm.Get("parent")}
	out, err := s.opts.Hosting.Create(r.Context(), req)
	if err != nil {
		ae := classify(err)
		if ae.Status >= 500 {
			return err
		}
		return s.newSessionForm(c, views.NewSession{Runtime: req.Runtime, Workdir: req.Workdir, Prompt: req.Prompt,
			PermissionMode: req.PermissionMode, Model: req.Model, Effort: req.Effort, Name: req.Name, Parent: req.Parent,
			Error: ae.Msg}, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, sessionURL(out.Key))
}

// sendFromPage is the session page's message box (htmx): it answers with
// what became of the message.
func (s *Server) sendFromPage(c *echo.Context) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	card, err := s.liveCard(c)
	if err != nil {
		return s.result(c, err)
	}
	text := postForm(c, "text")
	d, err := s.opts.Hosting.Send(c.Request().Context(), card, text)
	if err != nil {
		return s.result(c, err)
	}
	switch {
	case d.Delivered:
		return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: "Delivered."}))
	case d.Queued:
		return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: "Typed while the agent works: it takes the message when its turn ends."}))
	}
	return s.render(c, http.StatusOK, views.SendResult(views.Result{Text: "Not delivered: " + d.Reason + ".", Screen: d.Screen}))
}

// controlFromPage is the session page's Ctrl-C, Esc, Kill, Restart, Sleep,
// Resume and Reconnect.
func (s *Server) controlFromPage(c *echo.Context) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	ctx := c.Request().Context()
	switch action := c.Param("action"); action {
	case "resume", "reconnect":
		out, err := s.relaunch(c, action)
		if err != nil {
			return s.result(c, err)
		}
		// The page becomes the running session's, with its controls.
		c.Response().Header().Set("HX-Location", sessionURL(out.Key))
		text := "Resumed."
		if out.Fresh {
			text = "The agent could not resume that conversation; a new one started on this card."
		}
		return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: text}))
	}
	card, err := s.liveCard(c)
	if err != nil {
		return s.result(c, err)
	}
	var done string
	switch c.Param("action") {
	case "interrupt":
		err, done = s.opts.Hosting.Keys(ctx, card, "C-c"), "Sent Ctrl-C."
	case "escape":
		err, done = s.opts.Hosting.Keys(ctx, card, "Escape"), "Sent Esc."
	case "kill":
		err, done = s.opts.Hosting.Kill(ctx, card), "Killed."
	case "restart":
		var out hosted.Created
		if out, err = s.opts.Hosting.Restart(ctx, card); err == nil {
			c.Response().Header().Set("HX-Location", sessionURL(out.Key))
			done = "Restarted."
		}
	case "sleep":
		var out hosted.Slept
		if out, err = s.opts.Hosting.Sleep(ctx, card); err == nil {
			done = "Asleep: its terminal is closed"
			if out.Freed > 0 {
				done += ", " + humanBytes(out.Freed) + " freed"
			}
			done += ". Resume brings it back."
		}
	default:
		return newError(http.StatusNotFound, "unknown_action", "Actions are interrupt, escape, kill, restart, sleep, resume and reconnect.")
	}
	if err != nil {
		return s.result(c, err)
	}
	s.log.Info("session control", "session", card.Key.String(), "action", c.Param("action"))
	return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: done}))
}

// result shows an error as the fragment htmx swaps in (200, so htmx swaps
// it: the message is the answer), except errors of paddock itself.
func (s *Server) result(c *echo.Context, err error) error {
	ae := classify(err)
	if ae.Status >= 500 && !errors.Is(err, hosted.ErrGone) {
		return err
	}
	return s.render(c, http.StatusOK, views.SendResult(views.Result{Text: ae.Msg}))
}

// hostedLive reports whether a card is a running hosted session.
func hostedLive(st hookstate.State, terminalID string) bool {
	return terminalID != "" && !st.Over()
}

// keyFromPage is one key of the terminal view's key bar.
func (s *Server) keyFromPage(c *echo.Context) error {
	if s.opts.Hosting == nil {
		return errNoHosting
	}
	card, err := s.liveCard(c)
	if err != nil {
		return s.result(c, err)
	}
	if err := s.opts.Hosting.Keys(c.Request().Context(), card, c.Param("key")); err != nil {
		return s.result(c, err)
	}
	return s.render(c, http.StatusOK, views.SendResult(views.Result{OK: true, Text: "Sent " + c.Param("key") + "."}))
}
