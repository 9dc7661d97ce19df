package agenttest

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
	"testing"
	"time"
)

// Spec is what to run in a Term.
type Spec struct {
	// Name labels the program in messages ("claude").
	Name string
	// Argv is the command line; Argv[0] should be an absolute path.
	Argv []string
	// Env is the complete environment: nothing is inherited from the test
	// process (a developer's real API keys must never reach a CLI under
	// test). Start adds only the ownership marker.
	Env []string
	// Dir is the working directory.
	Dir string
	// Width and Height of the window; default 200×50 (wide enough that the
	// CLIs do not wrap the lines tests look for).
	Width, Height int
}

// Term is one program running in a tmux pane on a private tmux server. It
// is closed by tb.Cleanup: every process it started is killed by PID.
type Term struct {
	// TypePause is the pause between typing text and pressing Enter in
	// Type. The TUIs treat text and Enter arriving together as a paste
	// (Codex then inserts a newline instead of submitting); 0.5 s was
	// reliable for all of them in the recordings.
	TypePause time.Duration

	tb        testing.TB
	name      string
	tmux      string
	sockDir   string
	socket    string
	pane      string // tmux pane id, e.g. "%0"
	marker    string // NAME=VALUE in the environment of everything we start
	pid       int    // the pane's process
	serverPID int

	done      chan struct{} // closed by Close; stops the watchdog
	watchdog  sync.WaitGroup
	closeOnce sync.Once
	killOnce  sync.Once

	mu   sync.Mutex
	last string // last screen captured, for failure messages
}

// markerVar is set in the environment of the tmux server and so of every
// process in its panes; Close finds detached leftovers by it.
const markerVar = "PADDOCK_AGENTTEST"

// tmuxConf keeps a dead pane (and its final screen) until Close, so an exit
// can be observed and its last words read, without tmux's "Pane is dead"
// line (printing it can wipe the pane). -f also keeps the developer's own
// tmux configuration out.
const tmuxConf = `set -g remain-on-exit on
set -g remain-on-exit-format ""
set -g history-limit 20000
set -g default-terminal tmux-256color
set -g status off
`

// Start runs spec in a new tmux server on a socket in a fresh temporary
// directory. tmux missing means skip (or fail under E2E_REQUIRED=1), like a
// missing CLI.
func Start(tb testing.TB, spec Spec) *Term {
	tb.Helper()
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		missing(tb, "tmux not found on PATH")
	}
	if len(spec.Argv) == 0 {
		tb.Fatal("agenttest: Start with an empty Argv")
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
	// Not tb.TempDir: a unix socket path must stay under ~100 bytes, and
	// test-named temp dirs can be longer.
	sockDir, err := os.MkdirTemp("", "pdk-tmux-")
	if err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
	conf := filepath.Join(sockDir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxConf), 0o600); err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
	var id [8]byte
	_, _ = rand.Read(id[:])
	t := &Term{
		TypePause: 500 * time.Millisecond,
		tb:        tb,
		name:      spec.Name,
		tmux:      tmux,
		sockDir:   sockDir,
		socket:    filepath.Join(sockDir, "sock"),
		marker:    markerVar + "=" + hex.EncodeToString(id[:]),
		done:      make(chan struct{}),
	}
	tb.Cleanup(t.Close)

	// The server inherits the environment of the client that starts it,
	// and panes inherit the server's, plus TMUX and TMUX_PANE (which the
	// CLIs record and paddock's hooks rely on).
	env := append(append([]string(nil), spec.Env...), t.marker)
	args := []string{"-f", conf, "new-session", "-d", "-s", "agent",
		"-x", strconv.Itoa(spec.Width), "-y", strconv.Itoa(spec.Height), "-c", spec.Dir, "--"}
	if _, err := t.runEnv(env, append(args, spec.Argv...)...); err != nil {
		tb.Fatalf("agenttest: starting %s in tmux: %v", t.name, err)
	}
	out, err := t.run("display-message", "-p", "-t", "agent", "#{pane_id} #{pane_pid} #{pid}")
	if err != nil {
		tb.Fatalf("agenttest: reading the pane of %s: %v", t.name, err)
	}
	if _, err := fmt.Sscanf(strings.TrimSpace(out), "%s %d %d", &t.pane, &t.pid, &t.serverPID); err != nil {
		tb.Fatalf("agenttest: unexpected tmux answer %q: %v", out, err)
	}
	t.startWatchdog()
	return t
}

// run runs a tmux command against this Term's server.
func (t *Term) run(args ...string) (string, error) { return t.runEnv(nil, args...) }

