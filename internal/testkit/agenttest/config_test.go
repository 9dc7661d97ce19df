package agenttest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// recorder stands in for testing.TB to observe Skip and Fatal; both stop
// the helper like the real ones do (here by panicking to the caller).
type recorder struct {
	testing.TB
	skipped, fatal string
}

var errStopped = errors.New("stopped")

func (r *recorder) Helper()                   {}
func (r *recorder) Skip(args ...any)          { r.skipped = strings.TrimSpace(sprint(args)); panic(errStopped) }
func (r *recorder) Fatal(args ...any)         { r.fatal = strings.TrimSpace(sprint(args)); panic(errStopped) }
func (r *recorder) Fatalf(f string, a ...any) { r.Fatal(f) }

func sprint(args []any) string {
	var b strings.Builder
	for _, a := range args {
		b.WriteString(a.(string))
	}
	return b.String()
}

func run(r *recorder, f func()) {
	defer func() {
		if p := recover(); p != nil && p != errStopped {
			panic(p)
		}
	}()
	f()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// fakePrefix builds an install prefix holding cli at version.
func fakePrefix(t *testing.T, cli CLI, version string) string {
	t.Helper()
	dir := t.TempDir()
	pkg, _, _ := cli.Pinned()
	writeFile(t, filepath.Join(dir, "bin", string(cli)), "#!/bin/sh\n")
	writeFile(t, filepath.Join(dir, "node_modules", pkg, "package.json"), `{"name":"`+pkg+`","version":"`+version+`"}`)
	return dir
}

func TestMissingCLIsSkipOrFail(t *testing.T) {
	_, pinned, _ := Claude.Pinned()
	tests := []struct {
		name, prefix, required string
		wantStop               bool
		wantText               string
	}{
		{"no prefix", t.TempDir(), "", true, "not installed"},
		{"no prefix, required", t.TempDir(), "1", true, "E2E_REQUIRED=1 but agent CLIs not installed"},
		{"stale version", fakePrefix(t, Claude, "2.0.0"), "", true, "want the pinned " + pinned},
		{"pinned version", fakePrefix(t, Claude, pinned), "1", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvAgents, tc.prefix)
			t.Setenv(EnvRequired, tc.required)
			r := &recorder{TB: t}
			var bin string
			run(r, func() { bin = Bin(r, Claude) })
			msg := r.skipped + r.fatal
			if stopped := msg != ""; stopped != tc.wantStop {
				t.Fatalf("stopped = %v (%q), want %v", stopped, msg, tc.wantStop)
			}
			if !tc.wantStop {
				if bin != filepath.Join(tc.prefix, "bin", "claude") {
					t.Errorf("Bin = %q", bin)
				}
				return
			}
			if (r.fatal != "") != (tc.required == "1") {
				t.Errorf("skip %q / fatal %q under E2E_REQUIRED=%q", r.skipped, r.fatal, tc.required)
			}
			if !strings.Contains(msg, tc.wantText) || !strings.Contains(msg, "make e2e-deps") {
				t.Errorf("message %q should contain %q and name make e2e-deps", msg, tc.wantText)
			}
		})
	}
}

