// Package agenttest drives the real, pinned agent CLIs (Claude Code, Codex,
// OpenCode, Pi) for end-to-end tests: it finds them where
// .ci/install-agents put them, writes a throw-away HOME configured against a
// mockmodel server, and runs each CLI interactively in tmux on a private
// socket, typing and reading the screen like a person would.
//
// It is test-support code imported by _test files: every helper takes a
// testing.TB, and it keeps no package-level state. It must never touch the
// real HOME, the user's tmux server, or any process it did not start.
package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// CLI names an agent program; the value is its command name in
// $PADDOCK_AGENTS/bin.
type CLI string

const (
	Claude   CLI = "claude"
	Codex    CLI = "codex"
	OpenCode CLI = "opencode"
	Pi       CLI = "pi"
)

// Pinned returns the npm package and version of cli, as installed by
// .ci/install-agents (keep the two in step). The drivers' screens and
// configs were verified against exactly these versions.
func (cli CLI) Pinned() (pkg, version string, ok bool) {
	switch cli {
	case Claude:
		return "@anthropic-ai/claude-code", "2.1.328", true
	case Codex:
		return "@openai/codex", "0.169.0", true
	case OpenCode:
		return "opencode-ai", "1.18.33", true
	case Pi:
		return "@mariozechner/pi-coding-agent", "0.73.1", true
	}
	return "", "", false
}

// EnvAgents names the install prefix; EnvRequired=1 turns "not installed"
// from a skip into a failure (CI sets it).
const (
	EnvAgents   = "PADDOCK_AGENTS"
	EnvRequired = "E2E_REQUIRED"
)

// AgentsDir returns the install prefix of the pinned CLIs:
// $PADDOCK_AGENTS, default $HOME/.cache/paddock/agents. When it has no bin/
// directory the test is skipped with a message naming `make e2e-deps`, or
// fails under E2E_REQUIRED=1.
func AgentsDir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv(EnvAgents)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			missing(tb, "cannot find the agent CLIs: no $HOME and no $"+EnvAgents)
		}
		dir = filepath.Join(home, ".cache", "paddock", "agents")
	}
	if st, err := os.Stat(filepath.Join(dir, "bin")); err != nil || !st.IsDir() {
		missing(tb, fmt.Sprintf("agent CLIs not installed in %s", dir))
	}
	return dir
}

// Bin returns the command that runs cli, after checking that the installed
// package is the pinned version (a stale cache would silently test
// something else).
func Bin(tb testing.TB, cli CLI) string {
	tb.Helper()
	dir := AgentsDir(tb)
	pkg, version, ok := cli.Pinned()
	if !ok {
		tb.Fatalf("agenttest: unknown CLI %q", cli)
	}
	bin := filepath.Join(dir, "bin", string(cli))
	if _, err := os.Stat(bin); err != nil {
		missing(tb, fmt.Sprintf("%s not installed (%s missing)", cli, bin))
	}
	pj := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")
	var meta struct{ Version string }
	data, err := os.ReadFile(pj)
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	if err != nil {
		missing(tb, fmt.Sprintf("%s: cannot read %s: %v", cli, pj, err))
	}
	if meta.Version != version {
		missing(tb, fmt.Sprintf("%s is %s@%s, want the pinned %s", cli, pkg, meta.Version, version))
	}
	return bin
}

// missing skips, or fails under E2E_REQUIRED=1, with the fix in the message.
func missing(tb testing.TB, why string) {
	tb.Helper()
	msg := why + "; run `make e2e-deps` (.ci/install-agents) or set " + EnvAgents
	if os.Getenv(EnvRequired) == "1" {
		tb.Fatal(EnvRequired + "=1 but " + msg)
	}
	tb.Skip(msg)
}
