package procscan

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain doubles as a helper process: tests start this binary again with
// an argv of their choosing (an agent's command line, a launcher and its
// child), so the process table holds real processes that look like agents
// without any agent installed. The helper never parses flags, so any argv
// works.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(runHelper())
	}
	os.Exit(m.Run())
}

const (
	helperEnv         = "PROCSCAN_TEST_HELPER"
	helperAllocEnv    = "PROCSCAN_TEST_ALLOC"      // bytes to allocate and touch
	helperChildrenEnv = "PROCSCAN_TEST_CHILDREN"   // how many children to start
	helperChildEnv    = "PROCSCAN_TEST_CHILD_ARGV" // their argv, joined by argvSep
	argvSep           = "\x1f"                     // environment values cannot hold NUL
)

// runHelper touches its allocation (so it is resident), starts its
// children and waits until each says ready, says ready itself, then lives
// until standard input closes. The children share that standard input, so
// one close by the test ends the whole tree.
func runHelper() int {
	alloc, _ := strconv.Atoi(os.Getenv(helperAllocEnv))
	mem := make([]byte, alloc)
	for i := 0; i < len(mem); i += 512 {
		mem[i] = 1
	}
	n, _ := strconv.Atoi(os.Getenv(helperChildrenEnv))
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	// Start them all, then wait for each: a child under the race detector
	// takes a while to come up.
	var kids []*exec.Cmd
	var outs []io.Reader
	for range n {
		c := &exec.Cmd{
			Path:   exe,
			Args:   strings.Split(os.Getenv(helperChildEnv), argvSep),
			Env:    append(os.Environ(), helperChildrenEnv+"=0"),
			Stdin:  os.Stdin,
			Stderr: os.Stderr,
		}
		out, err := c.StdoutPipe()
		if err == nil {
			err = c.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "helper child:", err)
			return 1
		}
		kids, outs = append(kids, c), append(outs, out)
	}
	for _, out := range outs {
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			fmt.Fprintln(os.Stderr, "helper child:", err)
			return 1
		}
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, c := range kids {
		_ = c.Wait()
	}
	runtime.KeepAlive(mem)
	return 0
}

// helper describes a helper process tree to start.
type helper struct {
	argv      []string // the root's argv (argv[0] included)
	env       []string // added to the root's environment (children inherit it)
	dir       string
	alloc     int // bytes each process keeps resident
	children  int
	childArgv []string
}

// start runs the helper tree and returns once every process in it is up;
// the test's cleanup ends it.
func (h helper) start(t testing.TB) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	childArgv := h.childArgv
	if childArgv == nil {
		childArgv = []string{"procscan-helper-child"}
	}
	cmd := &exec.Cmd{Path: exe, Args: h.argv, Dir: h.dir, Stderr: os.Stderr}
	cmd.Env = append(os.Environ(), h.env...)
	cmd.Env = append(cmd.Env,
		helperEnv+"=1",
		helperAllocEnv+"="+strconv.Itoa(h.alloc),
		helperChildrenEnv+"="+strconv.Itoa(h.children),
		helperChildEnv+"="+strings.Join(childArgv, argvSep),
	)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		// The tree exits on EOF; the timer only guards a stuck helper.
		kill := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		defer kill.Stop()
		_ = cmd.Wait()
	})
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("helper %q did not start: %q, %v", h.argv, line, err)
	}
	return cmd
}
