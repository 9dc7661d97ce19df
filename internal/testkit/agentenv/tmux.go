package agentenv

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Spec is what to run in a Pane.
type Spec struct {
	// Name labels the program in messages ("claude") and names its tmux
	// session, so it must be unique on one Tmux and hold no '.' or ':'.
	Name string
	// Argv is the command line; Argv[0] should be an absolute path.
	Argv []string
	// Env is the complete environment: nothing is inherited from the
	// calling process. Tmux adds only its ownership marker (and tmux its
	// own TMUX, TMUX_PANE, TERM).
	Env []string
	// Dir is the working directory.
	Dir string
	// Width and Height of the window; default 200×50 (wide enough that the
	// CLIs do not wrap the lines callers look for).
	Width, Height int
}

// Tmux is a private tmux server on a socket in a fresh temporary directory,
// holding one session per Pane. Close kills every process it started, by
// PID. The developer's own tmux server and configuration are never used.
type Tmux struct {
	bin       string
	dir       string
	socket    string
	marker    string // NAME=VALUE in the environment of everything it starts
	serverPID int

	mu     sync.Mutex
	panes  []*Pane
	closed bool
}

// markerVar is set in the environment of the tmux server and so of every
// process in its panes; Close finds detached leftovers by it.
const markerVar = "PADDOCK_AGENTTEST"

// tmuxConf keeps a dead pane (and its final screen) until Close, so an exit
// can be observed and its last words read, without tmux's "Pane is dead"
// line (printing it can wipe the pane). The server stays up with no
// session (exit-empty off) until Close.
const tmuxConf = `set -s exit-empty off
set -g remain-on-exit on
set -g remain-on-exit-format ""
set -g history-limit 20000
set -g default-terminal tmux-256color
`

// TmuxOptions configure a Tmux.
type TmuxOptions struct {
	// StatusBar shows tmux's status line (session names), for a person
	// attaching with `tmux -S Socket() attach`; off for tests.
	StatusBar bool
}

// NewTmux starts a private tmux server with no session. tmux missing is a
// *MissingError.
func NewTmux(opts TmuxOptions) (*Tmux, error) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return nil, &MissingError{What: "tmux not found on PATH", Fix: "install tmux (e.g. apt-get install tmux)"}
	}
	// Not a test's TempDir: a unix socket path must stay under ~100 bytes.
	dir, err := os.MkdirTemp("", "pdk-tmux-")
	if err != nil {
		return nil, err
	}
	conf := tmuxConf
	if !opts.StatusBar {
		conf += "set -g status off\n"
	}
	confPath := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	x := &Tmux{
		bin:    bin,
		dir:    dir,
		socket: filepath.Join(dir, "sock"),
		marker: markerVar + "=" + hex.EncodeToString(id[:]),
	}
	// The server's environment (the global environment of every pane) is
	// the marker alone; each session gets its Spec's environment with -e.
	if _, err := x.runEnv([]string{x.marker}, "-f", confPath, "start-server"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("agentenv: starting tmux: %w", err)
	}
	out, err := x.run("display-message", "-p", "#{pid}")
	if err == nil {
		_, err = fmt.Sscanf(strings.TrimSpace(out), "%d", &x.serverPID)
	}
	if err != nil {
		x.Close()
		return nil, fmt.Errorf("agentenv: reading the tmux server's pid: %w", err)
	}
	return x, nil
}

// Socket is the server's socket, for `tmux -S Socket() attach`.
func (x *Tmux) Socket() string { return x.socket }

// ServerPID is the tmux server's process id.
func (x *Tmux) ServerPID() int { return x.serverPID }

// run runs a tmux command against this server.
func (x *Tmux) run(args ...string) (string, error) { return x.runEnv(nil, args...) }

func (x *Tmux) runEnv(env []string, args ...string) (string, error) {
	// A tmux client answers in milliseconds; the bound only guards against
	// a wedged server turning into a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// -u: capture-pane output stays UTF-8 (the TUIs draw ❯, ›, box
	// lines) whatever the client's locale.
	cmd := exec.CommandContext(ctx, x.bin, append([]string{"-u", "-S", x.socket}, args...)...)
	if env == nil {
		env = []string{} // a client needs nothing; never the caller's own environment
	}
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}

