// Package web is paddock's HTTP face: routes, middleware, handlers (one file
// per feature), and the websocket hub that pushes live board updates. It is
// the only package that imports echo or gorilla/websocket; below it, domain
// packages never see an HTTP type.
package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/agent"
	"paddock/internal/auth"
	"paddock/internal/markdown"
	"paddock/static"
)

// CA is what the certificate page needs from the certificate manager.
type CA interface {
	CAPEM() []byte
	CAFingerprint() string
}

// Options wires the server to its collaborators.
type Options struct {
	// Agents are the agents paddock knows: their names and UI notes.
	Agents  *agent.Registry
	Board   Board
	Hosting Hosting // nil: paddock cannot start agents (no tmux)
	// Approvals are the prompts and questions answered from the phone;
	// nil: none are.
	Approvals Approvals
	// Push sends Web Push notifications; nil: none are offered.
	Push Push
	// Settings are the machine's settings the phone may change; nil: the
	// settings page offers none.
	Settings Settings
	// Hooks installs the agents' hooks from the settings page; nil: the
	// page does not offer it.
	Hooks Hooks
	// DashboardURLs are the addresses a phone can reach the dashboard at,
	// the best first (a LAN address before localhost), for pairing links
	// made from a page opened on this machine.
	DashboardURLs func() []string
	// Search is the index of every conversation; nil: no search inside
	// them (the search page says so).
	Search Search
	// Usage is what the sessions used and cost; nil: no usage page, no
	// context bars.
	Usage Usage
	// Audit reads the audit log; nil: no audit page.
	Audit AuditReader
	// Store says whether paddock's database takes writes; nil: it is
	// taken to.
	Store   StoreHealth
	Auth    *auth.Service
	CSRFKey []byte
	CA      CA
	// AllowedHosts returns the host names and addresses this server answers
	// to (the certificate's SANs plus configured names). Requests for any
	// other Host are refused, which defeats DNS rebinding.
	AllowedHosts func() []string
	// HTTPSPort is where the plain-HTTP listener redirects to.
	HTTPSPort int
	Logger    *slog.Logger
	Markdown  *markdown.Renderer
	Version   string
	Now       func() time.Time
}

// Server holds the handlers' shared dependencies.
type Server struct {
	opts    Options
	log     *slog.Logger
	assets  *static.Assets
	chroma  *static.Asset
	hub     *hub
	started time.Time
	https   *echo.Echo
	plain   *echo.Echo
	// handoffs is where each session's work was last handed off to,
	// for the board's cards.
	handoffs handoffMarks
}

// New builds both handlers. Run must be called for live updates.
func New(opts Options) (*Server, error) {
	if opts.Agents == nil || opts.Board == nil || opts.Auth == nil || opts.AllowedHosts == nil {
		return nil, errors.New("web: Agents, Board, Auth and AllowedHosts are required")
	}
	if len(opts.CSRFKey) < 32 {
		return nil, errors.New("web: CSRF key must be at least 32 bytes")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Markdown == nil {
		opts.Markdown = markdown.New()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	assets, err := static.Load()
	if err != nil {
		return nil, err
	}
	s := &Server{
		opts:    opts,
		log:     opts.Logger,
		assets:  assets,
		chroma:  chromaAsset(opts.Markdown),
		started: opts.Now(),
	}
	s.hub = newHub(s)
	s.https = s.newHTTPS()
	s.plain = s.newPlain()
	return s, nil
}

// Handler serves the dashboard (behind TLS).
func (s *Server) Handler() http.Handler { return s.https }

// PlainHandler serves the plain-HTTP port: the CA page and downloads, and a
// redirect to HTTPS for everything else.
func (s *Server) PlainHandler() http.Handler { return s.plain }

// Run pushes catalog changes to connected browsers until ctx is done, then
// disconnects them.
func (s *Server) Run(ctx context.Context) error { return s.hub.run(ctx) }
