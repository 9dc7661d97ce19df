package codex

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// fakeProcs stands in for the process table at its boundary: the agent
// processes procscan would report, the files each pid holds and the
// command lines of Inner pids.
type fakeProcs struct {
	procs    []procscan.AgentProcess
	files    map[int][]string
	fileErr  map[int]error
	cmdlines map[int][]string
}

// add reports a codex TUI (or background run) whose own pid holds files.
func (f *fakeProcs) add(pid int, interactive bool, files ...string) *procscan.AgentProcess {
	f.procs = append(f.procs, procscan.AgentProcess{PID: pid, Runtime: "codex", Argv: []string{"node", "/usr/lib/node_modules/@openai/codex/bin/codex.js"},
		Interactive: interactive, Cwd: "/work/p", Started: t0})
	f.hold(pid, files...)
	return &f.procs[len(f.procs)-1]
}

func (f *fakeProcs) hold(pid int, files ...string) {
	if f.files == nil {
		f.files = map[int][]string{}
	}
	f.files[pid] = append(f.files[pid], files...)
}

func (f *fakeProcs) list(context.Context) ([]procscan.AgentProcess, error) {
	return append([]procscan.AgentProcess(nil), f.procs...), nil
}

func (f *fakeProcs) openFiles(pid int) ([]string, error) {
	if err := f.fileErr[pid]; err != nil {
		return nil, err
	}
	return append([]string{"/usr/lib/libc.so.6", "/home/u/.codex/logs_2.sqlite"}, f.files[pid]...), nil
}

func (f *fakeProcs) cmdline(pid int) []string { return f.cmdlines[pid] }

func (f *fakeProcs) scanner(dir string) *Scanner {
	s := New(Options{Dir: dir, Processes: f.list, KeepMissingCwd: true})
	s.openFiles, s.cmdline = f.openFiles, f.cmdline
	return s
}

var daemonArgv = []string{"/home/u/.codex/packages/app-server-daemon/releases/0.169.0/bin/codex", "app-server", "--listen", "unix://", "--analytics-default-enabled", "--managed-daemon"}

