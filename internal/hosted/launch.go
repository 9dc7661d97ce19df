package hosted

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"strconv"

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

// recipe is how paddock starts one runtime's interactive CLI in a hosted
// terminal. It is the only place that knows each CLI's flags; each flag
// used is checked against the installed CLI's --help at start-up (Probe).
type recipe struct {
	bins []string // executable names, first found on PATH wins
	// fresh is the arguments that start a new session; sessionID is the id
	// paddock chose when the CLI accepts one (choosesID), else "".
	fresh     func(sessionID string) []string
	choosesID bool
	// resume is the arguments that reopen session id (transcript is its
	// history file, for CLIs that take a file). Never --continue: it may
	// attach to an unrelated conversation.
	resume func(id, transcript string) []string
	// server: the CLI serves its own HTTP API on --port (OpenCode), which
	// answers permissions and questions (issue 6): every start gets a port
	// paddock knows.
	server bool
	// flags is the launch's options as arguments, for new and resumed
	// agents alike.
	flags   func(l Launch) []string
	modes   []string // permission modes it accepts; nil: none
	efforts []string // effort levels it accepts; nil: none
	named   bool     // it takes a session name
	// help lists what its --help must show for the flags above to be
	// trusted; resumeHelp what resuming needs.
	help, resumeHelp []string
}

// claudeModes are Claude Code 2.1.328's --permission-mode values (its
// --help), plus "default", which it still takes for "manual".
var claudeModes = []string{"manual", "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"}

// optional appends flag and value when value is set.
func optional(a []string, flag, value string) []string {
	if value == "" {
		return a
	}
	return append(a, flag, value)
}

var recipes = map[string]recipe{
	// Claude Code 2.1.328: --session-id, --resume, --permission-mode,
	// --model, --effort (low … max), -n/--name.
	"claude": {bins: []string{"claude"}, choosesID: true, modes: claudeModes,
		efforts: []string{"low", "medium", "high", "xhigh", "max"}, named: true,
		fresh:  func(id string) []string { return []string{"--session-id", id} },
		resume: func(id, _ string) []string { return []string{"--resume", id} },
		flags: func(l Launch) []string {
			a := optional(nil, "--permission-mode", l.PermissionMode)
			a = optional(a, "--model", l.Model)
			a = optional(a, "--effort", l.Effort)
			return optional(a, "--name", l.Name)
		},
		help:       []string{"--session-id", "--permission-mode", "--model", "--effort", "--name"},
		resumeHelp: []string{"--resume"}},
	// Codex 0.169.0: `codex resume ID`, --ask-for-approval, --model, and
	// the reasoning effort as the config key model_reasoning_effort.
	"codex": {bins: []string{"codex"}, modes: []string{"on-request", "never"},
		efforts: []string{"minimal", "low", "medium", "high", "xhigh"},
		fresh:   func(string) []string { return nil },
		resume:  func(id, _ string) []string { return []string{"resume", id} },
		flags: func(l Launch) []string {
			a := optional(nil, "--ask-for-approval", l.PermissionMode)
			a = optional(a, "--model", l.Model)
			if l.Effort != "" {
				a = append(a, "--config", "model_reasoning_effort="+strconv.Quote(l.Effort))
			}
			return a
		},
		help:       []string{"--ask-for-approval", "--model", "--config"},
		resumeHelp: []string{"resume"}},
	// OpenCode 1.18.33: -s/--session, --port, -m/--model.
	"opencode": {bins: []string{"opencode"}, server: true,
		fresh:      func(string) []string { return nil },
		resume:     func(id, _ string) []string { return []string{"--session", id} },
		flags:      func(l Launch) []string { return optional(nil, "--model", l.Model) },
		help:       []string{"--port", "--model"},
		resumeHelp: []string{"--session"}},
	// Pi 0.73.1: --session <path|id>, --model, --thinking (off … xhigh).
	"pi": {bins: []string{"pi"}, efforts: []string{"off", "minimal", "low", "medium", "high", "xhigh"},
		fresh:  func(string) []string { return nil },
		resume: func(id, transcript string) []string { return []string{"--session", cmp.Or(transcript, id)} },
		flags: func(l Launch) []string {
			return optional(optional(nil, "--model", l.Model), "--thinking", l.Effort)
		},
		help:       []string{"--model", "--thinking"},
		resumeHelp: []string{"--session"}},
	// Kimi Code 2.1.0: -S/--session ID, -m/--model.
	"kimi": {bins: []string{"kimi"},
		fresh:      func(string) []string { return nil },
		resume:     func(id, _ string) []string { return []string{"--session", id} },
		flags:      func(l Launch) []string { return optional(nil, "--model", l.Model) },
		help:       []string{"--model"},
		resumeHelp: []string{"--session"}},
	// Cursor Agent CLI (from its documentation; not installable here):
	// --resume ID, --model.
	"cursor": {bins: []string{"cursor-agent"},
		fresh:      func(string) []string { return nil },
		resume:     func(id, _ string) []string { return []string{"--resume", id} },
		flags:      func(l Launch) []string { return optional(nil, "--model", l.Model) },
		help:       []string{"--model"},
		resumeHelp: []string{"--resume"}},
}

// argv is the command line of an agent: the binary, base (new-session or
// resume arguments), its server port and the launch's flags.
func (rc recipe) argv(bin string, base []string, l Launch) ([]string, error) {
	a := append([]string{bin}, base...)
	if rc.server {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		a = append(a, "--port", strconv.Itoa(port))
	}
	return append(a, rc.flags(l)...), nil
}

// Runtimes lists the runtimes paddock can host, sorted.
func Runtimes() []string {
	out := make([]string, 0, len(recipes))
	for k := range recipes {
		out = append(out, k)
	}
	slices.Sort(out)
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
