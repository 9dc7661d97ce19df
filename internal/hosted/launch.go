package hosted

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"slices"

	"paddock/internal/launch"
	"paddock/internal/live"
)

// Launch is how a hosted agent was started. It is kept on the session's
// card (live.Card.Launch), so that Restart and Reconnect start the agent
// the same way again: same directory, name, model, effort and permission
// mode.
type Launch struct {
	Runtime        string `json:"runtime"`
	Workdir        string `json:"workdir"`
	Name           string `json:"name,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	Model          string `json:"model,omitempty"`
	Effort         string `json:"effort,omitempty"`
}

func (l Launch) encode() []byte {
	b, _ := json.Marshal(l)
	return b
}

// launchOf reads a card's saved launch; ok is false when paddock did not
// start it (or the record does not decode).
func launchOf(c live.Card) (Launch, bool) {
	var l Launch
	if len(c.Launch) == 0 || json.Unmarshal(c.Launch, &l) != nil || l.Runtime != c.Key.Runtime {
		return Launch{}, false
	}
	return l, true
}

// options are the launch's choices its CLI takes as flags.
func (l Launch) options() launch.Options {
	return launch.Options{Name: l.Name, PermissionMode: l.PermissionMode, Model: l.Model, Effort: l.Effort}
}

// commandLine is an agent's command line: the binary, base (new-session
// or resume arguments), a free port when the CLI serves its own API, and
// the launch's flags.
func commandLine(rc launch.Recipe, bin string, base []string, l Launch) ([]string, error) {
	var port int
	if rc.Server {
		var err error
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	return rc.Argv(bin, base, port, l.options()), nil
}

// Runtimes lists the runtimes paddock can host (Options.Recipes), sorted.
func (m *Manager) Runtimes() []string {
	return slices.Sorted(maps.Keys(m.opts.Recipes))
}

// bin finds a recipe's executable on PATH; "" when it is not installed.
func (m *Manager) bin(rc launch.Recipe) string {
	for _, name := range rc.Bins {
		if p, err := m.opts.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Installed lists the runtimes whose CLI is on paddock's PATH, sorted.
func (m *Manager) Installed() []string {
	var out []string
	for _, r := range m.Runtimes() {
		if m.bin(m.opts.Recipes[r]) != "" {
			out = append(out, r)
		}
	}
	return out
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("hosted: no free port for the agent's server: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// newUUID is a random (version 4) UUID, the form Claude Code's
// --session-id takes.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newTerminalID names a hosted terminal: PADDOCK_TERMINAL_ID and the tmux
// session name.
func newTerminalID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("pdk-%x", b)
}
