package tmux

import (
	"context"
	"slices"
	"testing"
)

func sessions[T interface{ Pane | Info }](xs []T) []string {
	var names []string
	for _, x := range xs {
		switch v := any(x).(type) {
		case Pane:
			names = append(names, v.Session)
		case Info:
			names = append(names, v.Session)
		}
	}
	slices.Sort(names)
	return names
}

// TestReconcile: windows killed behind paddock's back, programs that
// exited, windows paddock does not know; then the whole server killed and
// a new one started, whose reused ids are not taken for the old panes.
func TestReconcile(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := context.Background()
	a := start(t, s, Window{Name: "a", Argv: []string{"sleep", "600"}})
	b := start(t, s, Window{Name: "b", Argv: []string{"sleep", "600"}})
	c := start(t, s, Window{Name: "c", Argv: sh(`exit 0`)})
	start(t, s, Window{Name: "d", Argv: []string{"sleep", "600"}}) // not in paddock's records
	rawTmux(t, s, "kill-window", "-t", "=b:")
	waitDead(t, s, c)
	firstPID, err := s.ServerPID(ctx)
	if err != nil {
		t.Fatal(err)
	}

	r, err := s.Reconcile(ctx, []Pane{a, b, c})
	if err != nil {
		t.Fatal(err)
	}
	if r.ServerPID != firstPID || r.Recovered != 1 || r.Orphaned != 2 ||
		!slices.Equal(sessions(r.Alive), []string{"a"}) || !slices.Equal(sessions(r.Gone), []string{"b"}) ||
		!slices.Equal(sessions(r.Dead), []string{"c"}) || !slices.Equal(sessions(r.Unknown), []string{"d"}) {
		t.Errorf("reconciliation %+v", r)
	}
	if r.Dead[0].Exit != (Exit{Known: true, Code: 0}) {
		t.Errorf("dead pane's exit %v", r.Dead[0].Exit)
	}

	// The server is killed (a crash, or someone's kill-server).
	rawTmux(t, s, "kill-server")
	if s.Running(ctx) {
		t.Fatal("server still running")
	}
	r, err = s.Reconcile(ctx, []Pane{a, c})
	if err != nil {
		t.Fatal(err)
	}
	if r.ServerPID != 0 || r.Recovered != 0 || r.Orphaned != 2 || len(r.Gone) != 2 || len(r.Unknown) != 0 {
		t.Errorf("after kill-server: %+v", r)
	}

	// A new server: the first window gets the first ids again, and even
	// the same name, but it is not the old pane.
	a2 := start(t, s, Window{Name: "a", Argv: []string{"sleep", "600"}})
	if a2.Window != a.Window || a2.ID != a.ID {
		t.Logf("ids not reused (%s vs %s); the check below still holds", a2, a)
	}
	r, err = s.Reconcile(ctx, []Pane{a})
	if err != nil {
		t.Fatal(err)
	}
	if r.ServerPID == 0 || r.ServerPID == firstPID {
		t.Errorf("server pid %d, first was %d: a restart must show", r.ServerPID, firstPID)
	}
	if r.Recovered != 0 || r.Orphaned != 1 || len(r.Gone) != 1 || len(r.Unknown) != 1 || r.Unknown[0].Pane != a2 {
		t.Errorf("old pane against the new server: %+v", r)
	}
	r, err = s.Reconcile(ctx, []Pane{a2})
	if err != nil || r.Recovered != 1 || r.Orphaned != 0 || len(r.Unknown) != 0 {
		t.Errorf("new pane: %+v %v", r, err)
	}
}

// TestServerCrash: a server killed with SIGKILL leaves a stale socket;
// it reads as not running, everything known is gone, and the next
// NewWindow starts a fresh server on the same socket.
func TestServerCrash(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	ctx := context.Background()
	p := start(t, s, Window{Name: "x", Argv: []string{"sleep", "600"}})
	pid, err := s.ServerPID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := killPID(pid); err != nil {
		t.Fatal(err)
	}
	eventually(t, "server gone", func() (bool, string) { return !s.Running(ctx), "" })
	r, err := s.Reconcile(ctx, []Pane{p})
	if err != nil || r.ServerPID != 0 || r.Orphaned != 1 || len(r.Gone) != 1 {
		t.Errorf("after a crash: %+v %v", r, err)
	}
	q := start(t, s, Window{Name: "y", Argv: []string{"sleep", "600"}})
	if ok, err := s.Alive(ctx, q); !ok || err != nil {
		t.Errorf("new window after a crash: %v %v", ok, err)
	}
	if newPID, _ := s.ServerPID(ctx); newPID == pid || newPID == 0 {
		t.Errorf("server pid %d after restart, crashed one was %d", newPID, pid)
	}
}
