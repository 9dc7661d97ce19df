//go:build linux

package procscan

import (
	pidproc "paddock/internal/proc"

	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// Fields 4.. of a real line (ppid 10978, tty_nr 34818 = pts/2, flags
	// 4194560, 3 threads, starttime 1038331, rss 49215 pages).
	tail := " 10978 12236 12236 34818 12236 4194560 64181 0 0 0 1032 243 0 0 20 0 3 0 1038331 74599002112 49215 18446744073709551615"
	tests := []struct {
		name string
		data string
		want proc
		ok   bool
	}{
		{"claude", "12236 (claude) S" + tail, proc{ppid: 10978, ttyNr: 34818, startTicks: 1038331, rss: 49215 * 4096}, true},
		{"spaces and parens in comm", "12236 (a) (b c)) R" + tail, proc{ppid: 10978, ttyNr: 34818, startTicks: 1038331, rss: 49215 * 4096}, true},
		{"threaded zombie leader lives", "12236 (node) Z" + tail, proc{ppid: 10978, ttyNr: 34818, startTicks: 1038331, rss: 49215 * 4096}, true},
		{"lone zombie", "7 (sh) Z 1 7 7 0 -1 4194564 1 0 0 0 0 0 0 0 20 0 1 0 500 0 0 18446744073709551615",
			proc{ppid: 1, zombie: true, startTicks: 500}, true},
		{"kernel thread", "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 3 0 0 18446744073709551615",
			proc{kernel: true, startTicks: 3}, true},
		{"no tty is -1 tpgid, 0 tty", "9 (x) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4 0 2 1",
			proc{ppid: 1, startTicks: 4, rss: 2 * 4096}, true},
		{"too short", "9 (x) S 1 9 9 0", proc{}, false},
		{"no comm", "9 x S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 4 0 2 1", proc{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseStat([]byte(tt.data), 4096)
			if ok != tt.ok || ok && got != tt.want {
				t.Fatalf("parseStat = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSplitCmdline(t *testing.T) {
	for _, c := range []struct {
		data string
		want []string
	}{
		{"claude\x00--resume\x00id\x00", []string{"claude", "--resume", "id"}},
		{"pi\x00\x00\x00\x00", []string{"pi", "", "", ""}}, // a process title over the arguments
		{"no-terminator", []string{"no-terminator"}},
	} {
		if got := splitCmdline([]byte(c.data)); !slices.Equal(got, c.want) {
			t.Errorf("splitCmdline(%q) = %q, want %q", c.data, got, c.want)
		}
	}
}

// agentIn runs Agents and returns the one agent whose cwd is dir (each test
// gives its processes a directory of their own), failing if there is not
// exactly one.
func agentIn(t *testing.T, dir string) AgentProcess {
	t.Helper()
	as, err := Agents(context.Background())
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
		if err == nil && splitCmdline(data)[0] == name {
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
	if want := pidproc.TTYName(os.Getpid(), s.procs[os.Getpid()].ttyNr); a.TTY != want || a.Interactive != (want != "") {
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
	root := helper{
		argv:      []string{"node", "/opt/agents/node_modules/@openai/codex/bin/codex.js", "resume", id},
		env:       []string{"PADDOCK_TERMINAL_ID=term-c", "PADDOCK_SESSION_ID=sess-c"},
		dir:       dir,
		children:  1,
		childArgv: []string{"/opt/agents/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex/codex", "resume", id},
	}.start(t)

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
	if kids := s.children[root.Process.Pid]; len(kids) != 1 || !slices.Equal(a.Inner, kids) {
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
				as, err := Agents(context.Background())
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

func BenchmarkScan(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		if _, err := Scan(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	held := filepath.Join(dir, "rollout.jsonl")
	if err := os.WriteFile(held, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A child that holds the file open on fd 3 and a pipe on stdin.
	f, err := os.Open(held)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "30")
	cmd.ExtraFiles = []*os.File{f}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	got, err := OpenFiles(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got, held) {
		t.Errorf("OpenFiles = %q, want it to hold %s", got, held)
	}
	for _, p := range got {
		if !filepath.IsAbs(p) || strings.HasPrefix(p, "/dev/") {
			t.Errorf("OpenFiles listed %q: only regular paths belong there", p)
		}
	}

	cmd.Process.Kill()
	cmd.Wait()
	if _, err := OpenFiles(cmd.Process.Pid); err != ErrNotRunning {
		t.Errorf("OpenFiles of an exited process: err = %v, want ErrNotRunning", err)
	}
}