// Start runs spec in a new tmux session named spec.Name.
func (x *Tmux) Start(spec Spec) (*Pane, error) {
	if len(spec.Argv) == 0 {
		return nil, errors.New("agentenv: Start with an empty Argv")
	}
	if spec.Width == 0 {
		spec.Width = 200
	}
	if spec.Height == 0 {
		spec.Height = 50
	}
	if spec.Name == "" {
		spec.Name = filepath.Base(spec.Argv[0])
	}
	x.mu.Lock()
	closed := x.closed
	x.mu.Unlock()
	if closed {
		return nil, errors.New("agentenv: Start on a closed Tmux")
	}
	args := []string{"new-session", "-d", "-s", spec.Name,
		"-x", strconv.Itoa(spec.Width), "-y", strconv.Itoa(spec.Height), "-c", spec.Dir}
	for _, kv := range spec.Env {
		args = append(args, "-e", kv)
	}
	// Panes get TMUX and TMUX_PANE too, which the CLIs record and
	// paddock's hooks rely on.
	args = append(append(args, "--"), spec.Argv...)
	if _, err := x.run(args...); err != nil {
		return nil, fmt.Errorf("agentenv: starting %s in tmux: %w", spec.Name, err)
	}
	p := &Pane{TypePause: DefaultTypePause, x: x, name: spec.Name}
	out, err := x.run("display-message", "-p", "-t", "="+spec.Name+":", "#{pane_id} #{pane_pid}")
	if err == nil {
		_, err = fmt.Sscanf(strings.TrimSpace(out), "%s %d", &p.id, &p.pid)
	}
	if err != nil {
		return nil, fmt.Errorf("agentenv: reading the pane of %s: %w (tmux said %q)", spec.Name, err, out)
	}
	x.mu.Lock()
	x.panes = append(x.panes, p)
	x.mu.Unlock()
	return p, nil
}

// Close kills every process the server's panes started — their process
// trees and any detached helper carrying the marker (Codex's app-server
// daemon) — then the server, by PID, and removes the socket directory. It
// is safe to call more than once; the error names processes that survived
// SIGKILL.
func (x *Tmux) Close() error {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return nil
	}
	x.closed = true
	var roots []int
	for _, p := range x.panes {
		roots = append(roots, p.pid)
	}
	x.mu.Unlock()
	defer os.RemoveAll(x.dir)

	notServer := func(pids []int) []int {
		var out []int
		for _, p := range pids {
			if p != x.serverPID {
				out = append(out, p)
			}
		}
		return out
	}
	terminate(notServer(ownedProcs(roots, x.marker)), 3*time.Second)
	// Have tmux reap the panes' processes before it goes (see Exited): a
	// zombie orphaned to an init that does not reap would stay.
	signal(x.serverPID, syscall.SIGCHLD)
	for _, pid := range roots {
		waitReaped(pid, time.Second)
	}
	if _, err := x.run("kill-server"); err != nil && alive(x.serverPID) {
		terminate([]int{x.serverPID}, 2*time.Second)
	}
	if left := ownedProcs(nil, x.marker); len(left) > 0 {
		terminate(left, 2*time.Second)
	}
	if left := ownedProcs(nil, x.marker); len(left) > 0 {
		return fmt.Errorf("agentenv: processes %v survived SIGKILL", left)
	}
	return nil
}

// Owned lists the live processes this Tmux owns: the server, its panes'
// process trees, and anything else carrying its marker.
func (x *Tmux) Owned() []int {
	x.mu.Lock()
	var roots []int
	for _, p := range x.panes {
		roots = append(roots, p.pid)
	}
	x.mu.Unlock()
	return ownedProcs(append(roots, x.serverPID), x.marker)
}

// DefaultTypePause is the pause between typing text and pressing Enter in
// Type. The TUIs treat text and Enter arriving together as a paste (Codex
// then inserts a newline instead of submitting); 0.5 s was reliable for all
// of them in the recordings.
const DefaultTypePause = 500 * time.Millisecond

// Pane is one program running in its own session of a Tmux.
type Pane struct {
	// TypePause is the pause between typing text and pressing Enter in
	// Type (DefaultTypePause).
	TypePause time.Duration

	x    *Tmux
	name string
	id   string // tmux pane id, e.g. "%0"
	pid  int    // the pane's process

	mu   sync.Mutex
	last string // last screen captured, for error messages
}

// Name is the Spec's name (also the tmux session's).
func (p *Pane) Name() string { return p.name }

// PID is the process id of the program in the pane.
func (p *Pane) PID() int { return p.pid }

// Socket is the tmux server's socket (for `tmux -S`), and Target the pane
// (e.g. "%0"): what paddock itself needs to send keys to the session.
func (p *Pane) Socket() string { return p.x.socket }
func (p *Pane) Target() string { return p.id }

// Type types text literally, pauses TypePause, then presses Enter.
func (p *Pane) Type(text string) error {
	if text != "" {
		if _, err := p.x.run("send-keys", "-t", p.id, "-l", "--", text); err != nil {
			return fmt.Errorf("agentenv: %s: typing %q: %w", p.name, text, err)
		}
		time.Sleep(p.TypePause)
	}
	return p.Key("Enter")
}

// Key presses keys by tmux name: "Enter", "Escape", "C-c", "C-d", "Down",
// "y", …
func (p *Pane) Key(names ...string) error {
	if _, err := p.x.run(append([]string{"send-keys", "-t", p.id}, names...)...); err != nil {
		return fmt.Errorf("agentenv: %s: pressing %v: %w", p.name, names, err)
	}
	return nil
}

// Leave types the CLI's own exit command or presses its exit keys.
func (p *Pane) Leave(e Exit) error {
	if e.Text != "" {
		return p.Type(e.Text)
	}
	return p.Key(e.Keys...)
}

