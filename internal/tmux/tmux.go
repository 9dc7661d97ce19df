// Package tmux runs paddock's hosted agent sessions on paddock's own tmux
// server and drives them: start a window running an agent, type literal
// text, paste multi-line text, press named keys, read the screen (with
// scroll-back), tell whether the program still runs and how it ended, list
// and kill windows, and reconcile what paddock believes with what the server
// holds after a crash.
//
// The server is dedicated. Its socket lives in paddock's data directory
// (<data>/tmux/paddock.sock, directory mode 0700) and every invocation names
// it with -S; it starts with -f /dev/null and paddock's own options. This
// package must never read the user's tmux configuration, talk to the user's
// default tmux server, or run anything through a shell: each tmux invocation
// is an explicit argv, and text, keys, paths and environment reach tmux as
// single arguments, escaped where tmux itself would reinterpret them. Text
// sent to a pane may be a secret: it never appears in an error or a log.
//
// A Server holds no mutable state beyond per-pane send locks, starts no
// goroutine, and is safe for concurrent use.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Defaults for Options.
const (
	DefaultWidth        = 200
	DefaultHeight       = 50
	DefaultHistoryLimit = 10000
	DefaultTerminal     = "tmux-256color"
	DefaultTimeout      = 10 * time.Second
)

// SocketName is the server's socket file inside <data>/tmux.
const SocketName = "paddock.sock"

// maxSocketPath is the longest socket path every platform accepts
// (sun_path is 104 bytes on macOS and the BSDs, 108 on Linux, NUL included).
const maxSocketPath = 103

// minMajor.minMinor is the oldest tmux supported: 3.2 added new-session -e,
// which hands a window its environment without a shell.
const minMajor, minMinor = 3, 2

// Options configure a Server. The zero value gives the defaults.
type Options struct {
	// Env is the environment of the tmux server when paddock starts it,
	// and so the base environment of every window (Window.Env is added on
	// top). Default: this process's environment without TMUX and
	// TMUX_PANE. A server that is already running keeps the environment it
	// started with.
	Env []string
	// Width and Height are the size of new windows (DefaultWidth ×
	// DefaultHeight): wide enough that agents do not wrap the lines paddock
	// reads. Windows keep their size whoever attaches (window-size manual).
	Width, Height int
	// HistoryLimit is how many lines of scroll-back each pane keeps
	// (DefaultHistoryLimit).
	HistoryLimit int
	// Terminal is TERM inside the panes (DefaultTerminal).
	Terminal string
	// Timeout bounds every tmux invocation, within the caller's context
	// (DefaultTimeout): a wedged server must not hang a handler.
	Timeout time.Duration
}

// Server is paddock's tmux server. Create it with New; the zero value is not
// usable. The server process itself starts with the first NewWindow and
// exits when its last window is killed (exit-empty on): paddock never leaves
// an idle tmux behind, and hosted sessions outlive a paddock restart.
type Server struct {
	bin          string // tmux
	envBin       string // env(1): runs a one-word Argv without tmux's sh -c
	socket       string
	env          []string // environment of every tmux client process
	width        int
	height       int
	historyLimit int
	terminal     string
	timeout      time.Duration
	version      version
	sends        [sendStripes]chan struct{} // see lockPane
}

// New prepares paddock's tmux server under dataDir: it finds tmux (a
// missing tmux is ErrNoTmux, one older than 3.2 ErrTooOld) and creates
// <dataDir>/tmux with mode 0700. It does not start the server.
func New(ctx context.Context, dataDir string, opts Options) (*Server, error) {
	if dataDir == "" {
		return nil, errors.New("tmux: no data directory")
	}
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return nil, fmt.Errorf("%w: %v (install tmux, e.g. apt-get install tmux)", ErrNoTmux, err)
	}
	envBin, err := exec.LookPath("env")
	if err != nil {
		envBin = "/usr/bin/env"
	}
	s := &Server{
		bin:          bin,
		envBin:       envBin,
		width:        orDefault(opts.Width, DefaultWidth),
		height:       orDefault(opts.Height, DefaultHeight),
		historyLimit: orDefault(opts.HistoryLimit, DefaultHistoryLimit),
		terminal:     opts.Terminal,
		timeout:      opts.Timeout,
	}
	if s.terminal == "" {
		s.terminal = DefaultTerminal
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if err := checkSize(s.width, s.height); err != nil {
		return nil, err
	}
	if s.historyLimit < 0 || s.historyLimit > 1_000_000 {
		return nil, fmt.Errorf("tmux: history limit %d out of range 0–1000000", s.historyLimit)
	}
	if s.version, err = s.readVersion(ctx); err != nil {
		return nil, err
	}
	if !s.version.atLeast(minMajor, minMinor) {
		return nil, fmt.Errorf("%w: tmux %s, paddock needs %d.%d or newer", ErrTooOld, s.version, minMajor, minMinor)
	}

	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, fmt.Errorf("tmux: data directory: %w", err)
	}
	dir := filepath.Join(abs, "tmux")
	s.socket = filepath.Join(dir, SocketName)
	if len(s.socket) > maxSocketPath {
		return nil, fmt.Errorf("tmux: socket path %s is %d bytes, longer than the %d a unix socket allows; use a shorter data directory",
			s.socket, len(s.socket), maxSocketPath)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tmux: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("tmux: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("tmux: %s is not a directory", dir)
	}
	if st.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, fmt.Errorf("tmux: %w", err)
		}
	}

	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	for _, kv := range env {
		// The user's tmux must stay out of it: paddock may itself run
		// inside one.
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		s.env = append(s.env, kv)
	}
	if s.env == nil {
		s.env = []string{} // never nil: a nil Env would make exec inherit ours
	}
	for i := range s.sends {
		s.sends[i] = make(chan struct{}, 1)
	}
	return s, nil
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Socket is the server's socket: `tmux -S Socket() attach -t NAME` watches
// a hosted session from a terminal.
func (s *Server) Socket() string { return s.socket }

