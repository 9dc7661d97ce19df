package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"paddock/internal/settings"
)

func TestSettingsMachineForm(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	page := r.do(r.srv.Handler(), http.MethodGet, "/settings", withCookie(tok)).Body.String()
	for _, want := range []string{`data-testid="machine-settings"`, `<details class="advanced"`, `<option value="0s" selected>Never (off)</option>`,
		`<option value="medium" selected>`, `<option value="15s" selected>Every 15 s</option>`, "Started with: idle sleep never (off), density medium"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the settings page lacks %q", want)
		}
	}
	save := func(form url.Values, csrf bool) *http.Response {
		opts := []reqOpt{withCookie(tok), withForm(form)}
		if csrf {
			opts = append(opts, withHeader(csrfHeader, r.csrf(tok)))
		}
		return r.do(r.srv.Handler(), http.MethodPost, "/settings/machine", opts...).Result()
	}
	body := func(resp *http.Response) string {
		var b strings.Builder
		if err := resp.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	good := url.Values{"office": {"on"}, "sleep_idle": {"30m0s"}, "density": {"high"}, "process_check": {"5s"}}
	if resp := save(good, false); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a save without CSRF: %d", resp.StatusCode)
	}
	for _, bad := range []struct {
		change func(url.Values)
		note   string
	}{
		{func(v url.Values) { v.Set("sleep_idle", "10m") }, "Not saved: idle sleep is off or 15 minutes to 4 hours."},
		{func(v url.Values) { v.Set("sleep_idle", "soon") }, "Not saved: sleep_idle is a duration"},
		{func(v url.Values) { v.Set("density", "max") }, "Not saved: hook density is low, medium or high."},
		{func(v url.Values) { v.Del("process_check") }, "Not saved: process_check is a duration"},
		{func(v url.Values) { v.Set("process_check", "1h") }, "Not saved: the process check runs every 1 second to 5 minutes."},
	} {
		form := url.Values{}
		for k, v := range good {
			form[k] = v
		}
		bad.change(form)
		if got := body(save(form, true)); !strings.Contains(got, bad.note) {
			t.Errorf("form %v: no %q in %s", form, bad.note, got)
		}
	}
	if got := r.settings.Get(); got != r.settings.Defaults() {
		t.Fatalf("refused saves changed the settings: %+v", got)
	}
	if got := body(save(good, true)); !strings.Contains(got, "Saved.") || !strings.Contains(got, `<option value="30m0s" selected>After 30 min idle</option>`) {
		t.Fatalf("after a good save: %s", got)
	}
	want := settings.Values{Office: true, SleepIdle: 30 * time.Minute, Density: "high", ProcessCheck: 5 * time.Second}
	if got := r.settings.Get(); got != want {
		t.Fatalf("settings in force %+v, want %+v", got, want)
	}
	log, err := r.store.AuditLog(t.Context(), 10)
	if err != nil || len(log) == 0 || log[0].Action != "settings.save" || !strings.Contains(log[0].Detail, "density=high") {
		t.Fatalf("audit %+v %v", log, err)
	}
}

func TestThemeKeptPerDevice(t *testing.T) {
	r := newRig(t)
	phone, laptop := r.pair(), r.pair()
	theme := func(tok, v string) int {
		return r.do(r.srv.Handler(), http.MethodPost, "/settings/theme", withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
			withForm(url.Values{"theme": {v}})).Code
	}
	if code := theme(phone, "dark"); code != http.StatusNoContent {
		t.Fatalf("set dark: %d", code)
	}
	if code := theme(phone, "purple"); code != http.StatusBadRequest {
		t.Fatalf("set purple: %d", code)
	}
	if page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(phone)).Body.String(); !strings.Contains(page, `<html lang="en" data-theme="dark">`) {
		t.Fatalf("the phone's board is not dark: %.300s", page)
	}
	if page := r.do(r.srv.Handler(), http.MethodGet, "/settings", withCookie(phone)).Body.String(); !strings.Contains(page, `<option value="dark" selected>Dark</option>`) {
		t.Fatal("the settings page does not show the phone's choice")
	}
	if page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(laptop)).Body.String(); !strings.Contains(page, `<html lang="en">`) {
		t.Fatalf("the laptop follows its system, but got: %.300s", page)
	}
	if code := theme(phone, ""); code != http.StatusNoContent {
		t.Fatalf("back to the system: %d", code)
	}
	if page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(phone)).Body.String(); !strings.Contains(page, `<html lang="en">`) {
		t.Fatal("the phone still has a theme after choosing the system's")
	}
}
