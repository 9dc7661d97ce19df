package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// MaxNameLen bounds a session name.
const MaxNameLen = 64

// Window is what NewWindow starts: one program in a session of its own.
type Window struct {
	// Name names the session and its window: 1–MaxNameLen characters of
	// [A-Za-z0-9_-], starting with a letter or digit, unique on the
	// server. Give each hosted run a name of its own (a card id plus a
	// counter): a name reused after a server restart addresses the new
	// window.
	Name string
	// Dir is the working directory: an absolute path to an existing
	// directory.
	Dir string
	// Env is KEY=VALUE pairs added to the server's environment for this
	// window (each passed with new-session -e, so the program sees them
	// from its first instruction).
	Env []string
	// Argv is the program and its arguments, executed directly (never by
	// a shell, even for a single word).
	Argv []string
	// Width and Height override Options for this window.
	Width, Height int
}

// Pane identifies a hosted window's pane. Every operation addresses it as
// "=Session:Window.ID", which tmux resolves only if all three still belong
// together, so a reference from before a server restart never reaches an
// unrelated pane that happens to reuse the id.
type Pane struct {
	Session string // the Window's Name
	Window  string // window id, "@N"
	ID      string // pane id, "%N"
	PID     int    // the process tmux started in the pane
}

// String is the pane's tmux target, for logs.
func (p Pane) String() string { return p.Session + ":" + p.Window + "." + p.ID }

// target checks p and returns its exact tmux target.
func (p Pane) target() (string, error) {
	if err := CheckName(p.Session); err != nil {
		return "", err
	}
	if !isID(p.Window, '@') || !isID(p.ID, '%') {
		return "", fmt.Errorf("%w: pane reference %q is not session:@N.%%N", ErrBadName, p.String())
	}
	return "=" + p.String(), nil
}

