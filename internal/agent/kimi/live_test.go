package kimi

import (
	"context"
	"maps"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/testkit/sharedtest"
)

func procsOf(ps ...procscan.AgentProcess) func(context.Context) ([]procscan.AgentProcess, error) {
	return func(context.Context) ([]procscan.AgentProcess, error) { return ps, nil }
}

// liveOf returns session id → pid of the live sessions in a full listing.
func liveOf(t *testing.T, s *Scanner) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, i := range scanAll(t, s) {
		if i.Live {
			out[i.ID] = i.PID
		}
	}
	return out
}

// kimiTUI is a kimi-code TUI as procscan reports it: argv replaced by the
// process title, so no flag can be read.
func kimiTUI(pid int, cwd string, started time.Time) procscan.AgentProcess {
	return procscan.AgentProcess{PID: pid, Runtime: "kimi", Argv: []string{"kimi-code"}, ArgsHidden: true,
		Cwd: cwd, TTY: "/dev/pts/0", Started: started, Interactive: true}
}

// TestLiveRealRecording replays the processes recorded with the real Kimi
// Code 2.1.0 (../shared/fixtures/real/kimi-code-2.1.0/liveness: comm and
// argv "kimi-code", no file held open) against the sessions the same run
// left: a TUI binds the session it created as it started (rule 4), not
// the print-mode sessions made just before it nor the sessions of the TUIs
// started after it; a
// resumed or continued TUI — whose arguments are hidden — binds nothing
// rather than a guess.
func TestLiveRealRecording(t *testing.T) {
	base := sharedtest.Fixtures(t, "real", "kimi-code-2.1.0")
	home := t.TempDir()
	copyTree(t, filepath.Join(base, "kimi-code-home"), home)
	const cwd = "/tmp/fakehome-kimi/proj"
	at := func(hms string) time.Time {
		tm, err := time.Parse("2006-01-02 15:04:05", "2026-11-29 "+hms)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	a := kimiTUI(11051, cwd, at("18:38:41"))          // liveness/A-*.txt
	aResumed := kimiTUI(11649, cwd, at("18:39:03"))   // A-resumed-*.txt, `kimi -S …`
	b := kimiTUI(11946, cwd, at("18:39:16"))          // B-*.txt
	bContinued := kimiTUI(12423, cwd, at("18:39:33")) // B-continued-idle.txt, `kimi --continue`
	const (
		sessA = "session_181828f0-710c-4d6c-beb2-411594b6c12a"
		sessB = "session_07c807cc-e0ff-4a59-bb50-d3fa8f5e5fee"
	)
	cases := []struct {
		name  string
		procs []procscan.AgentProcess
		want  map[string]int
	}{
		{"A", []procscan.AgentProcess{a}, map[string]int{sessA: a.PID}},
		{"B", []procscan.AgentProcess{b}, map[string]int{sessB: b.PID}},
		{"A and B in one directory", []procscan.AgentProcess{b, a}, map[string]int{sessA: a.PID, sessB: b.PID}},
		{"continued, arguments hidden", []procscan.AgentProcess{bContinued}, map[string]int{}},
		{"continued, -S readable", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := bContinued
			p.ArgsHidden, p.ArgSessionID = false, sessB
			p.Argv = []string{"kimi-code", "-S", sessB}
			return p
		}()}, map[string]int{sessB: bContinued.PID}},
		{"print mode", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := a
			p.Interactive = false
			return p
		}()}, map[string]int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTest(home, func(o *Options) { o.Processes = procsOf(c.procs...) })
			if got := liveOf(t, s); !maps.Equal(got, c.want) {
				t.Errorf("live %v, want %v", got, c.want)
			}
			for id, pid := range c.want {
				info, err := s.Session(context.Background(), id)
				if err != nil || !info.Live || info.PID != pid {
					t.Errorf("Session(%s) = live %v pid %d, %v", id, info.Live, info.PID, err)
				}
			}
		})
	}

	// While A was resumed (before B's session existed), the resumed TUI
	// found no session created after it started and took none: not the
	// newest of the directory.
	t.Run("resumed before any newer session", func(t *testing.T) {
		h := t.TempDir()
		copyTree(t, filepath.Join(base, "kimi-code-home"), h)
		if err := removeAll(filepath.Join(h, "sessions", "wd_proj_aa77772e96cd", sessB)); err != nil {
			t.Fatal(err)
		}
		s := newTest(h, func(o *Options) { o.Processes = procsOf(aResumed) })
		if got := liveOf(t, s); len(got) != 0 {
			t.Errorf("live %v, want none", got)
		}
	})
}