// Screen is the visible pane as text: wrapped lines joined, trailing blanks
// trimmed.
func (p *Pane) Screen() (string, error) {
	out, err := p.x.run("capture-pane", "-p", "-J", "-t", p.id)
	if err != nil {
		return p.LastScreen(), err
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	s := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	p.mu.Lock()
	p.last = s
	p.mu.Unlock()
	return s, nil
}

// LastScreen is the last screen Screen captured.
func (p *Pane) LastScreen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last
}

// pollInterval is how often WaitScreen and WaitExit look again.
const pollInterval = 100 * time.Millisecond

// WaitScreen polls the screen until re matches and returns it. It gives up
// when ctx ends, or when the program has exited without the screen
// matching; the error then carries the last screen.
func (p *Pane) WaitScreen(ctx context.Context, re *regexp.Regexp) (string, error) {
	var running string // the last screen seen while the program ran
	for {
		// Exit status first, then the screen: a match on the final screen
		// still counts, and running is never a post-mortem capture (tmux
		// may wipe the pane when it prints "Pane is dead").
		dead, status, _ := p.Exited()
		s, err := p.Screen()
		if err == nil && re.MatchString(s) {
			return s, nil
		}
		if dead {
			msg := fmt.Sprintf("agentenv: %s exited (%s) before the screen matched %q; last screen:\n%s", p.name, status, re, running)
			if s != running {
				msg += "\nscreen after exit:\n" + s
			}
			return s, errors.New(msg)
		}
		running = s
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("agentenv: %s: screen did not match %q: %w; last screen:\n%s",
				p.name, re, ctx.Err(), s)
		case <-time.After(pollInterval):
		}
	}
}

// Exited reports whether the pane's program has ended, and how ("status
// 0", "signal 15"). tmux marks a pane dead when its terminal closes, which
// can be seconds before the process exits (Pi, OpenCode); only a known exit
// status or signal counts.
func (p *Pane) Exited() (dead bool, status string, err error) {
	out, err := p.x.run("display-message", "-p", "-t", p.id, "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}")
	if err != nil {
		return !alive(p.pid), "tmux gone", err
	}
	f := strings.Split(strings.TrimSpace(out), "|")
	if len(f) != 3 || f[0] != "1" {
		return false, "", nil
	}
	switch {
	case f[2] != "":
		return true, "signal " + f[2], nil
	case f[1] != "":
		return true, "status " + f[1], nil
	}
	if !alive(p.pid) {
		// The process is gone but tmux has not reaped it: Debian's tmux
		// is built with libutempter, whose own SIGCHLD handler can swallow
		// the signal (tmux#311, #4559), leaving a zombie and no status.
		// The server gets the signal again; the next look sees the status.
		signal(p.x.serverPID, syscall.SIGCHLD)
	}
	return false, "", nil
}

// WaitExit waits for the program to end and returns how ("status 0",
// "signal 15"). The pane stays (remain-on-exit), so Screen still shows the
// last words.
func (p *Pane) WaitExit(ctx context.Context) (string, error) {
	for {
		if dead, status, _ := p.Exited(); dead {
			p.Screen() // keep the final screen for error messages
			return status, nil
		}
		select {
		case <-ctx.Done():
			s, _ := p.Screen()
			return "", fmt.Errorf("agentenv: %s did not exit: %w; last screen:\n%s", p.name, ctx.Err(), s)
		case <-time.After(pollInterval):
		}
	}
}

// KillMarked ends every process whose environment holds marker
// (NAME=VALUE), SIGTERM then SIGKILL: what a test started outside a Tmux
// (an agent paddock hosted in its own tmux server) may leave behind, such
// as Codex's app-server daemon, which detaches from its terminal. The error
// names processes that survived.
func KillMarked(marker string) error {
	terminate(ownedProcs(nil, marker), 3*time.Second)
	if left := ownedProcs(nil, marker); len(left) > 0 {
		return fmt.Errorf("agentenv: processes %v survived SIGKILL", left)
	}
	return nil
}

// KillHosted ends paddock's own tmux server under dataDir (its socket in
// <dataDir>/tmux) and the agents it hosted, which outlive paddock by
// design: their panes' processes get 5 s to exit after the server ends,
// then are killed, and what detached from them (Codex's app-server
// daemon) is found by the PADDOCK_HOME=dataDir its environment carries.
// No server is not an error.
func KillHosted(dataDir string) error {
	socks, _ := filepath.Glob(filepath.Join(dataDir, "tmux", "*"))
	var pids []int
	for _, sock := range socks {
		out, _ := exec.Command("tmux", "-S", sock, "list-panes", "-a", "-F", "#{pane_pid}").Output()
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		_ = exec.Command("tmux", "-S", sock, "kill-server").Run()
	}
	terminate(pids, 5*time.Second)
	return KillMarked("PADDOCK_HOME=" + dataDir)
}