// Liveness by the files a live codex process holds open,
// and by an exact id only where no file tells.
func TestLiveness(t *testing.T) {
	h := newHome(t)
	now := time.Now()
	rollout := func(n int) string {
		return h.rollout(id(n), now, lines(meta(0, id(n), "/p"), turn(1, "prompt", "answer"))...)
	}
	lock := func(n int) string { return filepath.Join(h.dir, "thread-writer-locks", id(n)+".lock") }
	for n := 1; n <= 9; n++ {
		rollout(n)
	}
	subPath := h.rollout(id(10), now, lines(meta(0, id(10), "/p", "thread_source", "subagent", "parent_thread_id", id(9)), turn(1, "sub", "x"))...)

	f := &fakeProcs{}
	// 1: the native binary under the npm launcher holds the rollout and lock.
	p := f.add(100, true)
	p.Inner = []int{101}
	f.hold(101, rollout(1), lock(1))
	// 2: a `codex exec` run holds its rollout.
	f.add(200, false, rollout(2))
	// 3: held by the managed daemon only (a TUI that has quit): not live.
	d := f.add(300, false, rollout(3), lock(3))
	d.Argv = daemonArgv
	// 4: the daemon as the Inner child of the TUI that started it holds
	// another TUI's thread: neither is bound through it.
	p = f.add(400, true)
	p.Inner = []int{401, 402}
	f.cmdlines = map[int][]string{401: daemonArgv, 402: {"/x/codex", "app-server", "daemon", "pid-update-loop"}}
	f.hold(401, rollout(4), lock(4))
	// 5: a TUI served by the daemon holds nothing; `codex resume ID`.
	p = f.add(500, true)
	p.ArgSessionID = id(5)
	// 6: /proc unreadable (another user): PADDOCK_SESSION_ID.
	p = f.add(600, true, rollout(7))
	p.SessionID = id(6)
	f.fileErr = map[int]error{600: os.ErrPermission}
	// 8: an id prefix on the command line is no evidence, nor is a TUI
	// in the sessions' working directory holding nothing (never
	// the newest session of the same cwd).
	p = f.add(800, true)
	p.ArgSessionID, p.Cwd = id(8)[:8], "/p"
	// 9: a subagent's rollout held keeps its parent live.
	f.add(900, true, subPath)
	// A new thread whose rollout Codex has not written yet: only its lock.
	f.add(1000, true, lock(11))
	// Another Codex home's process: its files do not count here.
	f.add(1100, true, "/elsewhere/.codex/sessions/2026/01/02/rollout-2026-01-02T10-00-00-"+id(2)+".jsonl", "/elsewhere/.codex/thread-writer-locks/"+id(12)+".lock")
	// Some other runtime holding a file named like a rollout.
	f.procs = append(f.procs, procscan.AgentProcess{PID: 1200, Runtime: "claude"})
	f.hold(1200, rollout(8))

	s := f.scanner(h.dir)
	got := byID(scanAll(t, s))
	want := map[string]int{id(1): 100, id(2): 200, id(5): 500, id(6): 600, id(9): 900, id(11): 1000}
	for sid, info := range got {
		checkInfo(t, info)
		if pid := want[sid]; info.PID != pid {
			t.Errorf("%s: pid %d, want %d", sid, info.PID, pid)
		}
	}
	if _, ok := got[id(10)]; ok {
		t.Error("the subagent is listed")
	}
	fresh := got[id(11)]
	if fresh.Title != newSessionTitle || fresh.Cwd != "/work/p" || !fresh.Created.Equal(t0) || fresh.Path != "" || fresh.FirstPrompt != "" {
		t.Errorf("unwritten session: %+v", fresh)
	}
	if _, ok := got[id(12)]; ok {
		t.Error("another Codex home's thread is listed")
	}
	// Session and Conversation agree.
	ctx := context.Background()
	for sid, info := range got {
		one, err := s.Session(ctx, sid)
		if err != nil || one != info {
			t.Errorf("Session(%s) = %+v, %v; listed %+v", sid, one, err, info)
		}
	}
	if msgs, err := s.Conversation(ctx, id(11)); err != nil || len(msgs) != 0 {
		t.Errorf("Conversation of the unwritten session: %v, %v", msgs, err)
	}

	// The processes exit: nothing is live, the unwritten session is gone.
	f.procs = nil
	got = byID(scanAll(t, s))
	for sid, info := range got {
		if info.Live || info.PID != 0 {
			t.Errorf("%s still live: %+v", sid, info)
		}
	}
	if _, ok := got[id(11)]; ok {
		t.Error("the unwritten session outlives its process")
	}
	if _, err := s.Session(ctx, id(11)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session of the ended unwritten session: %v", err)
	}
	if _, err := s.Conversation(ctx, id(11)); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Conversation of the ended unwritten session: %v", err)
	}
}

// Two holders of one thread: the TUI wins over a background run, a file
// over a command line, then the lower pid.
func TestLivenessPreference(t *testing.T) {
	h := newHome(t)
	path := h.rollout(id(1), time.Now(), lines(meta(0, id(1), "/p"), turn(1, "p", "a"))...)
	f := &fakeProcs{}
	f.add(50, false, path)
	p := f.add(70, true)
	p.ArgSessionID = id(1)
	f.add(90, true, path)
	f.add(80, true, path)
	if got := scanAll(t, f.scanner(h.dir)); got[0].PID != 80 {
		t.Errorf("pid %d, want 80", got[0].PID)
	}
}

// Processes that cannot be listed mean no liveness, not a failed scan.
func TestLivenessUnsupported(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Now(), lines(meta(0, id(1), "/p"), turn(1, "p", "a"))...)
	for _, err := range []error{procscan.ErrUnsupported, errors.New("boom")} {
		s := New(Options{Dir: h.dir, KeepMissingCwd: true, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return nil, err }})
		if got := scanAll(t, s); len(got) != 1 || got[0].Live {
			t.Errorf("%v: %+v", err, got)
		}
	}
}

