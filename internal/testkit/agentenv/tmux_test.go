package agentenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests drive plain shell programs, so the tmux driver is proven
// wherever tmux is installed, CLIs or not.

func newTmux(t *testing.T) *Tmux {
	t.Helper()
	x, err := NewTmux(TmuxOptions{})
	var me *MissingError
	if errors.As(err, &me) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := x.Close(); err != nil {
			t.Error(err)
		}
	})
	return x
}

func shell(name, script string, env ...string) Spec {
	return Spec{
		Name: name,
		Argv: []string{"/bin/sh", "-c", script},
		Env:  append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}, env...),
		Dir:  os.TempDir(),
	}
}

func within(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}

// TestSessionsKeepTheirOwnEnvironment: several programs on one server (as
// in make demo) each get exactly their Spec's environment, plus the marker
// and tmux's own variables.
func TestSessionsKeepTheirOwnEnvironment(t *testing.T) {
	x := newTmux(t)
	t.Setenv("HOST_SECRET", "leaked")
	script := `echo "a=${ONLY_A:-unset} b=${ONLY_B:-unset} host=${HOST_SECRET:-unset} pane=$TMUX_PANE marker=${PADDOCK_AGENTTEST:+set}"; sleep 600`
	a, err := x.Start(shell("first", script, "ONLY_A=1"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := x.Start(shell("second", script, "ONLY_B=1"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := within(t, 30*time.Second)
	for _, tc := range []struct {
		p    *Pane
		want string
	}{
		{a, "a=1 b=unset host=unset pane=" + a.Target() + " marker=set"},
		{b, "a=unset b=1 host=unset pane=" + b.Target() + " marker=set"},
	} {
		if _, err := tc.p.WaitScreen(ctx, regexp.MustCompile(regexp.QuoteMeta(tc.want))); err != nil {
			t.Error(err)
		}
	}
	if _, err := x.Start(shell("first", script)); err == nil {
		t.Error("a second session with the same name started")
	}
}

func TestTypeKeyScreenExit(t *testing.T) {
	x := newTmux(t)
	p, err := x.Start(shell("sh", `echo "glyphs=❯›─"; while read -r line; do echo "got:$line"; done; echo eof; exit 3`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := within(t, 30*time.Second)
	if _, err := p.WaitScreen(ctx, regexp.MustCompile(`glyphs=❯›─`)); err != nil {
		t.Fatal(err)
	}
	if err := p.Type("hello paddock"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.WaitScreen(ctx, regexp.MustCompile(`got:hello paddock`)); err != nil {
		t.Fatal(err)
	}
	if err := p.Leave(Exit{Keys: []string{"C-d"}}); err != nil {
		t.Fatal(err)
	}
	status, err := p.WaitExit(ctx)
	if err != nil || status != "status 3" {
		t.Fatalf("exit %q, %v", status, err)
	}
	if s, _ := p.Screen(); !strings.Contains(s, "eof") {
		t.Errorf("final screen lost:\n%s", s)
	}
	_, err = p.WaitScreen(ctx, regexp.MustCompile(`never shown`))
	if err == nil || !strings.Contains(err.Error(), "status 3") || !strings.Contains(err.Error(), "got:hello paddock") {
		t.Errorf("error %v should give the exit status and the screen", err)
	}
}

// TestCloseKillsEverything: every pane's process, its children, and a
// detached daemon that left the tree (as Codex's app-server does) are gone
// after Close, and so is the server.
func TestCloseKillsEverything(t *testing.T) {
	x := newTmux(t)
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	var panes []*Pane
	for _, spec := range []Spec{
		shell("daemon", `(setsid sleep 600 & echo $! > `+pidFile+`); sleep 600 & echo started; wait`),
		shell("plain", `trap '' TERM; echo started; sleep 600`),
	} {
		p, err := x.Start(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.WaitScreen(within(t, 30*time.Second), regexp.MustCompile(`started`)); err != nil {
			t.Fatal(err)
		}
		panes = append(panes, p)
	}
	var daemon int
	for ctx := within(t, 10*time.Second); daemon == 0; {
		b, _ := os.ReadFile(pidFile)
		daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		select {
		case <-ctx.Done():
			t.Fatal("daemon pid never written")
		case <-time.After(50 * time.Millisecond):
		}
	}
	owned := x.Owned()
	if len(owned) < 6 {
		t.Fatalf("owned processes %v: want the server, two shells, their sleeps and the daemon", owned)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range append(owned, daemon, x.ServerPID(), panes[0].PID(), panes[1].PID()) {
		if Alive(pid) {
			t.Errorf("pid %d survived Close", pid)
		}
	}
	if _, err := os.Stat(x.Socket()); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	if _, err := x.Start(shell("late", "true")); err == nil {
		t.Error("Start after Close worked")
	}
}
