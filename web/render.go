package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v5"

	"paddock/internal/markdown"
	"paddock/internal/session"
	"paddock/static"
	"paddock/views"
)

const pageSize = 50

// chromaAsset serves the code-highlighting stylesheet under a content hash
// like the embedded assets.
func chromaAsset(md *markdown.Renderer) *static.Asset {
	body := []byte(md.CSS())
	sum := sha256.Sum256(body)
	return &static.Asset{
		Name:        "chroma.css",
		URL:         "/static/" + hex.EncodeToString(sum[:6]) + "/chroma.css",
		ContentType: "text/css; charset=utf-8",
		Body:        body,
	}
}

func (s *Server) page(c *echo.Context, title string) views.Page {
	return views.Page{
		Title: title,
		Assets: views.Assets{
			CSS:       s.assets.URL("app.css"),
			ChromaCSS: s.chroma.URL,
			AppJS:     s.assets.URL("app.js"),
			HTMX:      s.assets.URL("vendor/htmx-2.0.11.min.js"),
			HTMXWS:    s.assets.URL("vendor/htmx-ext-ws-2.0.4.min.js"),
			Icon:      s.assets.URL("icon.svg"),
			Manifest:  s.assets.URL("manifest.webmanifest"),
		},
		CSRF: s.csrfToken(c),
	}
}

func (s *Server) render(c *echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(status, buf.Bytes())
}

func renderBytes(ctx context.Context, comp templ.Component) ([]byte, error) {
	var buf bytes.Buffer
	err := comp.Render(ctx, &buf)
	return buf.Bytes(), err
}

func sessionURL(k session.Key) string {
	return "/s/" + url.PathEscape(k.Runtime) + "/" + url.PathEscape(k.ID)
}

func domID(k session.Key) string {
	var b strings.Builder
	b.WriteString("card-")
	for _, r := range k.Runtime + "-" + k.ID {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// stateOf turns what the agent's files say into the board's vocabulary.
func stateOf(in session.Info) (class, label string) {
	if !in.Live {
		return "ended", "ended"
	}
	switch in.State {
	case "busy":
		return "working", "working"
	case "waiting":
		if strings.Contains(in.WaitingFor, "permission") {
			return "approval", "needs approval"
		}
		if in.WaitingFor != "" {
			return "input", "needs input"
		}
		return "waiting", "waiting"
	case "idle":
		return "idle", "idle"
	}
	return "idle", "live"
}

func relTime(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < 45*time.Second:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Round(time.Minute)/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Round(time.Hour)/time.Hour))
	case d < 60*24*time.Hour:
		return fmt.Sprintf("%d d ago", int(d/(24*time.Hour)))
	}
	return t.Format("2 Jan 2006")
}

func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func (s *Server) card(in session.Info) views.Card {
	class, label := stateOf(in)
	title := in.Title
	if title == "" {
		title = "(untitled session)"
	}
	return views.Card{
		DOMID:       domID(in.Key()),
		URL:         sessionURL(in.Key()),
		Runtime:     in.Runtime,
		Project:     in.Project,
		Cwd:         in.Cwd,
		Title:       title,
		Prompt:      in.LastPrompt,
		UpdatedISO:  isoTime(in.Updated),
		UpdatedText: relTime(s.opts.Now(), in.Updated),
		Live:        in.Live,
		State:       class,
		StateLabel:  label,
	}
}

func (s *Server) board() views.Board {
	if !s.opts.Sessions.Loaded() {
		return views.Board{}
	}
	list := s.opts.Sessions.List(catalogAll)
	b := views.Board{Loaded: true, Cards: make([]views.Card, 0, len(list))}
	for _, in := range list {
		b.Cards = append(b.Cards, s.card(in))
	}
	return b
}

func (s *Server) message(m session.Message) views.Message {
	v := views.Message{Role: m.Role, TimeISO: isoTime(m.Time), TimeText: relTime(s.opts.Now(), m.Time)}
	if m.Role == session.RoleAssistant {
		v.HTML = s.opts.Markdown.Render(m.Text)
	} else {
		v.Text = m.Text
	}
	return v
}

// conversationPage renders messages[from:to] with a link to the page before.
func (s *Server) conversationPage(k session.Key, msgs []session.Message, to int) views.Conversation {
	to = min(max(to, 0), len(msgs))
	from := max(to-pageSize, 0)
	c := views.Conversation{Messages: make([]views.Message, 0, to-from)}
	for _, m := range msgs[from:to] {
		c.Messages = append(c.Messages, s.message(m))
	}
	if from > 0 {
		c.OlderURL = fmt.Sprintf("%s/messages?before=%d", sessionURL(k), from)
	}
	return c
}

func (s *Server) sessionView(in session.Info, msgs []session.Message) views.Session {
	return views.Session{
		Card:         s.card(in),
		Model:        in.Model,
		Conversation: s.conversationPage(in.Key(), msgs, len(msgs)),
		Total:        len(msgs),
	}
}
