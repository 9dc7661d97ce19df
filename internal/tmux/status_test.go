package tmux

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestCaptureScrollBackAndJoin: the screen alone, the screen with history,
// wrapped lines joined or not, trailing blanks trimmed.
func TestCaptureScrollBackAndJoin(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{Width: 100, Height: 20})
	p := start(t, s, Window{Name: "seq",
		Argv: sh(`i=1; while [ $i -le 300 ]; do echo "line $i"; i=$((i+1)); done; printf '%0150d\n' 0; echo done; exec sleep 600`)})
	waitScreen(t, s, p, "done")
	ctx := context.Background()
	long := strings.Repeat("0", 150)

	screen, err := s.Capture(ctx, p, CaptureOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(screen, "\n")
	if len(lines) > 20 || strings.Contains(screen, "line 1\n") || !strings.HasSuffix(screen, "done") {
		t.Errorf("screen (%d lines):\n%s", len(lines), screen)
	}
	if strings.Contains(screen, long) || !strings.Contains(screen, long[:100]+"\n"+long[100:]) {
		t.Errorf("without Join the 150-character line should wrap at 100:\n%s", screen)
	}
	joined, _ := s.Capture(ctx, p, CaptureOptions{Join: true})
	if !strings.Contains(joined, "\n"+long+"\n") {
		t.Errorf("Join did not join the wrapped line:\n%s", joined)
	}

	all, err := s.Capture(ctx, p, CaptureOptions{ScrollBack: 1000, Join: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(all, "line 1\nline 2\n") || !strings.Contains(all, "line 300\n"+long+"\ndone") {
		t.Errorf("scroll-back capture starts %q", all[:min(len(all), 40)])
	}
	some, _ := s.Capture(ctx, p, CaptureOptions{ScrollBack: 50, Join: true})
	if n := strings.Count(some, "\n") + 1; n < 50 || n > 71 || strings.Contains(some, "line 1\n") {
		t.Errorf("50 lines of scroll-back gave %d lines", n)
	}
	for _, c := range []string{screen, joined, all} {
		if strings.HasSuffix(c, "\n") || strings.Contains(c, " \n") {
			t.Errorf("trailing blanks kept: %q", c[max(0, len(c)-40):])
		}
	}
}

// TestDeadPanes: an exited program's window stays with its last screen
// and exit status (code or signal); the process is not alive.
func TestDeadPanes(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := context.Background()
	// The pause before exiting: tmux 3.3a closes a pane as soon as it
	// reaps the program, and output not yet read is lost (about one in
	// ten programs that print and exit at once, under load).
	code := start(t, s, Window{Name: "code", Argv: sh(`echo last words; sleep 0.3; exit 3`)})
	signal := start(t, s, Window{Name: "signal", Argv: sh(`echo killed; sleep 0.3; kill -TERM $$`)})
	alive := start(t, s, Window{Name: "alive", Argv: []string{"sleep", "600"}})

	if exit := waitDead(t, s, code); exit != (Exit{Known: true, Code: 3}) {
		t.Errorf("exit %+v", exit)
	}
	if exit := waitDead(t, s, signal); exit != (Exit{Known: true, Code: -1, Signal: 15}) {
		t.Errorf("exit %+v", exit)
	}
	if screen, err := s.Capture(ctx, code, CaptureOptions{}); err != nil || screen != "last words" {
		t.Errorf("dead pane's screen %q, %v", screen, err)
	}
	for _, p := range []Pane{code, signal} {
		if ok, err := s.Alive(ctx, p); ok || err != nil {
			t.Errorf("%s alive %v %v", p, ok, err)
		}
	}
	if ok, err := s.Alive(ctx, alive); !ok || err != nil {
		t.Errorf("alive: %v %v", ok, err)
	}
	if dead, exit, err := s.DeadStatus(ctx, alive); dead || exit.Known || err != nil {
		t.Errorf("running pane dead=%v %v %v", dead, exit, err)
	}
	if pid, err := s.PanePID(ctx, alive); err != nil || pid != alive.PID {
		t.Errorf("pid %d %v, want %d", pid, err, alive.PID)
	}
	if cmd, err := s.CurrentCommand(ctx, alive); err != nil || cmd != "sleep" {
		t.Errorf("command %q %v", cmd, err)
	}
	// A program that cannot start (multi-word Argv: tmux's own exec).
	bad := start(t, s, Window{Name: "bad", Argv: []string{"/nonexistent/agent", "--flag"}})
	if exit := waitDead(t, s, bad); exit.Code == 0 {
		t.Errorf("missing program exit %v", exit)
	}
	// The SIGCHLD nudge: a program killed outside tmux is seen dead.
	if err := killPID(alive.PID); err != nil {
		t.Fatal(err)
	}
	if exit := waitDead(t, s, alive); exit.Signal != 9 {
		t.Errorf("SIGKILLed program exit %v", exit)
	}
	infos, err := s.List(ctx)
	if err != nil || len(infos) != 4 {
		t.Fatalf("list %v %v", infos, err)
	}
	for _, in := range infos {
		if !in.Dead || !in.Exit.Known {
			t.Errorf("listed %s", in)
		}
	}
}

// TestPaneErrors: a missing pane is ErrNoPane carrying tmux's words; no
// server is ErrNoServer (Alive: false without error; List: empty).
func TestPaneErrors(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := context.Background()
	ghost := Pane{Session: "ghost", Window: "@1", ID: "%1"}
	if _, err := s.Status(ctx, ghost); !errors.Is(err, ErrNoServer) {
		t.Errorf("status without a server: %v", err)
	}
	if infos, err := s.List(ctx); infos != nil || err != nil {
		t.Errorf("list without a server: %v %v", infos, err)
	}
	if ok, err := s.Alive(ctx, ghost); ok || err != nil {
		t.Errorf("alive without a server: %v %v", ok, err)
	}
	if _, err := s.Capture(ctx, ghost, CaptureOptions{}); !errors.Is(err, ErrNoServer) {
		t.Errorf("capture without a server: %v", err)
	}
	start(t, s, Window{Name: "real", Argv: []string{"sleep", "600"}})
	_, err := s.Capture(ctx, ghost, CaptureOptions{})
	var te *Error
	if !errors.Is(err, ErrNoPane) || !errors.As(err, &te) || te.Op != "capture-pane" || te.Target != "=ghost:@1.%1" ||
		!strings.Contains(te.Stderr, "can't find") {
		t.Errorf("capture of a missing pane: %#v", err)
	}
	if err := s.SendText(ctx, ghost, "top secret words"); !errors.Is(err, ErrNoPane) || strings.Contains(err.Error(), "secret") {
		t.Errorf("send to a missing pane: %v", err)
	}
}

// killPID SIGKILLs a process of a pane behind tmux's back.
func killPID(pid int) error {
	pr, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return pr.Kill()
}
