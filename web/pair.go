package web

import (
	"net/http"

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
		s.log.Warn("pairing rate limit hit", "ip", ip)
		return s.pairFailed(c, classify(auth.ErrRateLimited))
	}
	code := c.FormValue("code")
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
