package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/store"
	"paddock/views"
)

// AuditReader reads the audit log — every decision from the phone, every
// pairing, revocation, token and deleted session — and adds to it (the
// store).
type AuditReader interface {
	AuditLog(ctx context.Context, limit int) ([]store.AuditEntry, error)
	LatestAudit(ctx context.Context, action, prefix string) (store.AuditEntry, bool, error)
	AuditOf(ctx context.Context, action string, limit int) ([]store.AuditEntry, error)
	Audit(ctx context.Context, at time.Time, actor, action, detail string) error
}

// auditLimit is how many entries the page and the API show.
const auditLimit = 500

// actorNames maps "device:<id>" and "token:<id>" to the names the user
// gave them.
func (s *Server) actorNames(ctx context.Context) map[string]string {
	names := map[string]string{}
	if devs, err := s.opts.Auth.ListDevices(ctx); err == nil {
		for _, d := range devs {
			names["device:"+d.ID] = d.Name
		}
	}
	if toks, err := s.opts.Auth.ListTokens(ctx); err == nil {
		for _, t := range toks {
			names["token:"+t.ID] = "token " + t.Name
		}
	}
	return names
}

func (s *Server) auditEntries(ctx context.Context, limit int) ([]views.AuditEntry, error) {
	if s.opts.Audit == nil {
		return nil, newError(http.StatusNotImplemented, "audit_unavailable", "This paddock keeps no audit log.")
	}
	entries, err := s.opts.Audit.AuditLog(ctx, limit)
	if err != nil {
		return nil, err
	}
	names := s.actorNames(ctx)
	out := make([]views.AuditEntry, 0, len(entries))
	for _, e := range entries {
		who := e.Actor
		if n, ok := names[e.Actor]; ok && n != "" {
			who = n + " (" + e.Actor + ")"
		}
		out = append(out, views.AuditEntry{AtISO: isoTime(e.At), AtText: relTime(s.opts.Now(), e.At), Who: who,
			Action: e.Action, Detail: e.Detail, Decision: strings.HasPrefix(e.Action, "approval.") ||
				strings.HasPrefix(e.Action, "question.") || strings.HasPrefix(e.Action, "plan.")})
	}
	return out, nil
}

// auditPage is GET /audit: who decided what, from which device, when.
func (s *Server) auditPage(c *echo.Context) error {
	entries, err := s.auditEntries(c.Request().Context(), auditLimit)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.AuditPage(s.page(c, "Audit log"), entries))
}

// apiAudit is GET /api/v1/audit?limit=N.
func (s *Server) apiAudit(c *echo.Context) error {
	limit, err := intParam(c, "limit", 100, 1, auditLimit)
	if err != nil {
		return err
	}
	entries, err := s.auditEntries(c.Request().Context(), limit)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"entries": entries})
}
