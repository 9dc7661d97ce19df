package tmux

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The tests below drive a real tmux on a socket in the test's temporary
// directory. Without tmux they skip, unless E2E_REQUIRED=1 (CI) makes that
// a failure.

const envRequired = "E2E_REQUIRED"

func missing(tb testing.TB, msg string) {
	tb.Helper()
	if os.Getenv(envRequired) == "1" {
		tb.Fatal(envRequired + "=1 but " + msg)
	}
	tb.Skip(msg + "; set " + envRequired + "=1 to make this a failure")
}

// testEnv is a small, fixed environment for the server and its windows.
func testEnv(tb testing.TB, extra ...string) []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"HOME=" + tb.TempDir(),
		"INPUTRC=/dev/null",
	}, extra...)
}

// newServer is a Server on a fresh data directory with testEnv (unless
// opts has an Env); the tmux server (if any was started) is killed at
// cleanup.
func newServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.Env == nil {
		opts.Env = testEnv(tb)
	}
	return newServerOwnEnv(tb, opts)
}

// newServerOwnEnv is newServer without a default Env: a nil opts.Env is
// New's default, this process's environment.
func newServerOwnEnv(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		missing(tb, "tmux not installed (apt-get install tmux)")
	}
	s, err := New(context.Background(), dataDir(tb), opts)
	if errors.Is(err, ErrTooOld) {
		missing(tb, err.Error())
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.KillServer(ctx); err != nil {
			tb.Errorf("kill-server: %v", err)
		}
	})
	return s
}

// dataDir is the test's temporary directory, or a shorter one when that
// would make the socket path too long for a unix socket.
func dataDir(tb testing.TB) string {
	dir := tb.TempDir()
	if len(filepath.Join(dir, "tmux", SocketName)) <= maxSocketPath {
		return dir
	}
	dir, err := os.MkdirTemp("", "pdk-tmux-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func within(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

// start is NewWindow that fails the test on error.
func start(tb testing.TB, s *Server, w Window) Pane {
	tb.Helper()
	if w.Dir == "" {
		w.Dir = tb.TempDir()
	}
	p, err := s.NewWindow(within(tb, 10*time.Second), w)
	if err != nil {
		tb.Fatalf("NewWindow %s: %v", w.Name, err)
	}
	return p
}

// eventually polls cond every 20 ms until it holds, failing after 10 s with
// what cond last said.
func eventually(tb testing.TB, what string, cond func() (bool, string)) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ok, last := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not within 10s; last: %s", what, last)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitScreen waits until the pane's screen (with scroll-back) contains
// want, and returns it.
func waitScreen(tb testing.TB, s *Server, p Pane, want string) string {
	tb.Helper()
	var screen string
	eventually(tb, "screen shows "+want, func() (bool, string) {
		var err error
		screen, err = s.Capture(context.Background(), p, CaptureOptions{ScrollBack: 1000, Join: true})
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(screen, want), screen
	})
	return screen
}

// waitDead waits until the pane's program has ended with a known status.
func waitDead(tb testing.TB, s *Server, p Pane) Exit {
	tb.Helper()
	var exit Exit
	eventually(tb, "pane "+p.String()+" dead", func() (bool, string) {
		dead, e, err := s.DeadStatus(context.Background(), p)
		exit = e
		if err != nil {
			return false, err.Error()
		}
		return dead && e.Known, e.String()
	})
	return exit
}

// waitFile waits until path has content and returns it.
func waitFile(tb testing.TB, path string) string {
	tb.Helper()
	var data []byte
	eventually(tb, path+" written", func() (bool, string) {
		data, _ = os.ReadFile(path)
		return len(data) > 0, ""
	})
	return string(data)
}

// waitExists waits until path exists.
func waitExists(tb testing.TB, path string) {
	tb.Helper()
	eventually(tb, path+" created", func() (bool, string) {
		_, err := os.Stat(path)
		return err == nil, ""
	})
}

// rawTmux runs tmux on the server's socket directly: what someone else
// (or a crash) does behind paddock's back.
func rawTmux(tb testing.TB, s *Server, args ...string) string {
	tb.Helper()
	cmd := exec.Command(s.bin, append([]string{"-f", "/dev/null", "-S", s.Socket()}, args...)...)
	cmd.Env = s.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// sh runs script with /bin/sh as the window's program (the shell here is
// the program under test's choice, not tmux's).
func sh(script string, args ...string) []string {
	return append([]string{"/bin/sh", "-c", script, "sh"}, args...)
}
