package web

import (
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v5"
	"github.com/skip2/go-qrcode"

	"paddock/internal/auth"
	"paddock/views"
)

// deviceViews are the paired devices not revoked, newest first.
func (s *Server) deviceViews(c *echo.Context) ([]views.DeviceView, error) {
	ds, err := s.opts.Auth.ListDevices(c.Request().Context())
	if err != nil {
		return nil, err
	}
	me := ""
	if p := principalOf(c); p != nil && !p.bearer {
		me = p.DeviceID
	}
	now := s.opts.Now()
	var out []views.DeviceView
	for _, d := range ds {
		if d.Revoked() {
			continue
		}
		out = append(out, views.DeviceView{ID: d.ID, Name: d.Name, This: d.ID == me,
			Created: relTime(now, d.CreatedAt), CreatedISO: isoTime(d.CreatedAt),
			LastSeen: relTime(now, d.LastSeenAt), LastSeenISO: isoTime(d.LastSeenAt)})
	}
	return out, nil
}

// devicesAnswer is the devices section again, saying what happened.
func (s *Server) devicesAnswer(c *echo.Context, note string) error {
	ds, err := s.deviceViews(c)
	if err != nil {
		return err
	}
	return s.render(c, http.StatusOK, views.DevicesSection(views.Settings{Devices: ds, DevicesNote: note}))
}

// renameDevice is the settings page's Rename.
func (s *Server) renameDevice(c *echo.Context) error {
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return newError(http.StatusBadRequest, "bad_form", "The form could not be read.")
	}
	switch err := s.opts.Auth.RenameDevice(r.Context(), c.Param("id"), r.PostForm.Get("name")); {
	case errors.Is(err, auth.ErrBadName):
		return s.devicesAnswer(c, "Not renamed: a name is 1 to 60 characters on one line.")
	case errors.Is(err, auth.ErrNotFound):
		return s.devicesAnswer(c, "Not renamed: that device is no longer paired.")
	case err != nil:
		return err
	}
	return s.devicesAnswer(c, "Renamed.")
}

// revokeDevice is the settings page's Revoke: that device is signed out at
// once (its open pages lose their live feed within a ping period). A
// device revoking itself is sent to pairing.
func (s *Server) revokeDevice(c *echo.Context) error {
	id := c.Param("id")
	switch err := s.opts.Auth.RevokeDevice(c.Request().Context(), id); {
	case errors.Is(err, auth.ErrNotFound):
		return s.devicesAnswer(c, "That device is no longer paired.")
	case err != nil:
		return err
	}
	if p := principalOf(c); p != nil && p.DeviceID == id {
		c.Response().Header().Set("HX-Redirect", "/pair")
		return c.NoContent(http.StatusOK)
	}
	return s.devicesAnswer(c, "Revoked: that device is signed out.")
}

// pairOffer is the settings page's "Pair another device": a new one-time
// pairing link and its QR code, for the phone to scan off this screen.
// The link names an address the phone can reach: the one this page was
// opened at, unless that is this machine's own (localhost), then the
// dashboard's best other address.
func (s *Server) pairOffer(c *echo.Context) error {
	ctx := c.Request().Context()
	code, expires, err := s.opts.Auth.NewPairingCode(ctx)
	if err != nil {
		return err
	}
	base := s.httpsURL(c.Request().Host)
	if isLoopbackHost(hostName(c.Request().Host)) && s.opts.DashboardURLs != nil {
		for _, u := range s.opts.DashboardURLs() {
			if h, err := url.Parse(u); err == nil && !isLoopbackHost(h.Hostname()) {
				base = strings.TrimSuffix(u, "/")
				break
			}
		}
	}
	link := base + "/pair?code=" + url.QueryEscape(code)
	png, err := qrcode.Encode(link, qrcode.Medium, 320)
	if err != nil {
		return err
	}
	if s.opts.Audit != nil {
		if err := s.opts.Audit.Audit(ctx, s.opts.Now(), by(c), "pairing_code.offer", "expires="+expires.UTC().Format(time.RFC3339)); err != nil {
			s.log.Warn("pairing link offered but not audited", "error", err)
		}
	}
	// The link is a credential: never cached, never logged.
	c.Response().Header().Set("Cache-Control", "no-store")
	return s.render(c, http.StatusOK, views.PairOffer(views.PairLink{Link: link, QR: "data:image/png;base64," + base64.StdEncoding.EncodeToString(png),
		Expires: "in " + durationWords(max(expires.Sub(s.opts.Now()).Round(time.Minute), time.Minute)), ExpiresISO: isoTime(expires)}))
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
