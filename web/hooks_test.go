package web

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/agent/registry"
	"paddock/internal/hookinstall"
)

// pageHooks is the settings page's installer over a temp home, with a
// hook secret to keep off the page.
type pageHooks struct {
	hookinstall.Installer
	secret string
}

func (h pageHooks) Secret() string { return h.secret }

func TestSettingsInstallHooksAfterTheDiff(t *testing.T) {
	r := newRig(t)
	home := t.TempDir()
	const secret = "b1f0e7c2d9a84c55a1e0f3d2c4b5a6978877665544332211ffeeddccbbaa0099"
	settingsFile := filepath.Join(home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settingsFile), 0o755); err != nil {
		t.Fatal(err)
	}
	foreign := `{
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done ` + secret + `"}]}]
  }
}
`
	if err := os.WriteFile(settingsFile, []byte(foreign), 0o600); err != nil {
		t.Fatal(err)
	}
	r.srv.opts.Hooks = pageHooks{secret: secret, Installer: hookinstall.Installer{Options: hookinstall.Options{
		Specs: registry.Default().InstallSpecs(), Binary: "/opt/paddock/bin/paddock", DataDir: "/var/paddock",
		Env: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}}}}
	tok := r.pair()
	page := r.do(r.srv.Handler(), http.MethodGet, "/settings", withCookie(tok)).Body.String()
	if n := strings.Count(page, `data-testid="hook-agent"`); n != len(registry.Default().Names()) {
		t.Fatalf("%d agents' hooks listed", n)
	}
	if !strings.Contains(page, `hx-get="/settings/hooks/claude/plan"`) || strings.Count(page, `data-testid="hook-review"`) != 1 {
		t.Fatal("only Claude (installed here, no paddock hook) offers Review changes")
	}
	if !strings.Contains(page, "agent not installed here") {
		t.Fatal("the agents absent from this home are not said to be")
	}

	plan := r.do(r.srv.Handler(), http.MethodGet, "/settings/hooks/claude/plan", withCookie(tok)).Body.String()
	if !strings.Contains(plan, `<span class="dl add">+`) || !strings.Contains(plan, "/opt/paddock/bin/paddock") || !strings.Contains(plan, `data-testid="hook-install"`) {
		t.Fatalf("the plan shows no diff to install: %s", plan)
	}
	if strings.Contains(plan, secret) {
		t.Fatal("the plan shows the hook secret")
	}
	if before, _ := os.ReadFile(settingsFile); string(before) != foreign {
		t.Fatal("showing the plan wrote the agent's config")
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/settings/hooks/nobody/plan", withCookie(tok)); w.Code != http.StatusNotFound {
		t.Fatalf("an unknown agent's plan: %d", w.Code)
	}
	if w := r.do(r.srv.Handler(), http.MethodPost, "/settings/hooks/claude/install", withCookie(tok)); w.Code != http.StatusForbidden {
		t.Fatalf("install without CSRF: %d", w.Code)
	}
	if after, _ := os.ReadFile(settingsFile); string(after) != foreign {
		t.Fatal("a refused install wrote the agent's config")
	}

	done := r.do(r.srv.Handler(), http.MethodPost, "/settings/hooks/claude/install", withCookie(tok), withHeader(csrfHeader, r.csrf(tok))).Body.String()
	if !strings.Contains(done, "Claude: hooks installed") || !strings.Contains(done, "the old one kept as") {
		t.Fatalf("after install: %s", done)
	}
	if strings.Contains(done, secret) {
		t.Fatal("the install's answer shows the hook secret")
	}
	after, _ := os.ReadFile(settingsFile)
	if !strings.Contains(string(after), "notify-send done") || !strings.Contains(string(after), "/opt/paddock/bin/paddock") {
		t.Fatalf("settings.json after install: %s", after)
	}
	if strings.Count(done, `data-testid="hook-review"`) != 0 || !strings.Contains(done, ">installed<") {
		t.Fatalf("Claude is not shown installed: %s", done)
	}
	if again := r.do(r.srv.Handler(), http.MethodGet, "/settings/hooks/claude/plan", withCookie(tok)).Body.String(); !strings.Contains(again, "Already installed") {
		t.Fatalf("a second plan: %s", again)
	}
	log, err := r.store.AuditLog(t.Context(), 5)
	if err != nil || len(log) == 0 || log[0].Action != "hooks.install" || log[0].Detail != "runtime=claude" {
		t.Fatalf("audit %+v %v", log, err)
	}
}
