// Package servetest builds the real paddock binary and runs `paddock
// serve` as a user would, for the tests that drive it from outside: the
// end-to-end tests, the command's own tests and the benchmarks.
package servetest

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// Binary builds paddock once per test run and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "paddock-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "paddock")
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/paddock")
		cmd.Dir = filepath.Join(filepath.Dir(file), "..", "..", "..")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = err
			builtBin = string(out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building paddock: %v\n%s", buildErr, builtBin)
	}
	return builtBin
}

// Server is a running `paddock serve`.
type Server struct {
	Cmd      *exec.Cmd
	PairLink string
	// LinkPrinted: serve printed the pairing link itself; false when it
	// said devices are paired and PairLink came from `paddock pair`.
	LinkPrinted bool
	URLs        []string
	DataDir     string
	stderr      *lockedBuffer
	stopOnce    sync.Once
}

// Stop sends SIGINT and waits for serve to exit (once; later calls return
// at once), so a test can read what it logged on the way out.
func (s *Server) Stop(t testing.TB) {
	s.stopOnce.Do(func() {
		_ = s.Cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = s.Cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = s.Cmd.Process.Kill()
			t.Errorf("paddock did not stop within 10 s of SIGINT")
		}
	})
}

// Stderr is what serve has logged so far.
func (s *Server) Stderr() string { return s.stderr.String() }

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Start runs paddock serve on free loopback ports with the given HOME and
// waits for its banner.
func Start(t testing.TB, home string, extra ...string) *Server {
	t.Helper()
	return StartEnv(t, home, nil, extra...)
}

// StartEnv is Start with env added to serve's environment (an agent's,
// for the sessions paddock starts in tmux).
func StartEnv(t testing.TB, home string, env []string, extra ...string) *Server {
	t.Helper()
	return StartAt(t, home, filepath.Join(t.TempDir(), "data"), env, extra...)
}

// AgentDirVars name the agents' data directories, which serve must not
// inherit from the developer running the tests.
var AgentDirVars = []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "CODEX_SQLITE_HOME", "KIMI_CODE_HOME", "KIMI_SHARE_DIR",
	"OPENCODE_DATA_DIR", "OPENCODE_DB", "XDG_DATA_HOME", "PI_CODING_AGENT_DIR", "CURSOR_CONFIG_DIR"}

// StartAt runs serve on the data dir data (a restart reuses one).
func StartAt(t testing.TB, home, data string, env []string, extra ...string) *Server {
	t.Helper()
	bin := Binary(t)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--hook-addr", "127.0.0.1:0", "--sweep", "500ms"}, extra...)
	cmd := exec.Command(bin, args...)
	// The developer's own CLAUDE_CONFIG_DIR must not leak in; an empty
	// one would reach the agents paddock starts (and Claude takes "" for
	// a directory), so it is left out.
	// The agents' own data-directory variables go too: the scanners read
	// the test's HOME, never the developer's histories.
	base := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(AgentDirVars, name)
	})
	cmd.Env = append(append(base, env...), "HOME="+home, "PADDOCK_HOME="+data)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Cmd: cmd, DataDir: data, stderr: &lockedBuffer{}}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Stop(t)
		if t.Failed() {
			t.Logf("paddock stderr:\n%s", s.stderr.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	inURLs := false
	for s.PairLink == "" {
		select {
		case <-ctx.Done():
			t.Fatalf("no pair link from paddock serve; stderr:\n%s", s.stderr.String())
		case l := <-lines:
			switch {
			case strings.HasPrefix(l, "paddock is serving"):
				inURLs = true
			case inURLs && strings.HasPrefix(l, "  https://"):
				s.URLs = append(s.URLs, strings.TrimSpace(l))
			case strings.HasPrefix(l, "pair link: "):
				s.PairLink, s.LinkPrinted = strings.TrimPrefix(l, "pair link: "), true
			case strings.HasPrefix(l, "Devices are paired already"):
				// A restart over a data dir with paired devices prints no
				// link (stdout is not a terminal): ask for one, as a user
				// would.
				pair := exec.Command(bin, "pair", "--data-dir", data)
				pair.Env = cmd.Env
				out, err := pair.Output()
				if err != nil {
					t.Fatalf("paddock pair: %v", err)
				}
				for _, pl := range strings.Split(string(out), "\n") {
					if link, ok := strings.CutPrefix(pl, "pair link: "); ok {
						s.PairLink = link
					}
				}
				if s.PairLink == "" {
					t.Fatalf("paddock pair printed no link: %s", out)
				}
			default:
				inURLs = false
			}
		}
	}
	return s
}
