package web

import (
	"net/http"
	"net/url"
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
