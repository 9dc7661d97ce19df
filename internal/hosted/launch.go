package hosted

import (
	"cmp"
	"crypto/rand"
	"fmt"
	"net"
	"slices"
	"strconv"
)

// recipe is how paddock starts one runtime's interactive CLI in a hosted
// terminal. It is the only place that knows each CLI's flags.
type recipe struct {
	bins []string // executable names, first found on PATH wins
	// args builds the arguments after the binary. sessionID is the id
	// paddock chose when the CLI accepts one ("" otherwise).
	args func(r Request, sessionID string) ([]string, error)
	// choosesID: the CLI takes a session id from paddock (claude
	// --session-id), so hooks match the card from the first event.
	choosesID bool
	modes     []string // permission modes it accepts; nil: none
	// resume is the arguments that reopen session id (transcript is its
	// history file, for CLIs that take a file). Never --continue: it may
	// attach to an unrelated conversation.
	resume func(id, transcript string) []string
}

// claudeModes are Claude Code 2.1.328's --permission-mode values (its
// --help), plus "default", which it still takes for "manual".
var claudeModes = []string{"manual", "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"}

var recipes = map[string]recipe{
	"claude": {bins: []string{"claude"}, choosesID: true, modes: claudeModes,
		resume: func(id, _ string) []string { return []string{"--resume", id} },
		args: func(r Request, id string) ([]string, error) {
			a := []string{"--session-id", id}
			if r.PermissionMode != "" {
				a = append(a, "--permission-mode", r.PermissionMode)
			}
			if r.Model != "" {
				a = append(a, "--model", r.Model)
			}
			return a, nil
		}},
	"codex": {bins: []string{"codex"}, modes: []string{"on-request", "never"}, // --ask-for-approval (0.169.0)
		resume: func(id, _ string) []string { return []string{"resume", id} },
		args: func(r Request, _ string) ([]string, error) {
			var a []string
			if r.PermissionMode != "" {
				a = append(a, "--ask-for-approval", r.PermissionMode)
			}
			if r.Model != "" {
				a = append(a, "--model", r.Model)
			}
			return a, nil
		}},
	"opencode": {bins: []string{"opencode"},
		resume: func(id, _ string) []string { return []string{"--session", id} },
		args: func(r Request, _ string) ([]string, error) {
			// Its HTTP server answers permissions and questions (issue 6):
			// on a port paddock knows.
			port, err := freePort()
			if err != nil {
				return nil, err
			}
			a := []string{"--port", strconv.Itoa(port)}
			if r.Model != "" {
				a = append(a, "--model", r.Model)
			}
			return a, nil
		}},
	"pi": {bins: []string{"pi"}, args: modelOnly("--model"),
		resume: func(id, transcript string) []string { return []string{"--session", cmp.Or(transcript, id)} }},
	"kimi": {bins: []string{"kimi"}, resume: func(id, _ string) []string { return []string{"--session", id} },
		args: func(r Request, _ string) ([]string, error) {
			if r.Model != "" {
				return []string{"--model", r.Model}, nil
			}
			return nil, nil
		}},
	"cursor": {bins: []string{"cursor-agent"}, args: modelOnly("--model"),
		resume: func(id, _ string) []string { return []string{"--resume", id} }},
}

func modelOnly(flag string) func(Request, string) ([]string, error) {
	return func(r Request, _ string) ([]string, error) {
		if r.Model != "" {
			return []string{flag, r.Model}, nil
		}
		return nil, nil
	}
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