// TestLiveRules covers each rule and what it must not do on
// synthetic sessions in two directories.
func TestLiveRules(t *testing.T) {
	home := t.TempDir()
	now := time.Now().Truncate(time.Second)
	const dirP, dirQ = "/work/p", "/work/q"
	type sess struct {
		id, cwd string
		created time.Time
	}
	all := []sess{
		{"session_p_old", dirP, now.Add(-3 * time.Hour)},
		{"session_p_mid", dirP, now.Add(-2 * time.Hour)},
		{"session_p_new", dirP, now.Add(-10 * time.Minute)},
		{"session_q_new", dirQ, now.Add(-9 * time.Minute)},
		{"session_p_newest", dirP, now.Add(-5 * time.Minute)},
	}
	for _, x := range all {
		ms := x.created.UnixMilli()
		fake{bucket: workDirKey(x.cwd), id: x.id, state: stateJSON(x.id, x.cwd, "", ms),
			wire:  append([]string{recMeta(ms)}, turn("s", "prompt of "+x.id, "a", ms+10)...),
			mtime: x.created.Add(time.Second)}.write(t, home)
	}
	visible := func(pid int, cwd string, started time.Time, argv ...string) procscan.AgentProcess {
		return procscan.AgentProcess{PID: pid, Runtime: "kimi", Argv: append([]string{"node", "/usr/lib/node_modules/@moonshot-ai/kimi-code/dist/main.mjs"}, argv...),
			Cwd: cwd, TTY: "/dev/pts/1", Started: started, Interactive: true}
	}
	cases := []struct {
		name  string
		procs []procscan.AgentProcess
		want  map[string]int
	}{
		{"1: -S names the session, wherever and whenever", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := visible(10, dirQ, now, "-S", "session_p_old")
			p.ArgSessionID = "session_p_old"
			return p
		}()}, map[string]int{"session_p_old": 10}},
		{"1: the hidden -r alias", []procscan.AgentProcess{visible(11, dirP, now, "-r", "session_p_mid")},
			map[string]int{"session_p_mid": 11}},
		{"1: --resume=ID", []procscan.AgentProcess{visible(12, dirP, now, "--yolo", "--resume=session_p_mid")},
			map[string]int{"session_p_mid": 12}},
		{"1: a named session not on disk takes no other", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := kimiTUI(13, dirP, now.Add(-20*time.Minute))
			p.ArgSessionID = "session_not_written_yet"
			return p
		}()}, map[string]int{}},
		{"2: PADDOCK_SESSION_ID in full", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := kimiTUI(20, dirQ, now)
			p.SessionID = "session_p_mid"
			return p
		}()}, map[string]int{"session_p_mid": 20}},
		{"2: an 8-character placeholder never matches by prefix", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := kimiTUI(21, dirP, now.Add(-20*time.Minute))
			p.SessionID = "session_"
			return p
		}()}, map[string]int{}},
		{"1 before 2", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := kimiTUI(22, dirP, now)
			p.ArgSessionID, p.SessionID = "session_p_old", "session_p_mid"
			return p
		}()}, map[string]int{"session_p_old": 22}},
		{"3: -c takes its directory's newest", []procscan.AgentProcess{visible(30, dirP, now, "-c")},
			map[string]int{"session_p_newest": 30}},
		{"3: -c skips a session rule 1 holds", []procscan.AgentProcess{
			visible(31, dirP, now, "--continue"),
			func() procscan.AgentProcess {
				p := kimiTUI(32, dirQ, now)
				p.ArgSessionID = "session_p_newest"
				return p
			}()}, map[string]int{"session_p_newest": 32, "session_p_new": 31}},
		{"3: -c inside a -p prompt is prompt text", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := visible(33, dirP, now, "-p", "resume -c session_p_old please")
			p.Interactive = false
			return p
		}()}, map[string]int{}},
		{"4: a TUI takes the first session created after it started", []procscan.AgentProcess{kimiTUI(40, dirP, now.Add(-11*time.Minute))},
			map[string]int{"session_p_new": 40}},
		{"4: a later session of the directory goes to the TUI started before it", []procscan.AgentProcess{kimiTUI(40, dirP, now.Add(-7*time.Minute))},
			map[string]int{"session_p_newest": 40}},
		{"4: two TUIs in one directory, one session each", []procscan.AgentProcess{
			kimiTUI(41, dirP, now.Add(-11*time.Minute)), kimiTUI(42, dirP, now.Add(-6*time.Minute))},
			map[string]int{"session_p_new": 41, "session_p_newest": 42}},
		{"4: never a session created before the process", []procscan.AgentProcess{kimiTUI(43, dirP, now.Add(-time.Minute))},
			map[string]int{}},
		{"4: never another directory's session", []procscan.AgentProcess{kimiTUI(44, "/work/elsewhere", now.Add(-time.Hour))},
			map[string]int{}},
		{"4: the own directory only", []procscan.AgentProcess{kimiTUI(45, dirQ, now.Add(-time.Hour))},
			map[string]int{"session_q_new": 45}},
		{"4: unknown cwd claims nothing", []procscan.AgentProcess{kimiTUI(46, "", now.Add(-time.Hour))}, map[string]int{}},
		{"not a TUI: -p, server, web", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := kimiTUI(47, dirP, now.Add(-time.Hour))
			p.Interactive = false
			return p
		}()}, map[string]int{}},
		{"another runtime", []procscan.AgentProcess{func() procscan.AgentProcess {
			p := kimiTUI(48, dirP, now.Add(-time.Hour))
			p.Runtime, p.ArgSessionID = "opencode", "session_p_old"
			return p
		}()}, map[string]int{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newTest(home, func(o *Options) { o.Processes = procsOf(c.procs...) })
			if got := liveOf(t, s); !maps.Equal(got, c.want) {
				t.Errorf("live %v, want %v", got, c.want)
			}
			// Session agrees with Scan.
			for _, x := range all {
				info, err := s.Session(context.Background(), x.id)
				if err != nil {
					t.Fatal(err)
				}
				if pid := c.want[x.id]; info.Live != (pid != 0) || info.PID != pid {
					t.Errorf("Session(%s): live %v pid %d, want pid %d", x.id, info.Live, info.PID, pid)
				}
			}
		})
	}
}

