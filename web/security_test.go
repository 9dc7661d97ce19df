package web

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// publicRoutes may be reached without a device session; everything else
// must refuse.
var publicRoutes = map[string]bool{
	"GET /pair": true, "POST /pair": true, "GET /ca": true, "GET /ca.pem": true, "GET /ca.crt": true,
	"GET /ca.mobileconfig": true, "GET /static/*": true, "GET /favicon.svg": true, "GET /favicon.ico": true,
	"GET /sw.js":         true, // the installed app's worker: a static asset, no data in it
	"GET /api/v1/health": true,
	// A notification's action: its credential is the capability bound to
	// one item and one paired device (TestPushActionDecidesOnce).
	"POST /push/act": true,
}

func fillPath(p string) string {
	p = strings.ReplaceAll(p, ":runtime", "claude")
	p = strings.ReplaceAll(p, ":id", sessionA)
	return strings.ReplaceAll(p, "*", "x")
}

func TestEveryPrivateRouteNeedsASession(t *testing.T) {
	r := newRig(t)
	routes := r.srv.https.Router().Routes()
	if len(routes) < 15 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	checked := 0
	for _, rt := range routes {
		if rt.Method == "echo_route_any" || strings.HasPrefix(rt.Method, "echo_") {
			continue
		}
		id := rt.Method + " " + rt.Path
		if publicRoutes[id] {
			continue
		}
		checked++
		t.Run(id, func(t *testing.T) {
			w := r.do(r.srv.Handler(), rt.Method, fillPath(rt.Path))
			switch {
			case strings.HasPrefix(rt.Path, "/api/"):
				if w.Code != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401", w.Code)
				}
				if c := decodeError(t, w.Body.Bytes()); c != "unauthenticated" {
					t.Fatalf("error code %q", c)
				}
			case rt.Method == http.MethodGet && rt.Path != "/ws":
				if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/pair" {
					t.Fatalf("status %d location %q, want 303 to /pair", w.Code, w.Header().Get("Location"))
				}
			default:
				if w.Code != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401", w.Code)
				}
			}
		})
	}
	if checked < 7 {
		t.Fatalf("checked only %d private routes", checked)
	}
}

func TestPublicRoutesServeWithoutSession(t *testing.T) {
	r := newRig(t)
	for _, p := range []string{"/pair", "/ca", "/ca.pem", "/ca.crt", "/ca.mobileconfig", "/favicon.svg", "/api/v1/health", r.srv.assets.URL("app.css")} {
		if w := r.do(r.srv.Handler(), http.MethodGet, p); w.Code != http.StatusOK {
			t.Errorf("GET %s: %d", p, w.Code)
		}
	}
}

func TestStateChangeNeedsCSRF(t *testing.T) {
	r := newRig(t)
	tests := []struct {
		name string
		opts func(tok string) []reqOpt
		want int
	}{
		{"no token", func(tok string) []reqOpt { return []reqOpt{withCookie(tok)} }, http.StatusForbidden},
		{"wrong token", func(tok string) []reqOpt {
			return []reqOpt{withCookie(tok), withHeader(csrfHeader, r.csrf(tok+"x"))}
		}, http.StatusForbidden},
		{"cross-site request with a good token", func(tok string) []reqOpt {
			return []reqOpt{withCookie(tok), withHeader(csrfHeader, r.csrf(tok)), withHeader("Sec-Fetch-Site", "cross-site")}
		}, http.StatusForbidden},
		{"foreign origin with a good token", func(tok string) []reqOpt {
			return []reqOpt{withCookie(tok), withHeader(csrfHeader, r.csrf(tok)), withHeader("Origin", "https://evil.example")}
		}, http.StatusForbidden},
		{"good header token", func(tok string) []reqOpt {
			return []reqOpt{withCookie(tok), withHeader(csrfHeader, r.csrf(tok)), withHeader("Sec-Fetch-Site", "same-origin")}
		}, http.StatusSeeOther},
		{"good form token", func(tok string) []reqOpt {
			return []reqOpt{withCookie(tok), withForm(url.Values{csrfField: {r.csrf(tok)}})}
		}, http.StatusSeeOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := r.pair()
			w := r.do(r.srv.Handler(), http.MethodPost, "/logout", tt.opts(tok)...)
			if w.Code != tt.want {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.want, w.Body.String())
			}
			// The session survives a refused request and is gone after logout.
			after := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", withCookie(tok))
			if wantAlive := tt.want != http.StatusSeeOther; (after.Code == http.StatusOK) != wantAlive {
				t.Fatalf("session alive=%v after %s, want %v", after.Code == http.StatusOK, tt.name, wantAlive)
			}
		})
	}
}

func TestForeignHostRejected(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	for _, h := range []http.Handler{r.srv.Handler(), r.srv.PlainHandler()} {
		for _, p := range []string{"/", "/pair", "/api/v1/health", "/ca.pem"} {
			w := r.do(h, http.MethodGet, p, withHost("attacker.example:7443"), withCookie(tok))
			if w.Code != http.StatusMisdirectedRequest {
				t.Errorf("GET %s with foreign Host: %d, want 421", p, w.Code)
			}
		}
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/health", withHost("paddock.test:7443")); w.Code != http.StatusOK {
		t.Fatalf("allowed extra host refused: %d", w.Code)
	}
}