// A real process holding the rollout open, read through the real
// /proc/<pid>/fd (procscan.OpenFiles): live while it runs, not after.
func TestLivenessRealProcess(t *testing.T) {
	if _, err := procscan.OpenFiles(os.Getpid()); errors.Is(err, procscan.ErrUnsupported) {
		t.Skip("no /proc on this platform")
	}
	h := newHome(t)
	path := h.rollout(id(1), time.Now(), lines(meta(0, id(1), "/p"), turn(1, "p", "a"))...)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "60")
	cmd.Stdin = f // the child holds the rollout as fd 0
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	procs := []procscan.AgentProcess{{PID: cmd.Process.Pid, Runtime: "codex", Interactive: true}}
	s := New(Options{Dir: h.dir, KeepMissingCwd: true, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	if got := scanAll(t, s); !got[0].Live || got[0].PID != cmd.Process.Pid {
		t.Fatalf("held open: %+v", got[0])
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if got := scanAll(t, s); got[0].Live {
		t.Fatalf("after exit: %+v", got[0])
	}
}

// The proving ground recorded what /proc showed for two live Codex 0.169.0
// TUIs (../shared/fixtures/real/codex-0.169.0/liveness-*.txt): their
// command lines and open files. Replayed against a copy of the same Codex
// home, each binds exactly its own session.
func TestLivenessRecordings(t *testing.T) {
	src := sharedtestFixtures(t, "real", "codex-0.169.0")
	dir := copyTree(t, filepath.Join(src, "codex-home"))
	for _, c := range []struct {
		file      string
		launcher  int
		sessionID string
	}{
		{"liveness-pending-approval.txt", 16651, "01a22860-866a-7473-a4ce-3ed6798658d5"},
		{"liveness-resume.txt", 15538, "01a2285f-15d0-7bd3-a729-626c01070ed4"},
	} {
		t.Run(c.file, func(t *testing.T) {
			rec := parseLivenessRecording(t, filepath.Join(src, c.file))
			inv, ok := ownProcesses.Classify(rec.cmdline)
			if !ok || inv.Runtime != "codex" {
				t.Fatalf("recorded command line %q is not codex", rec.cmdline)
			}
			native := c.launcher + 1
			f := &fakeProcs{}
			p := f.add(c.launcher, true)
			p.Inner, p.ArgSessionID, p.Cwd = []int{native}, inv.SessionID, rec.cwd
			var files []string
			for _, fd := range rec.files {
				files = append(files, strings.Replace(fd, "/tmp/fakehome-codex/.codex", dir, 1))
			}
			f.hold(native, files...)
			infos := scanAll(t, f.scanner(dir))
			for _, info := range infos {
				if live := info.ID == c.sessionID; info.Live != live || live && info.PID != c.launcher {
					t.Errorf("%s: live %v pid %d", info.ID, info.Live, info.PID)
				}
			}
			if len(infos) != 6 {
				t.Errorf("%d sessions listed", len(infos))
			}
		})
	}
}

type livenessRecording struct {
	cmdline []string
	cwd     string
	files   []string
}

// parseLivenessRecording reads the "== cmdline", "== cwd" and "== fds"
// sections of a liveness-*.txt recording.
func parseLivenessRecording(t *testing.T, path string) livenessRecording {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rec livenessRecording
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		if name, ok := strings.CutPrefix(line, "== "); ok {
			section = name
			continue
		}
		switch {
		case section == "cmdline" && strings.TrimSpace(line) != "":
			rec.cmdline = strings.Fields(line)
		case section == "cwd" && strings.TrimSpace(line) != "":
			rec.cwd = strings.TrimSpace(line)
		case strings.HasPrefix(section, "fds"):
			if _, target, ok := strings.Cut(line, " -> "); ok {
				rec.files = append(rec.files, target)
			}
		}
	}
	if len(rec.cmdline) == 0 || len(rec.files) == 0 {
		t.Fatalf("%s: no command line or files", path)
	}
	return rec
}