func isID(s string, prefix byte) bool {
	if len(s) < 2 || len(s) > 12 || s[0] != prefix {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// CheckName reports whether name is a valid session name (see
// Window.Name); the error wraps ErrBadName.
func CheckName(name string) error {
	if name == "" || len(name) > MaxNameLen {
		return fmt.Errorf("%w: a session name has 1–%d characters", ErrBadName, MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '-' && c != '_') {
			return fmt.Errorf("%w: a session name holds only A-Z a-z 0-9 _ - and starts with a letter or digit", ErrBadName)
		}
	}
	return nil
}

func checkSize(w, h int) error {
	if w < 20 || w > 1000 || h < 5 || h > 1000 {
		return fmt.Errorf("%w: window size %d×%d outside 20–1000 × 5–1000", ErrBadName, w, h)
	}
	return nil
}

// checkEnv validates KEY=VALUE pairs: a portable variable name and no NUL.
func checkEnv(env []string) error {
	for i, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validEnvKey(k) {
			return fmt.Errorf("%w: environment entry %d is not KEY=VALUE with KEY of [A-Za-z_][A-Za-z0-9_]*", ErrBadName, i)
		}
		if strings.IndexByte(v, 0) >= 0 {
			return fmt.Errorf("%w: environment variable %s holds a NUL byte", ErrBadName, k)
		}
	}
	return nil
}

func validEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// options are paddock's server settings, applied with every NewWindow (a
// server started by an older paddock, or changed by hand, is brought back
// into line) and never read from a file:
//   - remain-on-exit on: an exited agent's window stays, with its last
//     screen and exit status, until paddock has read them and Kills it; an
//     exit is then told apart from a window killed behind paddock's back.
//   - remain-on-exit-format "" (3.3+): no "Pane is dead" line drawn over
//     that last screen.
//   - exit-empty on (tmux's default): the server exits with its last
//     window, so no idle tmux outlives paddock's last hosted session, and
//     the next NewWindow starts a fresh one.
//   - status off, and window-size manual on each new window (see
//     NewWindow): windows keep the size they were created with whether or
//     not someone attaches, so the screens paddock parses never reflow.
//   - automatic-rename and allow-rename off: programs cannot rename the
//     windows paddock finds by name.
//   - history-limit: scroll-back for Capture.
func (s *Server) options() []command {
	cmds := []command{
		{"set-option", "-s", "exit-empty", "on"},
		{"set-option", "-g", "remain-on-exit", "on"},
		{"set-option", "-g", "history-limit", strconv.Itoa(s.historyLimit)},
		{"set-option", "-g", "status", "off"},
		{"set-option", "-g", "automatic-rename", "off"},
		{"set-option", "-g", "allow-rename", "off"},
		{"set-option", "-g", "default-terminal", s.terminal},
	}
	if s.version.atLeast(3, 3) {
		cmds = append(cmds, command{"set-option", "-g", "remain-on-exit-format", ""})
	}
	return cmds
}

// NewWindow starts w.Argv in a new detached session named w.Name, starting
// the server if it is not running. A name already in use is ErrExists;
// invalid input is ErrBadName and starts nothing. A program that cannot be
// executed shows as a dead pane with a non-zero exit status (see Status).
func (s *Server) NewWindow(ctx context.Context, w Window) (Pane, error) {
	if err := CheckName(w.Name); err != nil {
		return Pane{}, err
	}
	if !filepath.IsAbs(w.Dir) || strings.IndexByte(w.Dir, 0) >= 0 {
		return Pane{}, fmt.Errorf("%w: working directory must be an absolute path", ErrBadName)
	}
	if st, err := os.Stat(w.Dir); err != nil || !st.IsDir() {
		return Pane{}, fmt.Errorf("%w: working directory %s does not exist or is not a directory", ErrBadName, w.Dir)
	}
	if err := checkEnv(w.Env); err != nil {
		return Pane{}, err
	}
	if len(w.Argv) == 0 || w.Argv[0] == "" {
		return Pane{}, fmt.Errorf("%w: empty command line", ErrBadName)
	}
	for _, a := range w.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return Pane{}, fmt.Errorf("%w: command line holds a NUL byte", ErrBadName)
		}
	}
	width, height := orDefault(w.Width, s.width), orDefault(w.Height, s.height)
	if err := checkSize(width, height); err != nil {
		return Pane{}, err
	}

	// Only the ids: the child may not have reached its directory yet, so
	// #{pane_current_path} could change while tmux prints it.
	ns := command{"new-session", "-d", "-P", "-F", "#{window_id} #{pane_id} #{pane_pid}",
		"-s", w.Name, "-n", w.Name,
		"-x", strconv.Itoa(width), "-y", strconv.Itoa(height),
		// -c is expanded as a format ("#(…)" would run a shell).
		"-c", escapeFormat(w.Dir)}
	for _, kv := range w.Env {
		ns = append(ns, "-e", kv)
	}
	argv := w.Argv
	if len(argv) == 1 {
		// tmux hands a single-word command to sh -c; env(1) execs it
		// directly, whatever it holds.
		argv = []string{s.envBin, "--", argv[0]}
	}
	ns = append(append(ns, "--"), argv...)

	// window-size is set on the window alone: tmux 3.3a's server dies on
	// a global `set -g window-size manual` (checked on Debian's 3.3a).
	size := command{"set-option", "-w", "-t", "=" + w.Name + ":", "window-size", "manual"}
	out, err := s.run(ctx, call{cmds: append(s.options(), ns, size), op: ns})
	p, perr := parseNewPane(w.Name, out)
	if err != nil || perr != nil {
		if perr == nil {
			// Created, then something failed: leave nothing half-made.
			_ = s.Kill(context.WithoutCancel(ctx), p)
		}
		if err == nil {
			err = fmt.Errorf("tmux: reading the new window %s: %w", w.Name, perr)
		}
		return Pane{}, err
	}
	return p, nil
}

// parseNewPane reads new-session's "@W %P PID" line.
func parseNewPane(session, out string) (Pane, error) {
	f := strings.Fields(out)
	if len(f) != 3 {
		return Pane{}, fmt.Errorf("%w: %q", errRecord, out)
	}
	pid, err := strconv.Atoi(f[2])
	p := Pane{Session: session, Window: f[0], ID: f[1], PID: pid}
	if err != nil || pid <= 0 || !isID(p.Window, '@') || !isID(p.ID, '%') {
		return Pane{}, fmt.Errorf("%w: %q", errRecord, out)
	}
	return p, nil
}

// Kill kills the pane's window (and so its session): tmux closes the
// program's terminal, which sends SIGHUP to its foreground process group;
// a program that ignores SIGHUP outlives its window. A window already gone,
// or no server, is not an error.
func (s *Server) Kill(ctx context.Context, p Pane) error {
	// The full pane target: tmux checks the pane still belongs to the
	// window and session before it kills anything.
	t, err := p.target()
	if err != nil {
		return err
	}
	_, err = s.run(ctx, call{cmds: []command{{"kill-window", "-t", t}}})
	if errors.Is(err, ErrNoPane) || errors.Is(err, ErrNoServer) {
		return nil
	}
	return err
}