func TestPairing(t *testing.T) {
	r := newRig(t)
	h := r.srv.Handler()
	code, _, err := r.auth.NewPairingCode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The GET shows a form and does not consume the code (link previewers).
	for range 2 {
		if w := r.do(h, http.MethodGet, "/pair?code="+code); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `name="code"`) {
			t.Fatalf("pair page: %d", w.Code)
		}
	}
	w := r.do(h, http.MethodPost, "/pair", withForm(url.Values{"code": {code}}), withHeader("User-Agent", "Mozilla/5.0 (Linux; Android 15; Pixel 9) Chrome/140.0 Mobile Safari/537.36"))
	if w.Code != http.StatusSeeOther {
		t.Fatalf("pair: %d %s", w.Code, w.Body.String())
	}
	ck := w.Result().Cookies()
	if len(ck) != 1 || ck[0].Name != "__Host-paddock" || !ck[0].Secure || !ck[0].HttpOnly || ck[0].SameSite != http.SameSiteLaxMode || ck[0].Path != "/" || ck[0].Domain != "" {
		t.Fatalf("cookie %+v", ck)
	}
	if len(ck[0].Value) < 43 { // 256 bits in base32/base64
		t.Fatalf("session token too short: %d chars", len(ck[0].Value))
	}
	if w := r.do(h, http.MethodGet, "/", withCookie(ck[0].Value)); w.Code != http.StatusOK {
		t.Fatalf("board with new session: %d", w.Code)
	}

	t.Run("reused code", func(t *testing.T) {
		w := r.do(h, http.MethodPost, "/pair", withForm(url.Values{"code": {code}}), func(q *http.Request) { q.RemoteAddr = "192.0.2.20:1" })
		if w.Code != http.StatusGone || len(w.Result().Cookies()) != 0 {
			t.Fatalf("reuse: %d", w.Code)
		}
	})
	t.Run("expired code", func(t *testing.T) {
		code2, _, err := r.auth.NewPairingCode(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		r.now = r.now.Add(11 * time.Minute)
		defer func() { r.now = r.now.Add(-11 * time.Minute) }()
		w := r.do(h, http.MethodPost, "/pair", withForm(url.Values{"code": {code2}}), func(q *http.Request) { q.RemoteAddr = "192.0.2.21:1" })
		if w.Code != http.StatusGone {
			t.Fatalf("expired: %d", w.Code)
		}
	})
	t.Run("garbage code", func(t *testing.T) {
		w := r.do(h, http.MethodPost, "/pair", withForm(url.Values{"code": {"not-a-code"}}), func(q *http.Request) { q.RemoteAddr = "192.0.2.22:1" })
		if w.Code != http.StatusBadRequest {
			t.Fatalf("garbage: %d", w.Code)
		}
	})
	t.Run("rate limited per address", func(t *testing.T) {
		last := 0
		for range 8 {
			w := r.do(h, http.MethodPost, "/pair", withForm(url.Values{"code": {"abcdefghijklmnopqrstuvwxyz"}}), func(q *http.Request) { q.RemoteAddr = "198.51.100.7:1" })
			last = w.Code
		}
		if last != http.StatusTooManyRequests {
			t.Fatalf("8th attempt: %d, want 429", last)
		}
		w := r.do(h, http.MethodPost, "/pair", withForm(url.Values{"code": {"abcdefghijklmnopqrstuvwxyz"}}), func(q *http.Request) { q.RemoteAddr = "198.51.100.8:1" })
		if w.Code == http.StatusTooManyRequests {
			t.Fatal("another address was limited too")
		}
	})
}

func TestRevokedDeviceLosesAccess(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	devs, err := r.auth.ListDevices(t.Context())
	if err != nil || len(devs) != 1 {
		t.Fatalf("devices %v %v", devs, err)
	}
	if err := r.auth.RevokeDevice(t.Context(), devs[0].ID); err != nil {
		t.Fatal(err)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", withCookie(tok)); w.Code != http.StatusUnauthorized {
		t.Fatalf("revoked device: %d", w.Code)
	}
}

func TestSecurityHeaders(t *testing.T) {
	r := newRig(t)
	w := r.do(r.srv.Handler(), http.MethodGet, "/pair")
	for k, want := range map[string]string{
		"Content-Security-Policy":   "script-src 'self'",
		"Referrer-Policy":           "no-referrer",
		"X-Content-Type-Options":    "nosniff",
		"Strict-Transport-Security": "max-age=",
	} {
		if !strings.Contains(w.Header().Get(k), want) {
			t.Errorf("%s = %q, want it to contain %q", k, w.Header().Get(k), want)
		}
	}
}

