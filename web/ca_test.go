package web

import (
	"net/http"
	"strings"
	"testing"
)

func TestCAPageFitsTheDevice(t *testing.T) {
	r := newRig(t)
	for _, tc := range []struct{ ua, platform, heading string }{
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1", "ios", "This device (iPhone and iPad)"},
		{"Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36", "android", "This device (Android)"},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Safari/605.1.15", "macos", "This device (Mac)"},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36", "windows", "This device (Windows)"},
		{"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "linux", "This device (Linux)"},
		{"curl/8.5.0", "", ""},
	} {
		if got := platformOf(tc.ua); got != tc.platform {
			t.Errorf("platformOf(%q) = %q, want %q", tc.ua, got, tc.platform)
		}
		w := r.do(r.srv.Handler(), http.MethodGet, "/ca", withHeader("User-Agent", tc.ua))
		page := w.Body.String()
		if tc.heading != "" && !strings.Contains(page, "<h2>"+tc.heading+"</h2>") {
			t.Errorf("%s: no %q heading", tc.platform, tc.heading)
		}
		if tc.heading == "" && (strings.Contains(page, "<h2>This device") || !strings.Contains(page, `<details class="other-devices" data-testid="other-devices" open>`)) {
			t.Errorf("an unknown device: its steps are not all shown open")
		}
		if n := strings.Count(page, `<ol class="steps" data-platform=`); n != 5 {
			t.Errorf("%s: %d platforms' steps, want all 5", tc.platform, n)
		}
		csp := w.Header().Get("Content-Security-Policy")
		if !strings.Contains(csp, "img-src 'self' data: https://127.0.0.1:7443;") || !strings.Contains(page, `data-trust-check="https://127.0.0.1:7443/static/`) {
			t.Errorf("the trust check's image is not allowed from the HTTPS address: %s", csp)
		}
	}
	// Other pages keep the strict policy.
	if csp := r.do(r.srv.Handler(), http.MethodGet, "/pair").Header().Get("Content-Security-Policy"); csp != contentSecurityPolicy {
		t.Errorf("/pair's policy %q", csp)
	}
}
