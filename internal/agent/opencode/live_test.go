package opencode

import (
	"context"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/procscan"
)

// tui is an OpenCode process as procscan reports it: the command line
// classified with OpenCode's own table (its -s, --prompt and subcommand
// rules), a terminal, a working directory and a start time.
func tui(pid int, cwd string, started time.Time, argv ...string) procscan.AgentProcess {
	inv, ok := procscan.NewMatcher(process()).Classify(argv)
	if !ok {
		panic("not an agent command line: " + strings.Join(argv, " "))
	}
	return procscan.AgentProcess{
		PID: pid, Runtime: inv.Runtime, Argv: argv, Cwd: cwd, TTY: "/dev/pts/1",
		StartTicks: strconv.Itoa(pid * 10), Started: started,
		Interactive: inv.TUI, ArgSessionID: inv.SessionID,
	}
}

func withEnv(a procscan.AgentProcess, sessionID string) procscan.AgentProcess {
	a.SessionID = sessionID
	return a
}

func noTTY(a procscan.AgentProcess) procscan.AgentProcess {
	a.TTY, a.Interactive = "", false
	return a
}

// Liveness: -s/--session, then a whole
// PADDOCK_SESSION_ID, then -c (the newest unheld session of the
// directory), then one session each created since the TUI started; never
// "the newest session of the directory"; run and serve are not TUIs; and
// nothing after --prompt is read as arguments.
func TestLiveness(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	dbDir := t.TempDir()
	w := newDB(t, dbDir)
	h := func(n float64) time.Time { return t0.Add(time.Duration(n * float64(time.Hour))) }
	w.chat(sess{id: "ses_old", dir: a, created: h(0), updated: h(1)}, "old", "ok")
	w.chat(sess{id: "ses_mid", dir: a, created: h(2), updated: h(2)}, "mid", "ok")
	w.chat(sess{id: "ses_new", dir: a, created: h(3), updated: h(3)}, "new", "ok")
	w.chat(sess{id: "ses_b", dir: b, created: h(1), updated: h(1)}, "in b", "ok")

	// A handed-over task, as paddock (or corral) starts a new session with
	// one: full of words that are subcommands and flags.
	handoff := "continue the session from opencode run; it used -s ses_old and -c, see session list"

	cases := []struct {
		name  string
		procs []procscan.AgentProcess
		limit int
		want  map[string]int // live session → pid
	}{
		{"-s names the session, not the newest", []procscan.AgentProcess{
			tui(10, a, h(5), "opencode", "-s", "ses_old")}, 10, map[string]int{"ses_old": 10}},
		{"--session=", []procscan.AgentProcess{
			tui(10, a, h(5), "opencode", "--session=ses_mid", "--port", "4096")}, 10, map[string]int{"ses_mid": 10}},
		{"-s beats the process's start time", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "-s", "ses_b")}, 10, map[string]int{"ses_b": 10}},
		{"PADDOCK_SESSION_ID, the whole id", []procscan.AgentProcess{
			withEnv(tui(10, a, h(10), "opencode"), "ses_mid")}, 10, map[string]int{"ses_mid": 10}},
		{"a short placeholder id matches nothing, not even by prefix", []procscan.AgentProcess{
			withEnv(tui(10, a, h(10), "opencode"), "ses_mi")}, 10, map[string]int{}},
		{"-c: the newest session of its directory", []procscan.AgentProcess{
			tui(10, a, h(10), "opencode", "-c")}, 10, map[string]int{"ses_new": 10}},
		{"-c: the newest one no other process holds", []procscan.AgentProcess{
			tui(10, a, h(10), "opencode", "--continue"),
			tui(11, a, h(11), "opencode", "-s", "ses_new")}, 10, map[string]int{"ses_mid": 10, "ses_new": 11}},
		{"a plain TUI: a session created since it started", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode")}, 10, map[string]int{"ses_new": 10}},
		{"a plain TUI is never bound to the newest older session of its directory", []procscan.AgentProcess{
			tui(10, a, h(10), "opencode")}, 10, map[string]int{}},
		{"two TUIs in one directory: one session each", []procscan.AgentProcess{
			tui(10, a, h(1.5), "opencode"),
			tui(11, a, h(2.5), "opencode")}, 10, map[string]int{"ses_mid": 10, "ses_new": 11}},
		{"two TUIs started before both sessions: still one each", []procscan.AgentProcess{
			tui(10, a, h(1.5), "opencode"),
			tui(11, a, h(1.75), "opencode")}, 10, map[string]int{"ses_mid": 10, "ses_new": 11}},
		{"a TUI in another directory takes nothing here", []procscan.AgentProcess{
			tui(10, b, h(2.5), "opencode")}, 10, map[string]int{}},
		{"opencode run is not a TUI", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "run", "do it")}, 10, map[string]int{}},
		{"opencode run -s is not a TUI either", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "run", "-s", "ses_old", "more")}, 10, map[string]int{}},
		{"opencode serve is not a TUI", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "serve", "--port", "4096")}, 10, map[string]int{}},
		{"no terminal, no TUI", []procscan.AgentProcess{
			noTTY(tui(10, a, h(2.5), "opencode"))}, 10, map[string]int{}},
		{"--prompt with a handed-over task is still a TUI, and its -s is text", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "--prompt", handoff)}, 10, map[string]int{"ses_new": 10}},
		{"--prompt's text split into words (a space-joined command line)", []procscan.AgentProcess{
			tui(10, a, h(2.5), append([]string{"opencode", "--prompt"}, strings.Fields(handoff)...)...)}, 10, map[string]int{"ses_new": 10}},
		{"--prompt= with the task", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "--prompt="+handoff)}, 10, map[string]int{"ses_new": 10}},
		{"-c inside --prompt's text is not -c", []procscan.AgentProcess{
			tui(10, a, h(10), append([]string{"opencode", "--prompt"}, strings.Fields(handoff)...)...)}, 10, map[string]int{}},
		{"a real -s before --prompt counts", []procscan.AgentProcess{
			tui(10, a, h(10), "opencode", "-s", "ses_mid", "--prompt", handoff)}, 10, map[string]int{"ses_mid": 10}},
		{"-s with --fork makes a new session", []procscan.AgentProcess{
			tui(10, a, h(2.5), "opencode", "-s", "ses_old", "--fork")}, 10, map[string]int{"ses_new": 10}},
		{"a live session is listed beyond the limit", []procscan.AgentProcess{
			tui(10, a, h(10), "opencode", "-s", "ses_old")}, 1, map[string]int{"ses_old": 10}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(Options{DataDir: dbDir, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
				return c.procs, nil
			}})
			infos, err := s.Scan(context.Background(), c.limit, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]int{}
			listed := map[string]bool{}
			for _, info := range infos {
				listed[info.ID] = true
				if info.Live {
					got[info.ID] = info.PID
				} else if info.PID != 0 {
					t.Errorf("%s: PID %d but not live", info.ID, info.PID)
				}
			}
			if !maps.Equal(got, c.want) {
				t.Errorf("live = %v, want %v", got, c.want)
			}
			for id := range c.want {
				if !listed[id] {
					t.Errorf("live %s not listed", id)
				}
				info, err := s.Session(context.Background(), id)
				if err != nil || !info.Live || info.PID != c.want[id] {
					t.Errorf("Session(%s) = live %v pid %d, %v; want pid %d", id, info.Live, info.PID, err, c.want[id])
				}
			}
		})
	}
}

