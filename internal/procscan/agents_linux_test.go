//go:build linux

package procscan_test

import (
	"paddock/internal/procscan"
	. "paddock/internal/procscan"

	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"
)

// agentIn runs the shipped Agents and returns the one agent whose cwd is
// dir (each test gives its processes a directory of their own), failing if
// there is not exactly one.
func agentIn(t *testing.T, dir string) AgentProcess {
	t.Helper()
	as, err := shipped.Agents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var hits []AgentProcess
	for _, a := range as {
		if a.Cwd == dir {
			hits = append(hits, a)
		}
	}
	if len(hits) != 1 {
		t.Fatalf("agents in %s: %+v; want exactly one", dir, hits)
	}
	return hits[0]
}

// realDir is a fresh directory as /proc/<pid>/cwd spells it.
func realDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitArgv0 waits until pid has exec'd into a program whose argv[0] is
// name: readiness, not a timing assertion.
func waitArgv0(t *testing.T, pid int, name string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && SplitCmdline(data)[0] == name {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never showed argv[0] %q (last %q, %v)", pid, name, data, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startCmd(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
}

// A shell renames a sleep to "claude" (exec -a): Agents must find it by its
// command line, with the directory, parent, argv and environment it has.
func TestAgentsFindsRenamedProcess(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatal("E2E_REQUIRED=1 but bash is not installed (needed for exec -a)")
		}
		t.Skip("needs bash for exec -a")
	}
	dir := realDir(t)
	cmd := exec.Command("bash", "-c", "exec -a claude sleep 30")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PADDOCK_TERMINAL_ID=term-7", "PADDOCK_SESSION_ID=sess-7")
	startCmd(t, cmd)
	waitArgv0(t, cmd.Process.Pid, "claude")

	a := agentIn(t, dir)
	if a.PID != cmd.Process.Pid || a.PPID != os.Getpid() || a.Runtime != "claude" {
		t.Fatalf("agent %+v; want pid %d, ppid %d, claude", a, cmd.Process.Pid, os.Getpid())
	}
	if !slices.Equal(a.Argv, []string{"claude", "30"}) || a.ArgsHidden || a.ArgSessionID != "" {
		t.Fatalf("argv %q hidden %v session %q", a.Argv, a.ArgsHidden, a.ArgSessionID)
	}
	if a.TerminalID != "term-7" || a.SessionID != "sess-7" {
		t.Fatalf("environment ids %q, %q", a.TerminalID, a.SessionID)
	}
	// The test may run under a terminal or not; the child shares ours.
	s, err := Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := procscan.TTYName(os.Getpid(), s.TTYNr(os.Getpid())); a.TTY != want || a.Interactive != (want != "") {
		t.Fatalf("tty %q interactive %v; want tty %q", a.TTY, a.Interactive, want)
	}
	ticks, err := strconv.ParseUint(a.StartTicks, 10, 64)
	if err != nil || ticks == 0 || a.Started.IsZero() || a.Started.After(time.Now().Add(time.Second)) {
		t.Fatalf("start %q, %v", a.StartTicks, a.Started)
	}
	if len(a.Inner) != 0 {
		t.Fatalf("inner %v", a.Inner)
	}
}

// Codex's node launcher and the native binary it spawns are one agent:
// the launcher, with the native process in Inner.
func TestAgentsReportsLauncherOnce(t *testing.T) {
	t.Parallel()
	const id = "019a0000-1111-2222-3333-444444444444"
	dir := realDir(t)
	root := Helper{
		Argv:      []string{"node", "/opt/agents/node_modules/@openai/codex/bin/codex.js", "resume", id},
		Env:       []string{"PADDOCK_TERMINAL_ID=term-c", "PADDOCK_SESSION_ID=sess-c"},
		Dir:       dir,
		Children:  1,
		ChildArgv: []string{"/opt/agents/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex/codex", "resume", id},
	}.Start(t)

	a := agentIn(t, dir)
	if a.PID != root.Process.Pid || a.Runtime != "codex" || a.ArgSessionID != id {
		t.Fatalf("agent %+v; want the launcher %d, codex, session %s", a, root.Process.Pid, id)
	}
	if a.TerminalID != "term-c" || a.SessionID != "sess-c" {
		t.Fatalf("environment ids %q, %q", a.TerminalID, a.SessionID)
	}
	s, err := Scan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if kids := s.Children(root.Process.Pid); len(kids) != 1 || !slices.Equal(a.Inner, kids) {
		t.Fatalf("inner %v; want the native child %v", a.Inner, kids)
	}
}

// Under a real pseudo terminal (script(1) makes one), a TUI invocation is
// interactive and a print run is not.
func TestAgentsTerminal(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "script"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s", tool)
		}
	}
	tests := []struct {
		name        string
		command     string
		argv        []string
		interactive bool
	}{
		{"tui", "exec -a claude sleep 30", []string{"claude", "30"}, true},
		// bash stays (the trailing ':' keeps it from exec'ing sleep) with
		// argv claude -c … -p: --continue, a prompt, and --print.
		{"print", "exec -a claude bash -c 'sleep 30; :' -p", []string{"claude", "-c", "sleep 30; :", "-p"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := realDir(t)
			cmd := exec.Command("script", "-qfec", tt.command, "/dev/null")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SHELL=/bin/bash")
			stdin, err := cmd.StdinPipe() // script keeps reading it; closed by Kill
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stdin.Close() })
			startCmd(t, cmd)

			var a AgentProcess
			deadline := time.Now().Add(10 * time.Second)
			for {
				as, err := shipped.Agents(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(as, func(a AgentProcess) bool { return a.Cwd == dir })
				if i >= 0 && slices.Equal(as[i].Argv, tt.argv) {
					a = as[i]
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no agent with argv %q in %s: %+v", tt.argv, dir, as)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if a.PPID != cmd.Process.Pid || a.Runtime != "claude" {
				t.Fatalf("agent %+v; want claude under script (%d)", a, cmd.Process.Pid)
			}
			if len(a.TTY) <= len("/dev/pts/") || a.TTY[:9] != "/dev/pts/" {
				t.Fatalf("tty %q; want a /dev/pts/N", a.TTY)
			}
			if a.Interactive != tt.interactive {
				t.Fatalf("interactive %v; want %v", a.Interactive, tt.interactive)
			}
			// The terminal is script's pty, which its parent does not have.
			if fi, err := os.Stat(a.TTY); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("stat %s: %v", a.TTY, err)
			}
		})
	}
}