// A live session is listed even when the limit would leave it out.
func TestLiveBeyondLimit(t *testing.T) {
	home := t.TempDir()
	now := time.Now().Truncate(time.Second)
	for i, id := range []string{"session_old", "session_new"} {
		at := now.Add(time.Duration(i-2) * time.Hour)
		fake{bucket: bucket, id: id, state: stateJSON(id, "/p", "", at.UnixMilli()),
			wire: append([]string{recMeta(at.UnixMilli())}, turn("s", id, "a", at.UnixMilli())...), mtime: at}.write(t, home)
	}
	p := kimiTUI(7, "/p", now)
	p.ArgSessionID = "session_old"
	s := newTest(home, func(o *Options) { o.Processes = procsOf(p) })
	infos, err := s.Scan(context.Background(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(infos); !slices.Equal(got, []string{"session_new", "session_old"}) || !infos[1].Live {
		t.Errorf("Scan(1) = %v", got)
	}
}

func TestParseArgs(t *testing.T) {
	cases := []struct {
		argv   []string
		resume string
		cont   bool
	}{
		{[]string{"kimi"}, "", false},
		{[]string{"kimi", "-S", "session_x"}, "session_x", false},
		{[]string{"kimi", "-S"}, "", false}, // the picker
		{[]string{"kimi", "--session", "-c"}, "", true},
		{[]string{"node", "-r", "preload.js", "/x/@moonshot-ai/kimi-code/dist/main.mjs", "-c"}, "", true},
		{[]string{"/usr/bin/python3", "/home/u/.local/bin/kimi", "-C"}, "", true},
		{[]string{"kimi", "-m", "-c", "--resume", "abc"}, "abc", false},
		{[]string{"kimi", "--prompt", "-c", "-r", "zzz"}, "", false},
	}
	for _, c := range cases {
		resume, cont := parseArgs(c.argv)
		if resume != c.resume || cont != c.cont {
			t.Errorf("parseArgs(%q) = %q, %v; want %q, %v", c.argv, resume, cont, c.resume, c.cont)
		}
	}
}

// workDirKey matches the bucket names Kimi Code 2.1.0 wrote.
func TestWorkDirKey(t *testing.T) {
	cases := map[string]string{
		"/tmp/paddock-fixtures-home/proj": "wd_proj_7bee20991442", // testdata/kimi-2.1.0
		"/tmp/fakehome-kimi/proj":         "wd_proj_aa77772e96cd", // ../shared real recording
		"/tmp/fakehome-kimi/proj/":        "wd_proj_aa77772e96cd",
	}
	for dir, want := range cases {
		if got := workDirKey(dir); got != want {
			t.Errorf("workDirKey(%q) = %q, want %q", dir, got, want)
		}
	}
	if got := workDirKey("/"); got != "wd_workspace_"+workDirKey("/")[len("wd_workspace_"):] {
		t.Errorf("root: %q", got)
	}
}

// The recorded process (liveness/*.txt: comm and cmdline "kimi-code" with
// the argument area blanked by its process title) is a kimi process to
// procscan, with hidden arguments: rule 4 is what binds it.
func TestRecordedProcessIsKimi(t *testing.T) {
	argv := append([]string{"kimi-code"}, make([]string, 36)...)
	inv, ok := procscan.NewMatcher(process()).Classify(argv)
	if !ok || inv.Runtime != runtimeName || !inv.ArgsHidden || !inv.TUI || inv.SessionID != "" {
		t.Errorf("Classify(kimi-code title) = %+v, %v", inv, ok)
	}
}
