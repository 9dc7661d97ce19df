// Package agenttest drives the real, pinned agent CLIs (Claude Code, Codex,
// OpenCode, Pi, Kimi) for end-to-end tests: it finds them where
// .ci/install-agents put them, writes a throw-away HOME configured against a
// mockmodel server, and runs each CLI interactively in tmux on a private
// socket, typing and reading the screen like a person would.
//
// It is the testing.TB face of internal/testkit/agentenv, which holds the recipes
// and the tmux driver: here a missing CLI skips the test (fails under
// E2E_REQUIRED=1), errors fail it, and everything is closed by tb.Cleanup.
// It is test-support code imported by _test files and keeps no
// package-level state. It must never touch the real HOME, the user's tmux
// server, or any process it did not start.
package agenttest

import (
	"errors"
	"os"
	"testing"

	"paddock/internal/testkit/agentenv"
)

// CLI names an agent program; the value is its command name in
// $PADDOCK_AGENTS/bin. Pinned gives the npm package and version
// .ci/install-agents installs.
type CLI = agentenv.CLI

const (
	Claude   = agentenv.Claude
	Codex    = agentenv.Codex
	OpenCode = agentenv.OpenCode
	Pi       = agentenv.Pi
	// Kimi is optional in .ci/install-agents.
	Kimi = agentenv.Kimi
)

// EnvAgents names the install prefix; EnvRequired=1 turns "not installed"
// from a skip into a failure (CI sets it).
const (
	EnvAgents   = agentenv.EnvAgents
	EnvRequired = "E2E_REQUIRED"
)

// AgentsDir returns the install prefix of the pinned CLIs:
// $PADDOCK_AGENTS, default $HOME/.cache/paddock/agents. When it has no bin/
// directory the test is skipped with a message naming `make e2e-deps`, or
// fails under E2E_REQUIRED=1.
func AgentsDir(tb testing.TB) string {
	tb.Helper()
	dir, err := agentenv.AgentsDir()
	check(tb, err)
	return dir
}

// Bin returns the command that runs cli, after checking that the installed
// package is the pinned version (a stale cache would silently test
// something else).
func Bin(tb testing.TB, cli CLI) string {
	tb.Helper()
	bin, err := agentenv.Bin(cli)
	check(tb, err)
	return bin
}

// check skips on an *agentenv.MissingError (or fails under
// E2E_REQUIRED=1), and fails the test on any other error.
func check(tb testing.TB, err error) {
	tb.Helper()
	if err == nil {
		return
	}
	var me *agentenv.MissingError
	if errors.As(err, &me) {
		missing(tb, me.Error())
	}
	tb.Fatalf("agenttest: %v", err)
}

// missing skips, or fails under E2E_REQUIRED=1; msg says what is missing
// and how to install it.
func missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv(EnvRequired) == "1" {
		tb.Fatal(EnvRequired + "=1 but " + msg)
	}
	tb.Skip(msg)
}
