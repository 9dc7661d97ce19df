// Package agentenv prepares the real, pinned agent CLIs (Claude Code, Codex,
// OpenCode, Pi, Kimi Code) to run against a mockmodel server: it finds them
// where .ci/install-agents put them (Bin), writes a throw-away HOME with each
// CLI's configuration (New, from the recipes in
// what each CLI was verified to need), and runs them interactively in tmux on a
// private socket (Tmux, Pane), typing and reading the screen like a person.
//
// It serves the end-to-end tests (through internal/testkit/agenttest), `make demo`
// and `make fixtures`; it is not part of the paddock binary. It returns
// errors and keeps no package-level state. It must never touch the real
// HOME, the user's own tmux server, or a process it did not start.
package agentenv

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// CLI names an agent program; the value is its command name in
// $PADDOCK_AGENTS/bin.
type CLI string

const (
	Claude   CLI = "claude"
	Codex    CLI = "codex"
	OpenCode CLI = "opencode"
	Pi       CLI = "pi"
	// Kimi is optional in .ci/install-agents (it needs its own Node 22).
	Kimi CLI = "kimi"
)

// CLIs lists every CLI agentenv can drive, required ones first.
func CLIs() []CLI { return []CLI{Claude, Codex, OpenCode, Pi, Kimi} }

// Pinned returns the npm package and version of cli, as installed by
// .ci/install-agents (keep the two in step). The recipes, screens and keys
// here were verified against exactly these versions.
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
	case Kimi:
		return "@moonshot-ai/kimi-code", "2.1.0", true
	}
	return "", "", false
}

// Version is the pinned version of cli ("" for an unknown CLI).
func (cli CLI) Version() string {
	_, v, _ := cli.Pinned()
	return v
}

// npmPrefix is where cli's package is installed under the agents dir: Kimi
// has a prefix of its own (with its own Node).
func (cli CLI) npmPrefix(agents string) string {
	if cli == Kimi {
		return filepath.Join(agents, "kimi")
	}
	return agents
}

// EnvAgents names the install prefix of the pinned CLIs.
const EnvAgents = "PADDOCK_AGENTS"

// MissingError says that something the CLIs need is not installed (the
// pinned CLI, tmux). Callers that can go on without it (a test that skips,
// the demo that leaves one agent out) check for it with errors.As.
type MissingError struct {
	What string // e.g. "codex not installed (/x/bin/codex missing)"
	Fix  string // how to install it; default: make e2e-deps
}

func (e *MissingError) Error() string {
	fix := e.Fix
	if fix == "" {
		fix = "run `make e2e-deps` (.ci/install-agents) or set " + EnvAgents
	}
	return e.What + "; " + fix
}

// AgentsDir returns the install prefix of the pinned CLIs: $PADDOCK_AGENTS,
// default $HOME/.cache/paddock/agents. It is a *MissingError when the
// prefix has no bin/ directory.
func AgentsDir() (string, error) {
	dir := os.Getenv(EnvAgents)
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", &MissingError{What: "cannot find the agent CLIs: no $HOME and no $" + EnvAgents}
		}
		dir = filepath.Join(home, ".cache", "paddock", "agents")
	}
	if st, err := os.Stat(filepath.Join(dir, "bin")); err != nil || !st.IsDir() {
		return "", &MissingError{What: fmt.Sprintf("agent CLIs not installed in %s", dir)}
	}
	return dir, nil
}

// AxeScript is axe-core's browser bundle, installed beside the CLIs (it is
// pinned with them in .ci/install-agents); a *MissingError when it is not.
func AxeScript() ([]byte, error) {
	dir, err := AgentsDir()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		return nil, &MissingError{What: "axe-core not installed in " + dir}
	}
	return b, nil
}

// Bin returns the command that runs cli, after checking that the installed
// package is the pinned version (a stale cache would silently run something
// else). Not installed, or not at the pinned version, is a *MissingError.
func Bin(cli CLI) (string, error) {
	pkg, version, ok := cli.Pinned()
	if !ok {
		return "", fmt.Errorf("agentenv: unknown CLI %q", cli)
	}
	dir, err := AgentsDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin", string(cli))
	if _, err := os.Stat(bin); err != nil {
		return "", &MissingError{What: fmt.Sprintf("%s not installed (%s missing)", cli, bin)}
	}
	pj := filepath.Join(cli.npmPrefix(dir), "node_modules", filepath.FromSlash(pkg), "package.json")
	var meta struct{ Version string }
	data, err := os.ReadFile(pj)
	if err == nil {
		err = json.Unmarshal(data, &meta)
	}
	if err != nil {
		return "", &MissingError{What: fmt.Sprintf("%s: cannot read %s: %v", cli, pj, err)}
	}
	if meta.Version != version {
		return "", &MissingError{What: fmt.Sprintf("%s is %s@%s, want the pinned %s", cli, pkg, meta.Version, version)}
	}
	return bin, nil
}
