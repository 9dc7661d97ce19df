package agenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Agent is one CLI configured in a throw-away HOME against a mock model,
// ready to Start. The recipes come from ../shared/docs/real-clients.md;
// fields may be adjusted before Start (append to Argv, change Env).
type Agent struct {
	CLI CLI
	// Home is the fake HOME; Cwd the project directory inside it, where
	// the CLI runs.
	Home, Cwd string
	// Env is the CLI's complete environment (see Spec.Env).
	Env []string
	// Argv starts the CLI interactively.
	Argv []string
	// Ready matches the screen once the CLI waits for its first prompt.
	Ready *regexp.Regexp
	// APIKey is the key the CLI sends to the mock model.
	APIKey string
	// Port is OpenCode's HTTP server port (--port); 0 for the others.
	Port int

	quit func(*Term) // types the CLI's own exit command
}

// New returns the Agent for cli; see NewClaude, NewCodex, NewOpenCode and
// NewPi. modelURL is the mock's base URL without /v1 (mockmodel.Server.URL).
func New(tb testing.TB, cli CLI, modelURL string) *Agent {
	tb.Helper()
	switch cli {
	case Claude:
		return NewClaude(tb, modelURL)
	case Codex:
		return NewCodex(tb, modelURL)
	case OpenCode:
		return NewOpenCode(tb, modelURL)
	case Pi:
		return NewPi(tb, modelURL)
	}
	tb.Fatalf("agenttest: unknown CLI %q", cli)
	return nil
}

// newAgent makes the fake HOME with a project directory and the
// environment every CLI gets.
func newAgent(tb testing.TB, cli CLI) *Agent {
	tb.Helper()
	bin := Bin(tb, cli)
	// EvalSymlinks: the CLIs key their state by the resolved cwd (Claude's
	// projects/<path>, Codex's trusted projects), so the configs must name
	// the same path.
	home, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
	cwd := filepath.Join(home, "proj")
	mkdir(tb, cwd)
	username := "paddock"
	if u, err := user.Current(); err == nil {
		username = u.Username
	}
	env := []string{
		"HOME=" + home,
		"USER=" + username,
		"LOGNAME=" + username,
		// The host PATH finds node, bash and git; the CLI itself is run by
		// absolute path.
		"PATH=" + os.Getenv("PATH"),
		"SHELL=/bin/bash",
		// Without a UTF-8 locale tmux replaces the TUIs' box drawing and
		// prompt glyphs (❯ ›) with underscores.
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}
	return &Agent{CLI: cli, Home: home, Cwd: cwd, Env: env, Argv: []string{bin}}
}

// Start runs the agent in a Term (closed by tb.Cleanup).
func (a *Agent) Start(tb testing.TB) *Term {
	tb.Helper()
	return Start(tb, Spec{Name: string(a.CLI), Argv: a.Argv, Env: a.Env, Dir: a.Cwd})
}

// Setenv sets (or replaces) one variable in a.Env.
func (a *Agent) Setenv(key, value string) {
	prefix := key + "="
	for i, kv := range a.Env {
		if strings.HasPrefix(kv, prefix) {
			a.Env[i] = prefix + value
			return
		}
	}
	a.Env = append(a.Env, prefix+value)
}

// Quit exits the CLI the way a person would (its exit command or key) and
// waits until it has ended. The Term stays usable for Screen.
func (a *Agent) Quit(ctx context.Context, t *Term) (string, error) {
	a.quit(t)
	return t.WaitExit(ctx)
}

// ClaudeAPIKey is the key Claude Code is given; its last 20 characters are
// pre-approved in ~/.claude.json.
const ClaudeAPIKey = "sk-ant-api03-paddock-test-key-0123456789abcdef"

// NewClaude configures Claude Code: onboarding done, the project trusted
// and the API key approved in ~/.claude.json (else the TUI stops at those
// screens), ANTHROPIC_BASE_URL at the mock, non-essential traffic and the
// auto-updater off, and --permission-mode default so tool calls prompt
// (2.1.328 defaults to auto; bypassPermissions is refused as root).
func NewClaude(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	a := newAgent(tb, Claude)
	a.APIKey = ClaudeAPIKey
	writeJSON(tb, filepath.Join(a.Home, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true,
		"projects": map[string]any{
			a.Cwd: map[string]any{"hasTrustDialogAccepted": true},
		},
		"customApiKeyResponses": map[string]any{
			"approved": []string{a.APIKey[len(a.APIKey)-20:]},
			"rejected": []string{},
		},
	})
	a.Env = append(a.Env,
		"ANTHROPIC_BASE_URL="+modelURL,
		"ANTHROPIC_API_KEY="+a.APIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	)
	a.Argv = append(a.Argv, "--permission-mode", "default")
	// The status line shows the permission mode once the prompt is live.
	a.Ready = regexp.MustCompile(`manual mode on`)
	a.quit = func(t *Term) { t.Type("/exit") }
	return a
}