// Version is the tmux version in use, e.g. "3.3a".
func (s *Server) Version() string { return s.version.String() }

// readVersion runs tmux -V.
func (s *Server) readVersion(ctx context.Context) (version, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.bin, "-V")
	cmd.Env = []string{}
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return version{}, fmt.Errorf("tmux: %s -V: %w", s.bin, err)
	}
	return parseVersion(strings.TrimSpace(string(out))), nil
}

// version is tmux's major.minor; unknown (a "master" build) counts as new.
type version struct {
	major, minor int
	text         string
}

var versionRE = regexp.MustCompile(`(\d+)\.(\d+)`)

// parseVersion reads `tmux -V` output: "tmux 3.3a", "tmux next-3.4",
// "tmux master".
func parseVersion(s string) version {
	v := version{text: strings.TrimPrefix(s, "tmux ")}
	m := versionRE.FindStringSubmatch(s)
	if m == nil {
		v.major = 1 << 20 // a development build: assume it has everything
		return v
	}
	v.major, _ = strconv.Atoi(m[1])
	v.minor, _ = strconv.Atoi(m[2])
	return v
}

func (v version) atLeast(major, minor int) bool {
	return v.major > major || v.major == major && v.minor >= minor
}

func (v version) String() string { return v.text }

// command is one tmux command: its name and arguments.
type command []string

// call is one tmux client invocation: commands run in order (joined by
// tmux's ";" separator), with optional standard input.
type call struct {
	cmds  []command
	stdin io.Reader
	// op names the call in errors; default: the last command.
	op command
	// secret is text being sent; scrubbed from anything tmux says.
	secret string
}

// run runs one tmux client against paddock's socket and returns its
// standard output. A failure is an *Error.
func (s *Server) run(ctx context.Context, c call) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	// -u: output stays UTF-8 (and byte-exact: a non-UTF-8 client gets
	// non-ASCII replaced) whatever the locale. -f /dev/null: a server
	// this client starts reads no configuration file at all.
	argv := []string{"-u", "-f", "/dev/null", "-S", s.socket}
	for i, cmd := range c.cmds {
		if i > 0 {
			argv = append(argv, ";")
		}
		argv = append(argv, cmd[0])
		for _, a := range cmd[1:] {
			argv = append(argv, escapeArg(a))
		}
	}
	cmd := exec.CommandContext(ctx, s.bin, argv...)
	cmd.Env = s.env
	// A paddock-owned working directory: a server this client starts, and
	// anything tmux resolves against the client's directory, land here.
	cmd.Dir = filepath.Dir(s.socket)
	cmd.Stdin = c.stdin
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	op := c.op
	if op == nil {
		op = c.cmds[len(c.cmds)-1]
	}
	e := &Error{Op: op[0], Target: targetOf(op), Stderr: scrub(stderr.String(), c.secret)}
	switch {
	case ctx.Err() != nil:
		e.Err = ctx.Err()
	default:
		e.Err = classify(e.Stderr)
		if e.Err == nil {
			e.Err = err
		}
	}
	return stdout.String(), e
}

// escapeArg protects an argument from tmux's own command splitting: tmux
// reads any argument ending in ';' as "end of command" (dropping the ';' and
// treating what follows as a new command), and "\;" at the end as a literal
// ';'. Putting a '\' before a final ';' makes every string arrive exactly as
// given.
func escapeArg(a string) string {
	if strings.HasSuffix(a, ";") {
		return a[:len(a)-1] + `\;`
	}
	return a
}

// escapeFormat protects a value tmux expands as a format (new-session's -c
// start directory): "#(cmd)" there would run cmd through a shell.
func escapeFormat(a string) string { return strings.ReplaceAll(a, "#", "##") }

// targetOf is the -t (or -s) argument of a command, for error messages.
func targetOf(cmd command) string {
	for i := 1; i+1 < len(cmd); i++ {
		if cmd[i] == "-t" || cmd[i] == "-s" {
			return cmd[i+1]
		}
	}
	return ""
}
