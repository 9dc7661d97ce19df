package tmux

import (
	"context"
	"errors"
	"strings"
)

// Errors to test with errors.Is. Failures of a tmux invocation are *Error
// and wrap one of the first three when tmux's answer says so.
var (
	// ErrNoServer: paddock's tmux server is not running (never started,
	// exited with its last window, or crashed).
	ErrNoServer = errors.New("tmux: server not running")
	// ErrNoPane: the pane, window or session is not on the server (killed,
	// or a reference from before a server restart).
	ErrNoPane = errors.New("tmux: no such pane")
	// ErrExists: a session of that name is already on the server.
	ErrExists = errors.New("tmux: session exists")

	// ErrBadName: a session name, pane reference, directory, environment
	// variable or command line that paddock will not pass to tmux.
	ErrBadName = errors.New("tmux: bad name")
	// ErrBadKey: a key name outside the allowlist (see SendKeys).
	ErrBadKey = errors.New("tmux: key not allowed")
	// ErrBadText: text that is not valid UTF-8 or holds control characters
	// that would act as keys (see SendText and Paste).
	ErrBadText = errors.New("tmux: text not allowed")
	// ErrTooLong: text over MaxText bytes.
	ErrTooLong = errors.New("tmux: text too long")

	// ErrNoTmux: tmux is not installed.
	ErrNoTmux = errors.New("tmux: not installed")
	// ErrTooOld: the installed tmux is older than 3.2.
	ErrTooOld = errors.New("tmux: too old")
)

// Error is a failed tmux invocation. It carries what tmux said on standard
// error (bounded, with any text being sent scrubbed out), never the text
// itself.
type Error struct {
	Op     string // the tmux command, e.g. "send-keys"
	Target string // its -t or -s argument, e.g. "=a1:@3.%3"; may be empty
	Stderr string // tmux's message, e.g. "can't find pane: %3"
	Err    error  // ErrNoServer, ErrNoPane, ErrExists, ErrTooLong, a context error, or the exec error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("tmux ")
	b.WriteString(e.Op)
	if e.Target != "" {
		b.WriteString(" ")
		b.WriteString(e.Target)
	}
	b.WriteString(": ")
	switch {
	case e.Stderr == "" && e.Err != nil:
		b.WriteString(e.Err.Error())
	case e.Stderr == "":
		b.WriteString("failed")
	default:
		b.WriteString(e.Stderr)
		if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
			b.WriteString(" (" + e.Err.Error() + ")")
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// maxStderr bounds the tmux message kept in an Error.
const maxStderr = 512

// scrub trims tmux's message, bounds it, and removes secret (text being
// sent) should tmux ever echo it.
func scrub(stderr, secret string) string {
	s := strings.TrimSpace(stderr)
	if len(secret) >= 3 {
		s = strings.ReplaceAll(s, secret, "[text]")
	}
	if len(s) > maxStderr {
		s = s[:maxStderr] + "…"
	}
	return s
}

// classify maps tmux's messages (3.2–3.4) to the sentinel errors.
func classify(stderr string) error {
	switch {
	case strings.Contains(stderr, "no server running on"),
		strings.Contains(stderr, "error connecting to"),
		strings.Contains(stderr, "server exited unexpectedly"),
		strings.Contains(stderr, "lost server"):
		return ErrNoServer
	case strings.Contains(stderr, "can't find pane"),
		strings.Contains(stderr, "can't find window"),
		strings.Contains(stderr, "can't find session"),
		strings.Contains(stderr, "no current target"):
		return ErrNoPane
	case strings.Contains(stderr, "duplicate session"):
		return ErrExists
	case strings.Contains(stderr, "command too long"):
		return ErrTooLong
	}
	return nil
}