// A session the TUI just created has no prompt yet: it is listed while
// the TUI holds it, and not once it has ended (an empty session is not a
// conversation).
func TestEmptySessionListedOnlyWhileLive(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_real", dir: cwd, created: t0}, "hello", "hi")
	w.session(sess{id: "ses_empty", dir: cwd, created: t0.Add(time.Hour)})
	var procs []procscan.AgentProcess
	s := New(Options{DataDir: dbDir, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	ctx := context.Background()
	got, _ := s.Scan(ctx, 10, nil)
	if len(got) != 1 || got[0].ID != "ses_real" {
		t.Fatalf("without a process: %v, want [ses_real]", ids(got))
	}
	procs = []procscan.AgentProcess{tui(7, cwd, t0.Add(30*time.Minute), "opencode")}
	got, _ = s.Scan(ctx, 10, nil)
	if len(got) != 2 || got[0].ID != "ses_empty" || !got[0].Live || got[0].PID != 7 || got[0].Title != "" {
		t.Fatalf("with its TUI running: %+v", got)
	}
	if _, err := s.Session(ctx, "ses_empty"); err != nil {
		t.Errorf("Session(ses_empty) while live: %v", err)
	}
	procs = nil
	got, _ = s.Scan(ctx, 10, nil)
	if len(got) != 1 {
		t.Fatalf("after its TUI ended: %v", ids(got))
	}
}

// Processes failing (no /proc) means no liveness, not a failed scan.
func TestProcessesError(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_a", dir: cwd, created: t0}, "hello", "hi")
	s := New(Options{DataDir: dbDir, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
		return nil, procscan.ErrUnsupported
	}})
	got, err := s.Scan(context.Background(), 10, nil)
	if err != nil || len(got) != 1 || got[0].Live {
		t.Fatalf("Scan = %+v, %v", got, err)
	}
}

func TestContinueFlags(t *testing.T) {
	cases := []struct {
		argv       []string
		cont, fork bool
	}{
		{[]string{"opencode"}, false, false},
		{[]string{"opencode", "-c"}, true, false},
		{[]string{"opencode", "--continue", "--fork"}, true, true},
		{[]string{"/usr/bin/node", "/x/opencode", "-c"}, true, false},
		{[]string{"opencode", "--prompt", "-c"}, false, false},
		{[]string{"opencode", "--prompt=x", "-c"}, false, false},
		{[]string{"opencode", "--", "-c"}, false, false},
	}
	for _, c := range cases {
		if cont, fork := continueFlags(c.argv); cont != c.cont || fork != c.fork {
			t.Errorf("continueFlags(%q) = %v, %v; want %v, %v", c.argv, cont, fork, c.cont, c.fork)
		}
	}
}
