package agenttest

import (
	"context"
	"regexp"
	"testing"

	"paddock/internal/testkit/agentenv"
)

// Agent is one CLI configured in a throw-away HOME against a mock model,
// ready to Start. The recipes are agentenv's (from
// what each CLI was verified to need); fields may be adjusted before Start
// (append to Argv, change Env).
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
	// Dialogs are the CLI's approval and question prompts and their keys.
	Dialogs agentenv.Dialogs

	quit func(*Term) // types the CLI's own exit command
}

// New returns the Agent for cli in a fresh tb.TempDir() HOME; see
// NewClaude, NewCodex, NewOpenCode and NewPi. modelURL is the mock's base
// URL without /v1 (mockmodel.Server.URL).
func New(tb testing.TB, cli CLI, modelURL string) *Agent {
	tb.Helper()
	bin := Bin(tb, cli)
	s, err := agentenv.New(cli, agentenv.Config{Home: tb.TempDir(), ModelURL: modelURL, Bin: bin})
	check(tb, err)
	return FromSetup(s)
}

// FromSetup wraps an agentenv.Setup (say, one made in a HOME of the
// caller's choosing) as an Agent.
func FromSetup(s *agentenv.Setup) *Agent {
	exit := s.Exit
	return &Agent{
		CLI: s.CLI, Home: s.Home, Cwd: s.Cwd,
		Env:     append([]string(nil), s.Env...),
		Argv:    append([]string(nil), s.Argv...),
		Ready:   s.Ready,
		APIKey:  s.APIKey,
		Port:    s.Port,
		Dialogs: s.Dialogs,
		quit: func(t *Term) {
			t.tb.Helper()
			if exit.Text != "" {
				t.Type(exit.Text)
			} else {
				t.Key(exit.Keys...)
			}
		},
	}
}

// Start runs the agent in a Term (closed by tb.Cleanup).
func (a *Agent) Start(tb testing.TB) *Term {
	tb.Helper()
	return Start(tb, Spec{Name: string(a.CLI), Argv: a.Argv, Env: a.Env, Dir: a.Cwd})
}

// Setenv sets (or replaces) one variable in a.Env.
func (a *Agent) Setenv(key, value string) {
	s := agentenv.Setup{Env: a.Env}
	s.Setenv(key, value)
	a.Env = s.Env
}

// Quit exits the CLI the way a person would (its exit command or key) and
// waits until it has ended. The Term stays usable for Screen.
func (a *Agent) Quit(ctx context.Context, t *Term) (string, error) {
	a.quit(t)
	return t.WaitExit(ctx)
}

// ClaudeAPIKey is the key Claude Code is given; its last 20 characters are
// pre-approved in ~/.claude.json.
const ClaudeAPIKey = agentenv.ClaudeAPIKey

// NewClaude configures Claude Code: onboarding done, the project trusted
// and the API key approved in ~/.claude.json (else the TUI stops at those
// screens), ANTHROPIC_BASE_URL at the mock, non-essential traffic and the
// auto-updater off, and --permission-mode default so tool calls prompt
// (2.1.328 defaults to auto; bypassPermissions is refused as root).
func NewClaude(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	return New(tb, Claude, modelURL)
}

// CodexBypassHookTrust is the flag that lets Codex run hooks from
// hooks.json without the trust-by-hash review; hook tests append it to Argv.
const CodexBypassHookTrust = agentenv.CodexBypassHookTrust

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
	return New(tb, Codex, modelURL)
}

// NewOpenCode configures OpenCode: an @ai-sdk/openai-compatible provider at
// the mock (also used for titles), permission bash/edit = ask, updates,
// sharing and the models.dev fetch off, XDG dirs inside the fake HOME, and
// --port so the TUI's own HTTP server (sessions, permissions) is reachable
// on 127.0.0.1:a.Port.
func NewOpenCode(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	return New(tb, OpenCode, modelURL)
}

// NewPi configures Pi: a custom "mock" provider (openai-completions) in
// ~/.pi/agent/models.json as the default model, offline mode (no fd/rg
// downloads, no version check, no telemetry), and the changelog marked as
// seen.
func NewPi(tb testing.TB, modelURL string) *Agent {
	tb.Helper()
	return New(tb, Pi, modelURL)
}
