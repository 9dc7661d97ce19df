package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v5"

	"paddock/internal/auth"
	"paddock/views"
)

const maxCodeLen = 128

// pairPage shows the pairing form. It does not consume the code: link
// previewers and prefetchers may GET it, so only the POST pairs.
func (s *Server) pairPage(c *echo.Context) error {
	if principalOf(c) != nil && !principalOf(c).bearer {
		return c.Redirect(http.StatusSeeOther, "/")
	}
	code := c.QueryParam("code")
	v := views.Pair{Code: code, HasCode: code != "" && len(code) <= maxCodeLen, CAURL: "/ca"}
	return s.render(c, http.StatusOK, views.PairPage(s.page(c, "Pair"), v))
}

// pairSubmit redeems a pairing code for a device session cookie.
func (s *Server) pairSubmit(c *echo.Context) error {
	ip := c.RealIP()
	if !s.opts.Auth.AllowPairAttempt(ip) {
		return s.pairFailed(c, classify(auth.ErrRateLimited))
	}
	code := postForm(c, "code")
	if code == "" || len(code) > maxCodeLen {
		return s.pairFailed(c, classify(auth.ErrInvalidCode))
	}
	token, _, err := s.opts.Auth.Pair(c.Request().Context(), code, c.Request().UserAgent(), ip)
	if err != nil {
		ae := classify(err)
		if ae.Status >= 500 {
			return err
		}
		s.log.Warn("pairing refused", "ip", ip, "reason", ae.Code)
		return s.pairFailed(c, ae)
	}
	setSessionCookie(c, token)
	return c.Redirect(http.StatusSeeOther, "/")
}

func (s *Server) pairFailed(c *echo.Context, ae *apiError) error {
	if wantsJSON(c) {
		return ae
	}
	v := views.Pair{Error: ae.Msg, CAURL: "/ca"}
	return s.render(c, ae.Status, views.PairPage(s.page(c, "Pair"), v))
}

// plainPair answers a pairing link opened over plain HTTP. Its code has
// crossed the network unencrypted, so it is burnt rather than forwarded,
// and the user is told to make a new one.
func (s *Server) plainPair(c *echo.Context) error {
	if code := c.QueryParam("code"); code != "" && len(code) <= maxCodeLen {
		if err := s.opts.Auth.Burn(c.Request().Context(), code); err != nil {
			return err
		}
	}
	v := views.Pair{Error: "This pairing link was opened without encryption (http://), so its code was cancelled. Run `paddock pair` on the computer and open the https:// link it prints.", CAURL: "/ca"}
	return s.render(c, http.StatusBadRequest, views.PairPage(s.page(c, "Pair"), v))
}

// burnPlainCredentials guards the plain-HTTP port: an API token or a
// device session seen there travelled unencrypted, so it is revoked on
// the spot (like a pairing code opened over http://) and the request is
// refused, never redirected to HTTPS with it.
func (s *Server) burnPlainCredentials(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		ctx := auth.WithActor(c.Request().Context(), "plain-http")
		burned := false
		if tok, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer "); ok {
			burned = true
			if t, err := s.opts.Auth.Token(ctx, strings.TrimSpace(tok)); err == nil {
				if err := s.opts.Auth.RevokeToken(ctx, t.ID); err != nil {
					return err
				}
				s.log.Warn("API token sent over plain HTTP: revoked", "token", t.ID, "name", t.Name, "ip", c.RealIP())
			}
		}
		if ck, err := c.Cookie(cookieName); err == nil && ck.Value != "" {
			burned = true
			if d, err := s.opts.Auth.Device(ctx, ck.Value); err == nil {
				if err := s.opts.Auth.RevokeDevice(ctx, d.ID); err != nil {
					return err
				}
				s.log.Warn("device session sent over plain HTTP: revoked", "device", d.ID, "ip", c.RealIP())
			}
		}
		if burned {
			return errPlainCredential
		}
		return next(c)
	}
}

var errPlainCredential = newError(http.StatusBadRequest, "credential_over_http",
	"A credential was sent without encryption (http://), so paddock revoked it: make a new one (paddock token create, or pair the device again) and use the https:// address.")

// logout forgets this device: the session is revoked server-side, not
// just the cookie dropped.
func (s *Server) logout(c *echo.Context) error {
	p := principalOf(c)
	if p != nil && !p.bearer {
		if err := s.opts.Auth.RevokeDevice(c.Request().Context(), p.DeviceID); err != nil {
			return err
		}
		s.log.Info("device signed out", "device", p.DeviceID)
	}
	clearSessionCookie(c)
	return c.Redirect(http.StatusSeeOther, "/pair")
}