func readJSONFile(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func hasEnv(a *Agent, kv string) bool { return slices.Contains(a.Env, kv) }

// TestConfigs checks each recipe from verified on the real CLI lands where the CLI
// reads it, pointing at the model URL, with nothing from the host leaking.
func TestConfigs(t *testing.T) {
	const url = "http://127.0.0.1:4242"
	t.Setenv("ANTHROPIC_API_KEY", "sk-host-secret")
	for _, cli := range []CLI{Claude, Codex, OpenCode, Pi} {
		t.Run(string(cli), func(t *testing.T) {
			_, pinned, _ := cli.Pinned()
			t.Setenv(EnvAgents, fakePrefix(t, cli, pinned))
			a := New(t, cli, url)
			if a.Cwd != filepath.Join(a.Home, "proj") || !hasEnv(a, "HOME="+a.Home) || a.Ready == nil || a.quit == nil {
				t.Fatalf("agent %+v", a)
			}
			if st, err := os.Stat(a.Cwd); err != nil || !st.IsDir() {
				t.Fatalf("project dir: %v", err)
			}
			for _, kv := range a.Env {
				if strings.Contains(kv, "sk-host-secret") {
					t.Fatalf("host environment leaked: %s", kv)
				}
			}
			switch cli {
			case Claude:
				m := readJSONFile(t, filepath.Join(a.Home, ".claude.json"))
				approved := m["customApiKeyResponses"].(map[string]any)["approved"].([]any)
				trusted := m["projects"].(map[string]any)[a.Cwd].(map[string]any)["hasTrustDialogAccepted"]
				if m["hasCompletedOnboarding"] != true || trusted != true || approved[0] != a.APIKey[len(a.APIKey)-20:] {
					t.Errorf(".claude.json %v", m)
				}
				if !hasEnv(a, "ANTHROPIC_BASE_URL="+url) || !hasEnv(a, "ANTHROPIC_API_KEY="+a.APIKey) ||
					!hasEnv(a, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1") || !hasEnv(a, "DISABLE_AUTOUPDATER=1") {
					t.Errorf("env %q", a.Env)
				}
				if !slices.Equal(a.Argv[1:], []string{"--permission-mode", "default"}) {
					t.Errorf("argv %q", a.Argv)
				}
			case Codex:
				b, err := os.ReadFile(filepath.Join(a.Home, ".codex", "config.toml"))
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range []string{`base_url = "` + url + `/v1"`, `wire_api = "responses"`,
					`[projects."` + a.Cwd + `"]`, `trust_level = "trusted"`, `approval_policy = "on-request"`} {
					if !strings.Contains(string(b), want) {
						t.Errorf("config.toml lacks %s:\n%s", want, b)
					}
				}
				if !hasEnv(a, "CODEX_HOME="+filepath.Join(a.Home, ".codex")) || !hasEnv(a, "MOCK_API_KEY="+a.APIKey) {
					t.Errorf("env %q", a.Env)
				}
			case OpenCode:
				m := readJSONFile(t, filepath.Join(a.Home, ".config", "opencode", "opencode.json"))
				if get := m["provider"].(map[string]any)["mock"].(map[string]any)["options"].(map[string]any)["baseURL"]; get != url+"/v1" {
					t.Errorf("baseURL %v", get)
				}
				if m["permission"].(map[string]any)["bash"] != "ask" {
					t.Errorf("permission %v", m["permission"])
				}
				if a.Port == 0 || !slices.Contains(a.Argv, "--port") || !hasEnv(a, "XDG_CONFIG_HOME="+filepath.Join(a.Home, ".config")) {
					t.Errorf("port %d argv %q", a.Port, a.Argv)
				}
			case Pi:
				m := readJSONFile(t, filepath.Join(a.Home, ".pi", "agent", "models.json"))
				mock := m["providers"].(map[string]any)["mock"].(map[string]any)
				if mock["baseUrl"] != url+"/v1" || mock["api"] != "openai-completions" {
					t.Errorf("models.json %v", m)
				}
				s := readJSONFile(t, filepath.Join(a.Home, ".pi", "agent", "settings.json"))
				if s["defaultProvider"] != "mock" || s["lastChangelogVersion"] != pinned {
					t.Errorf("settings.json %v", s)
				}
				if !hasEnv(a, "PI_OFFLINE=1") || !hasEnv(a, "PI_CODING_AGENT_DIR="+filepath.Join(a.Home, ".pi", "agent")) {
					t.Errorf("env %q", a.Env)
				}
			}
			a.Setenv("HOME", "/elsewhere")
			if !hasEnv(a, "HOME=/elsewhere") || hasEnv(a, "HOME="+a.Home) {
				t.Errorf("Setenv did not replace HOME: %q", a.Env)
			}
		})
	}
}
