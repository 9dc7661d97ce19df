package web

import (
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/auth"
)

const (
	cookieName   = "__Host-paddock"
	principalKey = "paddock.principal"
	csrfHeader   = "X-CSRF-Token"
	csrfField    = "csrf"
)

// contentSecurityPolicy allows only paddock's own scripts, styles and
// images (and data: images) and no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

// principal is who a request acts for: a paired device (cookie) or a script
// holding an API token (bearer). Only cookie sessions need CSRF tokens,
// because only cookies are sent by a browser on its own.
type principal struct {
	DeviceID    string
	DeviceName  string
	Theme       string // the device's chosen theme; "" follows its system
	cookieToken string // the raw session token, kept only to derive the CSRF token
	bearer      bool
	bearerToken string // kept only to re-check a long-lived websocket
}

func principalOf(c *echo.Context) *principal {
	p, _ := c.Get(principalKey).(*principal)
	return p
}

// logRequests logs one line per request. It logs the path only: query
// strings can carry pairing codes, and headers carry tokens.
func (s *Server) logRequests(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		start := time.Now()
		err := next(c)
		status := http.StatusOK
		if resp, uErr := echo.UnwrapResponse(c.Response()); uErr == nil && resp.Status != 0 {
			status = resp.Status
		}
		if err != nil {
			status = classify(err).Status
		}
		s.log.Debug("http", "method", c.Request().Method, "path", c.Request().URL.Path,
			"status", status, "ms", time.Since(start).Milliseconds(), "ip", c.RealIP())
		return err
	}
}

// maxBody bounds every request body: nothing paddock accepts is large, and
// an unbounded body from an unpaired client could fill memory or disk.
const maxBody = 64 << 10

// limitBody caps request bodies and refuses multipart ones outright: a
// multipart parser spills to temp files, which an unpaired client must not
// be able to create.
func limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r := c.Request()
		if strings.HasPrefix(strings.ToLower(r.Header.Get("Content-Type")), "multipart/") {
			return newError(http.StatusUnsupportedMediaType, "unsupported_media_type", "Send forms as application/x-www-form-urlencoded or JSON.")
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(c.Response(), r.Body, maxBody)
		}
		return next(c)
	}
}

// postForm reads a field of an urlencoded request body only (never the
// query string: a secret or token in a URL ends up in logs and history).
func postForm(c *echo.Context, name string) string {
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return ""
	}
	return r.PostForm.Get(name)
}

// recoverPanics turns a handler panic into the generic 500 answer and logs
// it, instead of dropping the connection silently.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) (err error) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p) // a response cut short on purpose: the connection drops
				}
				s.log.Error("handler panic", "path", c.Request().URL.Path, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				err = &apiError{Status: http.StatusInternalServerError, Code: "internal", Msg: "Something went wrong inside paddock; the details are in its log.", Err: fmt.Errorf("panic: %v", p)}
			}
		}()
		return next(c)
	}
}

// securityHeaders applies a strict content security policy (no inline
// scripts or styles, no framing) and keeps pairing links out of referrers.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if c.Request().TLS != nil {
			h.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if strings.HasPrefix(c.Request().URL.Path, "/api/") {
			h.Set("Cache-Control", "no-store")
		}
		return next(c)
	}
}

// hostName returns the lower-case host part of a Host header value.
func hostName(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return strings.ToLower(h)
}

func (s *Server) hostAllowed(hostport string) bool {
	h := hostName(hostport)
	if h == "" {
		return false
	}
	for _, a := range s.opts.AllowedHosts() {
		a = strings.ToLower(strings.TrimSuffix(a, "."))
		if a == h {
			return true
		}
		// A user-supplied certificate may name *.example.ts.net: it covers
		// exactly one more label, as in TLS.
		if rest, ok := strings.CutPrefix(a, "*."); ok {
			if label, parent, found := strings.Cut(h, "."); found && label != "" && parent == rest {
				return true
			}
		}
	}
	return false
}

// checkHost refuses requests whose Host is not one of ours: a page on
// another site that resolves its own name to 127.0.0.1 (DNS rebinding)
// cannot talk to paddock.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if !s.hostAllowed(c.Request().Host) {
			s.log.Debug("refused request for a foreign host", "host", hostName(c.Request().Host), "ip", c.RealIP())
			return errBadHost
		}
		return next(c)
	}
}

// identify resolves the device session cookie or bearer token, if any. It
// never rejects; requireAuth does.
func (s *Server) identify(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		ctx := auth.WithClientIP(c.Request().Context(), c.RealIP())
		c.SetRequest(c.Request().WithContext(ctx))
		// Only Bearer tokens are ours; any other scheme is as good as none.
		if tok, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer "); ok {
			t, err := s.opts.Auth.Token(ctx, strings.TrimSpace(tok))
			if err != nil {
				return errUnauthenticated
			}
			c.Set(principalKey, &principal{DeviceID: "token:" + t.ID, DeviceName: t.Name, bearer: true, bearerToken: strings.TrimSpace(tok)})
			c.SetRequest(c.Request().WithContext(auth.WithActor(ctx, "token:"+t.ID)))
			return next(c)
		}
		if ck, err := c.Cookie(cookieName); err == nil && ck.Value != "" {
			if d, err := s.opts.Auth.Device(ctx, ck.Value); err == nil {
				c.Set(principalKey, &principal{DeviceID: d.ID, DeviceName: d.Name, Theme: d.Theme, cookieToken: ck.Value})
				c.SetRequest(c.Request().WithContext(auth.WithActor(ctx, "device:"+d.ID)))
			} else {
				// A revoked or unknown cookie is dropped so the browser
				// stops sending it.
				clearSessionCookie(c)
			}
		}
		return next(c)
	}
}

// requireAuth lets only paired devices and token holders through: pages
// redirect to the pairing page, the API answers 401.
func requireAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		if principalOf(c) != nil {
			return next(c)
		}
		if wantsJSON(c) || c.IsWebSocket() || c.Path() == "/ws" || c.Request().Method != http.MethodGet {
			return errUnauthenticated
		}
		return c.Redirect(http.StatusSeeOther, "/pair")
	}
}

var crossOrigin = http.NewCrossOriginProtection()

// checkCSRF guards every state-changing request: the browser must say it
// is same-origin (Sec-Fetch-Site/Origin), and cookie sessions must also
// present the per-session token. Bearer tokens are not sent by browsers on
// their own, so they need only the first check.
func (s *Server) checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) error {
		r := c.Request()
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		if err := crossOrigin.Check(r); err != nil {
			return errCSRF
		}
		p := principalOf(c)
		if p == nil || p.bearer {
			return next(c)
		}
		got := r.Header.Get(csrfHeader)
		if got == "" {
			got = postForm(c, csrfField)
		}
		if !auth.CheckCSRF(got, p.cookieToken, s.opts.CSRFKey) {
			return errCSRF
		}
		return next(c)
	}
}

func (s *Server) csrfToken(c *echo.Context) string {
	p := principalOf(c)
	if p == nil || p.bearer {
		return ""
	}
	return auth.CSRFToken(p.cookieToken, s.opts.CSRFKey)
}

func setSessionCookie(c *echo.Context, token string) {
	c.SetCookie(&http.Cookie{
		Name:     cookieName,
		Value:    token,
		Path:     "/",
		MaxAge:   400 * 24 * 3600, // the longest browsers keep a cookie
		Secure:   true,
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	})
}

func clearSessionCookie(c *echo.Context) {
	c.SetCookie(&http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, Secure: true, HttpOnly: true, SameSite: http.SameSiteLaxMode})
}
