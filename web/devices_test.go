package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// The settings page lists the paired devices; a device renames another
// and revokes it, which signs it out at once; a bad name is refused with
// the reason; each action needs the CSRF token; revoking oneself goes to
// pairing.
func TestSettingsDevices(t *testing.T) {
	r := newRig(t)
	phone, tablet := r.pair(), r.pair()
	tabletDev, err := r.auth.Device(t.Context(), tablet)
	if err != nil {
		t.Fatal(err)
	}
	page := r.do(r.srv.Handler(), http.MethodGet, "/settings", withCookie(phone)).Body.String()
	if strings.Count(page, `data-testid="device"`) != 2 || strings.Count(page, `<span class="state">this device</span>`) != 1 {
		t.Fatalf("settings lists %d devices: %s", strings.Count(page, `data-testid="device"`), page)
	}
	post := func(tok, path string, form url.Values, csrf bool) *http.Response {
		opts := []reqOpt{withCookie(tok), withForm(form)}
		if csrf {
			opts = append(opts, withHeader(csrfHeader, r.csrf(tok)))
		}
		return r.do(r.srv.Handler(), http.MethodPost, path, opts...).Result()
	}
	base := "/settings/devices/" + tabletDev.ID
	if resp := post(phone, base+"/rename", url.Values{"name": {"kitchen tablet"}}, false); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("rename without CSRF: %d", resp.StatusCode)
	}
	w := r.do(r.srv.Handler(), http.MethodPost, base+"/rename", withCookie(phone), withHeader(csrfHeader, r.csrf(phone)),
		withForm(url.Values{"name": {"kitchen tablet"}}))
	if !strings.Contains(w.Body.String(), "kitchen tablet") || !strings.Contains(w.Body.String(), "Renamed.") {
		t.Fatalf("after rename: %s", w.Body)
	}
	w = r.do(r.srv.Handler(), http.MethodPost, base+"/rename", withCookie(phone), withHeader(csrfHeader, r.csrf(phone)),
		withForm(url.Values{"name": {strings.Repeat("x", 61)}}))
	if !strings.Contains(w.Body.String(), "1 to 60 characters") {
		t.Fatalf("a 61-character name: %s", w.Body)
	}
	w = r.do(r.srv.Handler(), http.MethodPost, base+"/revoke", withCookie(phone), withHeader(csrfHeader, r.csrf(phone)))
	if !strings.Contains(w.Body.String(), "Revoked") || strings.Count(w.Body.String(), `data-testid="device"`) != 1 {
		t.Fatalf("after revoke: %s", w.Body)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tablet)); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/pair" {
		t.Fatalf("the revoked tablet: %d %s", w.Code, w.Header().Get("Location"))
	}
	phoneDev, _ := r.auth.Device(t.Context(), phone)
	w = r.do(r.srv.Handler(), http.MethodPost, "/settings/devices/"+phoneDev.ID+"/revoke", withCookie(phone), withHeader(csrfHeader, r.csrf(phone)))
	if w.Header().Get("HX-Redirect") != "/pair" {
		t.Fatalf("revoking oneself: %d %v", w.Code, w.Header())
	}
}

// From a page opened on this machine (localhost), Pair another device
// offers a one-time link on an address a phone can reach, with its QR
// code; the link pairs exactly once.
func TestPairAnotherDevice(t *testing.T) {
	r := newRig(t)
	r.srv.opts.DashboardURLs = func() []string { return []string{"https://192.168.1.20:7443/", "https://localhost:7443/"} }
	desk := r.pair()
	if w := r.do(r.srv.Handler(), http.MethodPost, "/settings/devices/pair", withCookie(desk)); w.Code != http.StatusForbidden {
		t.Fatalf("without CSRF: %d", w.Code)
	}
	w := r.do(r.srv.Handler(), http.MethodPost, "/settings/devices/pair", withCookie(desk), withHeader(csrfHeader, r.csrf(desk)), withHost("localhost:7443"))
	m := regexp.MustCompile(`href="(https://192\.168\.1\.20:7443/pair\?code=[^"]+)"`).FindStringSubmatch(w.Body.String())
	if w.Code != http.StatusOK || m == nil || !strings.Contains(w.Body.String(), `src="data:image/png;base64,`) || !strings.Contains(w.Body.String(), "expires <time") {
		t.Fatalf("pair offer: %d %s", w.Code, w.Body.String())
	}
	if w.Header().Get("Cache-Control") != "no-store" {
		t.Error("the pairing link may be cached")
	}
	u, _ := url.Parse(m[1])
	code := u.Query().Get("code")
	if _, _, err := r.auth.Pair(t.Context(), code, "Mozilla/5.0 (Linux; Android 15)", "192.0.2.11"); err != nil {
		t.Fatalf("the offered code does not pair: %v", err)
	}
	if _, _, err := r.auth.Pair(t.Context(), code, "Mozilla/5.0 (Linux; Android 15)", "192.0.2.12"); err == nil {
		t.Fatal("the offered code paired twice")
	}
	// Opened at a LAN address, the link keeps that address.
	w = r.do(r.srv.Handler(), http.MethodPost, "/settings/devices/pair", withCookie(desk), withHeader(csrfHeader, r.csrf(desk)), withHost("paddock.test:7443"))
	if !strings.Contains(w.Body.String(), `href="https://paddock.test:7443/pair?code=`) {
		t.Fatalf("from paddock.test: %s", w.Body.String())
	}
}