// CodexBypassHookTrust is the flag that lets Codex run hooks from
// hooks.json without the trust-by-hash review; hook tests append it to Argv.
const CodexBypassHookTrust = "--dangerously-bypass-hook-trust"

// NewCodex configures Codex: CODEX_HOME (which must exist beforehand) with a
// config.toml naming a Responses-API provider at the mock, approvals
// on-request in a workspace-write sandbox, and the project trusted (no
// "trust this folder?" screen).
//
// Codex 0.169 also starts a detached app-server daemon that outlives the
// TUI; Close kills it with the rest. Append `[features]
// daemon_auto_start = false` to config.toml to run without it.
func NewCodex(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	a := newAgent(tb, Codex)
	a.APIKey = "sk-mock-codex"
	codexHome := filepath.Join(a.Home, ".codex")
	mkdir(tb, codexHome)
	writeFile(tb, filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
requires_openai_auth = false

[projects.%q]
trust_level = "trusted"
`, modelURL+"/v1", a.Cwd))
	a.Env = append(a.Env, "CODEX_HOME="+codexHome, "MOCK_API_KEY="+a.APIKey)
	// The footer names the model once the composer is live.
	a.Ready = regexp.MustCompile(`mock-model`)
	a.quit = func(t *Term) { t.Type("/quit") }
	return a
}

// NewOpenCode configures OpenCode: an @ai-sdk/openai-compatible provider at
// the mock (also used for titles), permission bash/edit = ask, updates,
// sharing and the models.dev fetch off, XDG dirs inside the fake HOME, and
// --port so the TUI's own HTTP server (sessions, permissions) is reachable
// on 127.0.0.1:a.Port.
func NewOpenCode(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	a := newAgent(tb, OpenCode)
	a.APIKey = "sk-mock-opencode"
	a.Port = freePort(tb)
	writeJSON(tb, filepath.Join(a.Home, ".config", "opencode", "opencode.json"), map[string]any{
		"$schema":     "https://opencode.ai/config.json",
		"model":       "mock/mock-model",
		"small_model": "mock/mock-model",
		"autoupdate":  false,
		"share":       "disabled",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Mock",
			"options": map[string]any{"baseURL": modelURL + "/v1", "apiKey": a.APIKey},
			"models": map[string]any{"mock-model": map[string]any{
				"name": "Mock Model", "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 4096},
			}},
		}},
		"permission": map[string]any{"bash": "ask", "edit": "ask"},
	})
	a.Env = append(a.Env,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_SHARE=1",
	)
	a.Argv = append(a.Argv, "--port", strconv.Itoa(a.Port), "--hostname", "127.0.0.1")
	a.Ready = regexp.MustCompile(`Ask anything`)
	a.quit = func(t *Term) { t.Type("/exit") }
	return a
}

// NewPi configures Pi: a custom "mock" provider (openai-completions) in
// ~/.pi/agent/models.json as the default model, offline mode (no fd/rg
// downloads, no version check, no telemetry), and the changelog marked as
// seen.
func NewPi(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	a := newAgent(tb, Pi)
	a.APIKey = "sk-mock-pi"
	agentDir := filepath.Join(a.Home, ".pi", "agent")
	writeJSON(tb, filepath.Join(agentDir, "models.json"), map[string]any{
		"providers": map[string]any{"mock": map[string]any{
			"baseUrl": modelURL + "/v1",
			"api":     "openai-completions",
			"apiKey":  "MOCK_API_KEY", // the name of the env var holding the key
			"compat":  map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
			"models": []any{map[string]any{
				"id": "mock-model", "name": "Mock Model", "reasoning": false, "input": []string{"text"},
				"contextWindow": 128000, "maxTokens": 4096,
			}},
		}},
	})
	_, version, _ := Pi.Pinned()
	writeJSON(tb, filepath.Join(agentDir, "settings.json"), map[string]any{
		"defaultProvider": "mock", "defaultModel": "mock-model", "lastChangelogVersion": version,
	})
	a.Env = append(a.Env,
		"PI_CODING_AGENT_DIR="+agentDir,
		"PI_OFFLINE=1",
		"PI_SKIP_VERSION_CHECK=1",
		"PI_TELEMETRY=0",
		"MOCK_API_KEY="+a.APIKey,
	)
	// The footer names the model once the editor is live.
	a.Ready = regexp.MustCompile(`mock-model`)
	a.quit = func(t *Term) { t.Key("C-d") }
	return a
}

// freePort asks the kernel for a free 127.0.0.1 port. Another process could
// take it before OpenCode binds it; on this loopback-only test box that
// window is accepted.
func freePort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("agenttest: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func mkdir(tb testing.TB, dir string) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
}

func writeFile(tb testing.TB, path, content string) {
	tb.Helper()
	mkdir(tb, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
}

func writeJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
	writeFile(tb, path, string(b)+"\n")
}
