package agenttest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agentenv"
)

// These tests drive plain shell programs, so the tmux driver itself is
// proven wherever tmux is installed, CLIs or not.

func shellSpec(script string) Spec {
	return Spec{
		Name: "sh",
		Argv: []string{"/bin/sh", "-c", script},
		Env:  []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"},
		Dir:  os.TempDir(),
	}
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestTermTypeKeyAndScreen(t *testing.T) {
	term := Start(t, shellSpec(`echo "pane=$TMUX_PANE marker=${PADDOCK_AGENTTEST:+set} glyphs=❯›─"; while read -r line; do echo "got:$line"; done; echo eof`))
	ctx := ctxFor(t, 30*time.Second)
	s := term.Expect(ctx, regexp.MustCompile(`pane=%\d+ marker=set glyphs=❯›─`))
	if !strings.Contains(s, "pane="+term.Target()) {
		t.Errorf("TMUX_PANE in the pane is not Target() %q:\n%s", term.Target(), s)
	}
	term.Type("hello paddock")
	term.Expect(ctx, regexp.MustCompile(`got:hello paddock`))
	term.Key("C-d")
	status, err := term.WaitExit(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if status != "status 0" {
		t.Errorf("exit %q", status)
	}
	// The dead pane keeps its last words.
	if s, _ := term.Screen(); !strings.Contains(s, "eof") {
		t.Errorf("final screen lost:\n%s", s)
	}
}

func TestTermWaitScreenErrorsCarryTheScreen(t *testing.T) {
	t.Run("deadline", func(t *testing.T) {
		term := Start(t, shellSpec(`echo still-thinking; sleep 600`))
		term.Expect(ctxFor(t, 30*time.Second), regexp.MustCompile(`still-thinking`))
		_, err := term.WaitScreen(ctxFor(t, 300*time.Millisecond), regexp.MustCompile(`never shown`))
		if err == nil || !strings.Contains(err.Error(), "still-thinking") || !strings.Contains(err.Error(), "deadline") {
			t.Errorf("error %v should name the deadline and carry the screen", err)
		}
	})
	t.Run("program exited", func(t *testing.T) {
		// The pause: tmux drops the output of a program that exits at once.
		term := Start(t, shellSpec(`echo crashed-early; sleep 0.5; exit 3`))
		_, err := term.WaitScreen(ctxFor(t, 30*time.Second), regexp.MustCompile(`never shown`))
		if err == nil || !strings.Contains(err.Error(), "status 3") || !strings.Contains(err.Error(), "crashed-early") {
			t.Errorf("error %v should give the exit status and the screen", err)
		}
	})
}

// TestTermCloseKillsEverything: the pane's process, its children, and a
// detached daemon that left the tree (as Codex's app-server does) are all
// gone after Close.
func TestTermCloseKillsEverything(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	term := Start(t, shellSpec(`(setsid sleep 600 & echo $! > `+pidFile+`); sleep 600 & echo started; wait`))
	term.Expect(ctxFor(t, 30*time.Second), regexp.MustCompile(`started`))
	var daemon int
	for ctx := ctxFor(t, 10*time.Second); daemon == 0; {
		b, _ := os.ReadFile(pidFile)
		daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		select {
		case <-ctx.Done():
			t.Fatal("daemon pid never written")
		case <-time.After(50 * time.Millisecond):
		}
	}
	owned := term.tmux.Owned()
	if len(owned) < 4 {
		t.Fatalf("owned processes %v: want the server, the shell, its sleep and the daemon", owned)
	}
	server := term.tmux.ServerPID()
	term.Close()
	for _, pid := range append(owned, daemon, server) {
		if agentenv.Alive(pid) {
			t.Errorf("pid %d survived Close", pid)
		}
	}
	if _, err := os.Stat(term.Socket()); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}