func (t *Term) runEnv(env []string, args ...string) (string, error) {
	// A tmux client answers in milliseconds; the bound only guards against
	// a wedged server turning into a hung test.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// -u: capture-pane output stays UTF-8 (the TUIs draw ❯, ›, box
	// lines) whatever the client's locale.
	cmd := exec.CommandContext(ctx, t.tmux, append([]string{"-u", "-S", t.socket}, args...)...)
	if env == nil {
		env = []string{} // a client needs nothing; never the test's own environment
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

// PID is the process id of the program in the pane.
func (t *Term) PID() int { return t.pid }

// Socket is the tmux server's socket (for `tmux -S`), and Target the pane
// (e.g. "%0"): what paddock itself needs to send keys to the session.
func (t *Term) Socket() string { return t.socket }
func (t *Term) Target() string { return t.pane }

// Type types text literally, pauses TypePause, then presses Enter. It fails
// the test if tmux does; call it from the test's goroutine.
func (t *Term) Type(text string) {
	t.tb.Helper()
	if text != "" {
		if _, err := t.run("send-keys", "-t", t.pane, "-l", "--", text); err != nil {
			t.fatal("typing %q: %v", text, err)
		}
		time.Sleep(t.TypePause)
	}
	t.Key("Enter")
}

// Key presses keys by tmux name: "Enter", "Escape", "C-c", "C-d", "Down",
// "y", …
func (t *Term) Key(names ...string) {
	t.tb.Helper()
	if _, err := t.run(append([]string{"send-keys", "-t", t.pane}, names...)...); err != nil {
		t.fatal("pressing %v: %v", names, err)
	}
}

// Screen is the visible pane as text: wrapped lines joined, trailing blanks
// trimmed.
func (t *Term) Screen() (string, error) {
	out, err := t.run("capture-pane", "-p", "-J", "-t", t.pane)
	if err != nil {
		return t.lastScreen(), err
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	s := strings.TrimRight(strings.Join(lines, "\n"), "\n")
	t.mu.Lock()
	t.last = s
	t.mu.Unlock()
	return s, nil
}

func (t *Term) lastScreen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// pollInterval is how often WaitScreen and WaitExit look again.
const pollInterval = 100 * time.Millisecond

// WaitScreen polls the screen until re matches and returns it. It gives up
// when ctx ends, or when the program has exited without the screen
// matching; the error then carries the last screen.
func (t *Term) WaitScreen(ctx context.Context, re *regexp.Regexp) (string, error) {
	var running string // the last screen seen while the program ran
	for {
		// Exit status first, then the screen: a match on the final screen
		// still counts, and running is never a post-mortem capture (tmux
		// may wipe the pane when it prints "Pane is dead").
		dead, status, _ := t.exited()
		s, err := t.Screen()
		if err == nil && re.MatchString(s) {
			return s, nil
		}
		if dead {
			msg := fmt.Sprintf("agenttest: %s exited (%s) before the screen matched %q; last screen:\n%s", t.name, status, re, running)
			if s != running {
				msg += "\nscreen after exit:\n" + s
			}
			return s, errors.New(msg)
		}
		running = s
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("agenttest: %s: screen did not match %q: %w; last screen:\n%s",
				t.name, re, ctx.Err(), s)
		case <-time.After(pollInterval):
		}
	}
}

// Expect is WaitScreen that fails the test on error.
func (t *Term) Expect(ctx context.Context, re *regexp.Regexp) string {
	t.tb.Helper()
	s, err := t.WaitScreen(ctx, re)
	if err != nil {
		t.tb.Fatal(err)
	}
	return s
}

// exited reports whether the pane's program has ended, and how. tmux marks
// a pane dead when its terminal closes, which can be seconds before the
// process exits (Pi, OpenCode); only a known exit status or signal counts.
func (t *Term) exited() (dead bool, status string, err error) {
	out, err := t.run("display-message", "-p", "-t", t.pane, "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}")
	if err != nil {
		return !alive(t.pid), "tmux gone", err
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
	if !alive(t.pid) {
		// The process is gone but tmux has not reaped it: Debian's tmux
		// is built with libutempter, whose own SIGCHLD handler can swallow
		// the signal (tmux#311, #4559), leaving a zombie and no status.
		// Our server gets the signal again; the next look sees the status.
		signal(t.serverPID, syscall.SIGCHLD)
	}
	return false, "", nil
}

// WaitExit waits for the program to end and returns how ("status 0",
// "signal 15"). The pane stays (remain-on-exit), so Screen still shows the
// last words.
func (t *Term) WaitExit(ctx context.Context) (string, error) {
	for {
		if dead, status, _ := t.exited(); dead {
			t.Screen() // keep the final screen for failure messages
			return status, nil
		}
		select {
		case <-ctx.Done():
			s, _ := t.Screen()
			return "", fmt.Errorf("agenttest: %s did not exit: %w; last screen:\n%s", t.name, ctx.Err(), s)
		case <-time.After(pollInterval):
		}
	}
}

func (t *Term) fatal(format string, args ...any) {
	t.tb.Helper()
	s, _ := t.Screen()
	t.tb.Fatalf("agenttest: %s: %s; last screen:\n%s", t.name, fmt.Sprintf(format, args...), s)
}

// startWatchdog kills the program shortly before the test's deadline, so a
// hung CLI fails the test with its last screen instead of go test's
// goroutine dump. It stops when the Term closes.
func (t *Term) startWatchdog() {
	d, ok := t.tb.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return
	}
	deadline, ok := d.Deadline()
	if !ok {
		return
	}
	// Leave room for cleanup and for the failure to be reported.
	margin := min(10*time.Second, time.Until(deadline)/10)
	t.watchdog.Add(1)
	go func() {
		defer t.watchdog.Done()
		timer := time.NewTimer(time.Until(deadline) - margin)
		defer timer.Stop()
		select {
		case <-t.done:
		case <-timer.C:
			s, _ := t.Screen()
			t.tb.Errorf("agenttest: %s still running at the test deadline (%s); killed it. Last screen:\n%s",
				t.name, deadline.Format(time.TimeOnly), s)
			t.kill()
		}
	}()
}

// Close kills the program, everything it started, and the tmux server, by
// PID, and removes the socket directory. If the test failed, the last screen
// goes to the test log. Registered with tb.Cleanup by Start.
func (t *Term) Close() {
	t.closeOnce.Do(func() {
		close(t.done)
		t.watchdog.Wait()
		if t.tb.Failed() {
			s, err := t.Screen()
			if err != nil {
				s = t.lastScreen()
			}
			t.tb.Logf("agenttest: last screen of %s:\n%s", t.name, s)
		}
		t.kill()
		os.RemoveAll(t.sockDir)
	})
}

// kill stops every owned process: first the program's tree and detached
// helpers while tmux is alive to reap them, then the tmux server, then any
// straggler carrying the marker.
func (t *Term) kill() {
	t.killOnce.Do(func() {
		notServer := func(pids []int) []int {
			var out []int
			for _, p := range pids {
				if p != t.serverPID {
					out = append(out, p)
				}
			}
			return out
		}
		terminate(notServer(ownedProcs(t.pid, t.marker)), 3*time.Second)
		// Have tmux reap the pane's process before it goes (see exited):
		// a zombie orphaned to an init that does not reap would stay.
		signal(t.serverPID, syscall.SIGCHLD)
		waitReaped(t.pid, time.Second)
		if _, err := t.run("kill-server"); err != nil && alive(t.serverPID) {
			terminate([]int{t.serverPID}, 2*time.Second)
		}
		if left := ownedProcs(0, t.marker); len(left) > 0 {
			terminate(left, 2*time.Second)
		}
		if left := ownedProcs(0, t.marker); len(left) > 0 {
			t.tb.Errorf("agenttest: %s: processes %v survived SIGKILL", t.name, left)
		}
	})
}

// terminate sends SIGTERM, waits up to grace for the processes to go, then
// SIGKILLs the rest and waits briefly again.
func terminate(pids []int, grace time.Duration) {
	if len(pids) == 0 {
		return
	}
	signalAll(pids, syscall.SIGTERM)
	if waitGone(pids, grace) {
		return
	}
	signalAll(pids, syscall.SIGKILL)
	waitGone(pids, 2*time.Second)
}

func signalAll(pids []int, sig syscall.Signal) {
	for _, p := range pids {
		signal(p, sig)
	}
}

// signal sends sig to one process. pid 0 or -1 would signal our own process
// group or everything, so only real pids pass (a Term whose Start failed
// has none). ESRCH means it is already gone; anything that survives is
// reported by kill.
func signal(pid int, sig syscall.Signal) {
	if pid > 1 {
		_ = syscall.Kill(pid, sig)
	}
}

// waitReaped waits until pid has left the process table entirely.
func waitReaped(pid int, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitGone(pids []int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for {
		gone := true
		for _, p := range pids {
			if alive(p) {
				gone = false
				break
			}
		}
		if gone {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