func TestHostAllowlistWildcard(t *testing.T) {
	r := newRig(t)
	r.srv.opts.AllowedHosts = func() []string { return []string{"*.tail1234.ts.net", "LAPTOP.local."} }
	for host, want := range map[string]bool{
		"box.tail1234.ts.net:7443":   true,
		"a.box.tail1234.ts.net:7443": false,
		"tail1234.ts.net":            false,
		"laptop.local:7443":          true,
		"laptop.local.evil.example":  false,
		"":                           false,
	} {
		if got := r.srv.hostAllowed(host); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
}

func TestRequestBodiesAreBounded(t *testing.T) {
	r := newRig(t)
	h := r.srv.Handler()
	// Multipart would spill to temp files: refused before any parsing.
	w := r.do(h, http.MethodPost, "/pair", func(q *http.Request) {
		q.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		q.Body = io.NopCloser(strings.NewReader("--x\r\nContent-Disposition: form-data; name=\"code\"\r\n\r\nabc\r\n--x--\r\n"))
	})
	if w.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("multipart: %d", w.Code)
	}
	// An oversized urlencoded body is cut off, not read whole.
	big := "code=" + strings.Repeat("a", 1<<20)
	w = r.do(h, http.MethodPost, "/pair", withForm(nil), func(q *http.Request) {
		q.Body = io.NopCloser(strings.NewReader(big))
		q.ContentLength = int64(len(big))
	})
	if w.Code != http.StatusBadRequest {
		t.Fatalf("huge body: %d", w.Code)
	}
	// Form fields come from the body only, never the query string.
	tok := r.pair()
	w = r.do(h, http.MethodPost, "/logout?csrf="+url.QueryEscape(r.csrf(tok)), withCookie(tok))
	if w.Code != http.StatusForbidden {
		t.Fatalf("csrf token in the query accepted: %d", w.Code)
	}
}

func TestPlainPairLinkIsBurnt(t *testing.T) {
	r := newRig(t)
	code, _, err := r.auth.NewPairingCode(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w := r.do(r.srv.PlainHandler(), http.MethodGet, "/pair?code="+code, func(q *http.Request) { q.TLS = nil; q.Host = "127.0.0.1:7080" })
	if w.Code != http.StatusBadRequest || strings.Contains(w.Header().Get("Location"), code) {
		t.Fatalf("plain pair link: %d %q", w.Code, w.Header().Get("Location"))
	}
	w = r.do(r.srv.Handler(), http.MethodPost, "/pair", withForm(url.Values{"code": {code}}))
	if w.Code != http.StatusGone {
		t.Fatalf("pairing with a code exposed over http: %d", w.Code)
	}
}

func TestNonBearerAuthorizationIsIgnored(t *testing.T) {
	r := newRig(t)
	w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/health", withHeader("Authorization", "Basic dXNlcjpwYXNz"))
	if w.Code != http.StatusOK {
		t.Fatalf("health with Basic auth: %d", w.Code)
	}
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", withHeader("Authorization", "Basic dXNlcjpwYXNz"))
	if w.Code != http.StatusUnauthorized || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("sessions with Basic auth: %d %q", w.Code, w.Header().Get("Cache-Control"))
	}
}

// TestPlainHTTPBurnsCredentials: an API token or a device session sent to
// the plain-HTTP port is revoked there and then, and the request refused
// with the reason — not redirected to HTTPS with the credential; a
// request without one is still redirected.
func TestPlainHTTPBurnsCredentials(t *testing.T) {
	r := newRig(t)
	plain := func(q *http.Request) { q.TLS = nil; q.Host = "127.0.0.1:7080" }
	tok, _, err := r.auth.CreateToken(t.Context(), "script")
	if err != nil {
		t.Fatal(err)
	}
	bearer := withHeader("Authorization", "Bearer "+tok)
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", bearer); w.Code != http.StatusOK {
		t.Fatalf("the token before: %d", w.Code)
	}
	w := r.do(r.srv.PlainHandler(), http.MethodGet, "/api/v1/sessions", plain, bearer)
	if w.Code != http.StatusBadRequest || w.Header().Get("Location") != "" || decodeError(t, w.Body.Bytes()) != "credential_over_http" {
		t.Fatalf("a token over plain HTTP: %d %q %s", w.Code, w.Header().Get("Location"), w.Body)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", bearer); w.Code != http.StatusUnauthorized {
		t.Errorf("the token after it crossed plain HTTP: %d, want 401", w.Code)
	}
	cookie := r.pair()
	w = r.do(r.srv.PlainHandler(), http.MethodGet, "/", plain, withCookie(cookie))
	if w.Code != http.StatusBadRequest || w.Header().Get("Location") != "" {
		t.Fatalf("a device session over plain HTTP: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", withCookie(cookie), withHeader("Accept", "application/json")); w.Code != http.StatusUnauthorized {
		t.Errorf("the device after its session crossed plain HTTP: %d, want 401", w.Code)
	}
	if w := r.do(r.srv.PlainHandler(), http.MethodGet, "/api/v1/sessions", plain); w.Code != http.StatusPermanentRedirect {
		t.Errorf("no credential: %d, want the redirect", w.Code)
	}
}
