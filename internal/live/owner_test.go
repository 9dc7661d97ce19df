package live

import (
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// hook builds a Claude event the way Decode would, with relay facts of an
// interactive terminal unless the test changes them.
func hook(id string, kind hookstate.Kind, name string) hookstate.Event {
	return hookstate.Event{Runtime: "claude", SessionID: id, Name: name, Kind: kind, Cwd: "/home/u/proj",
		Relay: hookstate.RelayInfo{PID: 4242, PPID: 4000, TTY: "/dev/pts/3", TermProgram: "vscode", SentAt: t0}}
}

func with(ev hookstate.Event, f func(*hookstate.Event)) hookstate.Event { f(&ev); return ev }

func key(id string) session.Key { return session.Key{Runtime: "claude", ID: id} }

type step struct {
	at time.Duration
	ev hookstate.Event
}

func run(t *testing.T, o *owner, steps ...step) *update {
	t.Helper()
	u := newUpdate()
	for _, s := range steps {
		o.event(s.ev, t0.Add(s.at), u)
	}
	return u
}

func state(t *testing.T, o *owner, k session.Key) hookstate.State {
	t.Helper()
	c, ok := o.card(k)
	if !ok {
		return ""
	}
	return c.State
}

func TestExternalSessionLifecycle(t *testing.T) {
	o := newOwner(hookstate.Config{})
	var got []hookstate.State
	for i, ev := range []hookstate.Event{
		hook("s1", hookstate.KindSessionStart, "SessionStart"),
		with(hook("s1", hookstate.KindPrompt, "UserPromptSubmit"), func(e *hookstate.Event) { e.Prompt = "fix the build" }),
		with(hook("s1", hookstate.KindToolStart, "PreToolUse"), func(e *hookstate.Event) { e.ToolName = "Bash"; e.ToolUseID = "t1" }),
		with(hook("s1", hookstate.KindToolEnd, "PostToolUse"), func(e *hookstate.Event) { e.ToolName = "Bash"; e.ToolUseID = "t1" }),
		hook("s1", hookstate.KindStop, "Stop"),
		hook("s1", hookstate.KindSessionEnd, "SessionEnd"),
	} {
		run(t, o, step{time.Duration(i) * time.Second, ev})
		got = append(got, state(t, o, key("s1")))
	}
	want := []hookstate.State{"idle", "prompting", "working", "working", "waiting", "ended"}
	if !slices.Equal(got, want) {
		t.Fatalf("states %v, want %v", got, want)
	}
	c, _ := o.card(key("s1"))
	var hist []hookstate.State
	for _, tr := range c.History {
		hist = append(hist, tr.State)
	}
	if want := []hookstate.State{"idle", "prompting", "working", "waiting", "ended"}; !slices.Equal(hist, want) {
		t.Fatalf("history %v, want %v", hist, want)
	}
	if !c.External || c.Terminal != "VS Code" || c.PID != 4242 || c.Cwd != "/home/u/proj" || c.LastPrompt != "fix the build" {
		t.Fatalf("card %+v", c)
	}
}

func TestUnknownSessionsThatOpenNoCard(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   hookstate.Event
	}{
		{"stop of an unknown session", hook("x", hookstate.KindStop, "Stop")},
		{"session end of an unknown session", hook("x", hookstate.KindSessionEnd, "SessionEnd")},
		{"subagent event", with(hook("x", hookstate.KindToolStart, "PreToolUse"), func(e *hookstate.Event) { e.ToolName = "Read"; e.AgentID = "a1" })},
		{"terminal-less run (claude -p)", with(hook("x", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.TTY = "" })},
		{"codex notify turn completion", hookstate.Event{Runtime: "codex", SessionID: "x", Kind: hookstate.KindTurnComplete}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOwner(hookstate.Config{})
			if u := run(t, o, step{0, tc.ev}); !u.empty() || o.tracker.Len() != 0 {
				t.Fatalf("opened a card: %v", o.tracker.Keys())
			}
		})
	}
}

func TestHTTPHookWithoutRelayOpensCard(t *testing.T) {
	o := newOwner(hookstate.Config{})
	ev := hook("h", hookstate.KindPrompt, "UserPromptSubmit")
	ev.Relay = hookstate.RelayInfo{} // Claude http hook: no relay facts
	run(t, o, step{0, ev})
	if state(t, o, key("h")) != hookstate.StatePrompting {
		t.Fatal("http hook of an unknown session opened no card")
	}
}

func hosted(id, cwd string) Terminal {
	return Terminal{ID: id, Runtime: "claude", Cwd: cwd, ShellPID: 5000, TmuxPane: "%7"}
}

// TestMatching drives each of the state machine's matching rules: a hosted terminal
// waits with a provisional card, an event of an unknown session arrives,
// and the card must (or must not) move to the event's session id.
func TestMatching(t *testing.T) {
	plain := func(id string) hookstate.Event { // no terminal id, other pid and parent
		return with(hook(id, hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) {
			e.Relay.PID, e.Relay.PPID, e.Relay.TmuxPane, e.Cwd = 9001, 9000, "", "/elsewhere"
		})
	}
	for _, tc := range []struct {
		name  string
		after time.Duration
		term  Terminal
		ev    hookstate.Event
		match bool
	}{
		{"injected terminal id", 0, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Relay.TerminalID = "T1" }), true},
		{"terminal id of another runtime", 0, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Relay.TerminalID = "T1"; e.Runtime = "codex" }), false},
		{"cwd of a terminal created 30 s ago", 30 * time.Second, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Cwd = "/p" }), true},
		{"cwd of a connecting terminal created 5 min ago", 5 * time.Minute, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Cwd = "/p" }), true},
		{"parent shell", 5 * time.Minute, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Relay.PPID = 5000 }), true},
		{"tmux pane of a single-session terminal", 5 * time.Minute, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Relay.TmuxPane = "%7" }), true},
		{"nothing in common", 0, hosted("T1", "/p"), plain("new"), false},
		{"other cwd", 0, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Cwd = "/q" }), false},
		{"terminal-less run claims nothing", 0, hosted("T1", "/p"), with(plain("new"), func(e *hookstate.Event) { e.Cwd = "/p"; e.Relay.TTY = "" }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOwner(hookstate.Config{})
			u := newUpdate()
			prov := o.host(tc.term, t0, u)
			if state(t, o, prov) != hookstate.StateConnecting {
				t.Fatalf("hosted card state %q, want connecting", state(t, o, prov))
			}
			u = run(t, o, step{tc.after, tc.ev})
			_, provLeft := o.card(prov)
			c, ok := o.card(tc.ev.Key())
			if tc.match {
				if provLeft || !ok || c.TerminalID != "T1" || c.External || !u.removed[prov] {
					t.Fatalf("not matched: provisional left %v, card %+v, removed %v", provLeft, c, u.removed)
				}
				if o.terms["T1"].key != tc.ev.Key() {
					t.Fatalf("terminal points at %v", o.terms["T1"].key)
				}
				return
			}
			if !provLeft {
				t.Fatal("the hosted card was taken")
			}
			if ok && !c.External {
				t.Fatalf("unmatched card not external: %+v", c)
			}
		})
	}
}

// Codex runs every TUI's hooks from one app-server daemon, with the
// environment of the TUI that started it: two sessions started at once
// in two directories each report the first one's terminal id. The
// directory decides.
func TestSharedHookProcessMatchesByDirectory(t *testing.T) {
	o := newOwner(hookstate.Config{})
	u := newUpdate()
	chat := o.host(Terminal{ID: "T1", Runtime: "codex", Cwd: "/home/u/chat", ShellPID: 5000, TmuxPane: "%1"}, t0, u)
	build := o.host(Terminal{ID: "T2", Runtime: "codex", Cwd: "/home/u/build", ShellPID: 5100, TmuxPane: "%2"}, t0, u)
	ev := func(id, cwd string) hookstate.Event {
		return hookstate.Event{Runtime: "codex", SessionID: id, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt, Cwd: cwd,
			Relay: hookstate.RelayInfo{PID: 7000, PPID: 5000, TTY: "/dev/pts/1", TmuxPane: "%1", TerminalID: "T1"}}
	}
	run(t, o, step{time.Second, ev("s-chat", "/home/u/chat")}, step{2 * time.Second, ev("s-build", "/home/u/build")})
	for _, tc := range []struct{ id, term string }{{"s-build", "T2"}, {"s-chat", "T1"}} {
		c, ok := o.card(session.Key{Runtime: "codex", ID: tc.id})
		if !ok || c.TerminalID != tc.term {
			t.Errorf("%s: card %+v %v, want terminal %s", tc.id, c, ok, tc.term)
		}
	}
	for _, k := range []session.Key{chat, build} {
		if _, left := o.card(k); left {
			t.Errorf("the provisional card %v is still there", k)
		}
	}
}

func TestTerminalTakesOverAfterLostSessionStart(t *testing.T) {
	// The hosted terminal's session is known; then a prompt of a new id
	// arrives from the same terminal (its SessionStart was lost, /clear):
	// the card moves, no duplicate card appears.
	o := newOwner(hookstate.Config{})
	u := newUpdate()
	o.host(Terminal{ID: "T1", Runtime: "claude", Cwd: "/p", SessionID: "first"}, t0, u)
	run(t, o, step{time.Second, with(hook("first", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.TerminalID = "T1" })})
	run(t, o, step{time.Minute, with(hook("second", hookstate.KindPrompt, "UserPromptSubmit"), func(e *hookstate.Event) {
		e.Relay.TerminalID = "T1"
		e.Relay.PID = 7777
	})})
	if o.tracker.Len() != 1 || state(t, o, key("second")) != hookstate.StatePrompting {
		t.Fatalf("cards %v", o.tracker.Keys())
	}
}

func TestSameProcessNewSessionTakesCard(t *testing.T) {
	for _, tc := range []struct {
		name  string
		gap   time.Duration
		takes bool
	}{
		{"/clear right after the end", 100 * time.Millisecond, true},
		{"pid reused an hour later", time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOwner(hookstate.Config{})
			run(t, o,
				step{0, hook("old", hookstate.KindSessionStart, "SessionStart")},
				step{time.Second, hook("old", hookstate.KindSessionEnd, "SessionEnd")},
				step{time.Second + tc.gap, hook("new", hookstate.KindSessionStart, "SessionStart")},
			)
			_, oldLeft := o.card(key("old"))
			if oldLeft == tc.takes {
				t.Fatalf("old card left = %v, want %v", oldLeft, !tc.takes)
			}
			if state(t, o, key("new")) != hookstate.StateIdle {
				t.Fatal("new session has no idle card")
			}
		})
	}
}

func TestResumeJustLaunched(t *testing.T) {
	o := newOwner(hookstate.Config{})
	run(t, o,
		step{0, hook("orig", hookstate.KindSessionStart, "SessionStart")},
		step{time.Second, hook("orig", hookstate.KindSessionEnd, "SessionEnd")},
	)
	u := newUpdate()
	k := o.host(Terminal{ID: "R1", Runtime: "claude", Cwd: "/home/u/proj", Resume: "orig"}, t0.Add(time.Hour), u)
	if k != key("orig") || state(t, o, k) != hookstate.StateConnecting {
		t.Fatalf("resume card %v in %q", k, state(t, o, k))
	}
	// The agent forked a new id for the resumed conversation.
	run(t, o, step{time.Hour + 3*time.Second, with(hook("fork", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) {
		e.Relay.PID, e.Relay.TerminalID = 8888, "R1"
	})})
	if _, ok := o.card(key("orig")); ok || state(t, o, key("fork")) != hookstate.StateIdle {
		t.Fatalf("cards %v", o.tracker.Keys())
	}
}

func TestTeams(t *testing.T) {
	lead := hook("lead", hookstate.KindSessionStart, "SessionStart")
	spawn := with(hook("lead", hookstate.KindSubagentStart, "SubagentStart"), func(e *hookstate.Event) { e.AgentID = "a1" })
	member := func(at time.Duration, f func(*hookstate.Event)) step {
		ev := with(hook("m", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.PID = 99 })
		if f != nil {
			f(&ev)
		}
		return step{at, ev}
	}
	for _, tc := range []struct {
		name   string
		steps  []step
		parent session.Key
	}{
		{"parent session env var", []step{{0, lead}, member(time.Minute, func(e *hookstate.Event) { e.Relay.ParentSessionID = "lead" })}, key("lead")},
		{"SubagentStart then SessionStart in the cwd within 10 s", []step{{0, lead}, {time.Second, spawn}, member(5*time.Second, nil)}, key("lead")},
		{"too late", []step{{0, lead}, {time.Second, spawn}, member(30*time.Second, nil)}, session.Key{}},
		{"another cwd", []step{{0, lead}, {time.Second, spawn}, member(2*time.Second, func(e *hookstate.Event) { e.Cwd = "/other" })}, session.Key{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOwner(hookstate.Config{})
			run(t, o, tc.steps...)
			c, ok := o.card(key("m"))
			if !ok || c.Parent != tc.parent {
				t.Fatalf("member card %v parent %v, want %v", ok, c.Parent, tc.parent)
			}
		})
	}
}

func TestSubagents(t *testing.T) {
	o := newOwner(hookstate.Config{})
	inAgent := func(kind hookstate.Kind, name, tool string) hookstate.Event {
		return with(hook("s", kind, name), func(e *hookstate.Event) { e.AgentID, e.AgentType, e.ToolName = "a1", "Explore", tool })
	}
	run(t, o,
		step{0, hook("s", hookstate.KindSessionStart, "SessionStart")},
		step{1 * time.Second, with(hook("s", hookstate.KindToolStart, "PreToolUse"), func(e *hookstate.Event) {
			e.ToolName, e.ToolSummary = "Task", "Find the flaky test"
		})},
		step{2 * time.Second, with(hook("s", hookstate.KindSubagentStart, "SubagentStart"), func(e *hookstate.Event) { e.AgentID, e.AgentType = "a1", "Explore" })},
		step{3 * time.Second, inAgent(hookstate.KindToolStart, "PreToolUse", "Grep")},
		step{4 * time.Second, inAgent(hookstate.KindToolEnd, "PostToolUse", "Grep")},
		step{5 * time.Second, inAgent(hookstate.KindToolStart, "PreToolUse", "Read")},
	)
	c, _ := o.card(key("s"))
	if len(c.Subagents) != 1 {
		t.Fatalf("subagents %+v", c.Subagents)
	}
	if s := c.Subagents[0]; s.ID != "a1" || s.Type != "Explore" || s.Task != "Find the flaky test" || s.ToolCalls != 2 || !s.Running {
		t.Fatalf("running subagent %+v", s)
	}
	run(t, o, step{6 * time.Second, with(hook("s", hookstate.KindSubagentStop, "SubagentStop"), func(e *hookstate.Event) {
		e.AgentID, e.TranscriptPath = "a1", "/home/u/.claude/projects/p/s/subagents/agent-a1.jsonl"
	})})
	c, _ = o.card(key("s"))
	if s := c.Subagents[0]; s.Running || s.Transcript == "" || s.Ended.IsZero() {
		t.Fatalf("stopped subagent %+v", s)
	}
}

func TestProcessChecks(t *testing.T) {
	o := newOwner(hookstate.Config{})
	run(t, o, step{0, hook("s", hookstate.KindSessionStart, "SessionStart")})
	u := newUpdate()
	ts := o.targets()
	if len(ts) != 1 || ts[0].PID != 4242 || ts[0].Cwd != "/home/u/proj" {
		t.Fatalf("targets %+v", ts)
	}
	o.observed(map[session.Key]Observation{key("s"): {Facts: hookstate.Facts{Process: hookstate.ProcessAlive}, Memory: Memory{RSS: 300 << 20, Processes: 3}}}, t0.Add(15*time.Second), u)
	if c, _ := o.card(key("s")); c.Memory.RSS != 300<<20 || c.State != hookstate.StateIdle || !u.changed[key("s")] {
		t.Fatalf("after alive check: %+v", c)
	}
	o.observed(map[session.Key]Observation{key("s"): {Facts: hookstate.Facts{Process: hookstate.ProcessGone}}}, t0.Add(30*time.Second), newUpdate())
	if st := state(t, o, key("s")); st != hookstate.StateEnded {
		t.Fatalf("gone process: %q, want ended", st)
	}
	if len(o.targets()) != 0 {
		t.Fatal("an ended card is still process-checked")
	}
	// A resume in a new process brings it back, and the stale "gone" must
	// not end it again at the next tick.
	run(t, o, step{40 * time.Second, with(hook("s", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.PID = 5151 })})
	o.tick(t0.Add(41*time.Second), newUpdate())
	if st := state(t, o, key("s")); st != hookstate.StateIdle {
		t.Fatalf("resumed session: %q, want idle", st)
	}
}

func TestTerminalKind(t *testing.T) {
	for _, tc := range []struct{ prog, pane, want string }{
		{"vscode", "", "VS Code"}, {"iTerm.app", "", "iTerm"}, {"iTerm.app", "%3", "tmux"},
		{"WarpTerminal", "", "Warp"}, {"Apple_Terminal", "", "Terminal"}, {"WezTerm", "", "WezTerm"},
		{"ghostty", "", "Ghostty"}, {"JetBrains-JediTerm", "", "JetBrains"}, {"kitty", "", "Kitty"},
		{"", "", ""}, {"Foot", "", "Foot"},
	} {
		if got := TerminalKind(tc.prog, tc.pane); got != tc.want {
			t.Errorf("TerminalKind(%q, %q) = %q, want %q", tc.prog, tc.pane, got, tc.want)
		}
	}
}

func TestDiscoveredProcessesBindPIDs(t *testing.T) {
	o := newOwner(hookstate.Config{})
	// A Claude http hook: no relay facts, so no pid.
	httpHook := hook("h", hookstate.KindSessionStart, "SessionStart")
	httpHook.Relay = hookstate.RelayInfo{}
	run(t, o, step{0, httpHook})
	u := newUpdate()
	hk := o.host(Terminal{ID: "T1", Runtime: "codex", Cwd: "/p"}, t0, u)
	u = newUpdate()
	o.discovered([]procscan.AgentProcess{
		{PID: 10, Runtime: "claude", ArgSessionID: "h", Interactive: true, TTY: "/dev/pts/1"},
		{PID: 11, Runtime: "codex", TerminalID: "T1", Interactive: true},
		{PID: 12, Runtime: "claude", ArgSessionID: "unknown", Interactive: true},
		{PID: 13, Runtime: "claude", SessionID: "h", Interactive: false},
	}, u)
	if c, _ := o.card(key("h")); c.PID != 10 || c.TTY != "/dev/pts/1" {
		t.Fatalf("http-hook card %+v", c)
	}
	if c, _ := o.card(hk); c.PID != 11 {
		t.Fatalf("hosted card pid %d", c.PID)
	}
	if o.tracker.Len() != 2 || !u.changed[key("h")] || !u.changed[hk] {
		t.Fatalf("cards %v, changed %v", o.tracker.Keys(), u.changed)
	}
	// A pid the hooks named is not overwritten.
	run(t, o, step{time.Second, hook("s", hookstate.KindSessionStart, "SessionStart")})
	o.discovered([]procscan.AgentProcess{{PID: 99, Runtime: "claude", ArgSessionID: "s", Interactive: true}}, newUpdate())
	if c, _ := o.card(key("s")); c.PID != 4242 {
		t.Fatalf("hook pid replaced: %d", c.PID)
	}
}

func TestResumeJustLaunchedKeepsEarlierRun(t *testing.T) {
	o := newOwner(hookstate.Config{})
	run(t, o, step{0, hook("orig", hookstate.KindSessionStart, "SessionStart")}, step{time.Second, hook("orig", hookstate.KindSessionEnd, "SessionEnd")})
	o.host(Terminal{ID: "R1", Runtime: "claude", Cwd: "/home/u/proj", Resume: "orig"}, t0.Add(time.Hour), newUpdate())
	run(t, o, step{time.Hour + time.Second, with(hook("fork", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) {
		e.Relay.PID, e.Relay.TerminalID = 8888, "R1"
	})})
	c, _ := o.card(key("fork"))
	if len(c.Runs) != 1 || c.Runs[0].Key != key("orig") {
		t.Fatalf("runs %+v, want the original session", c.Runs)
	}
	// At most five earlier runs, oldest dropped first.
	from := key("fork")
	for i := range 7 {
		to := key("run" + string(rune('a'+i)))
		o.rekey(from, to, t0.Add(2*time.Hour), newUpdate())
		from = to
	}
	c, _ = o.card(from)
	if len(c.Runs) != maxRuns || c.Runs[0].Key != key("runb") || c.Runs[maxRuns-1].Key != key("runf") {
		t.Fatalf("runs %+v", c.Runs)
	}
}

func TestResumeWithoutEventSettlesToIdle(t *testing.T) {
	// Pi's connecting never times out on its own (it has no SessionStart
	// guarantee); a resume that says nothing for two minutes must not hang
	// in connecting.
	o := newOwner(hookstate.Config{})
	pk := session.Key{Runtime: "pi", ID: "p1"}
	u := newUpdate()
	if k := o.host(Terminal{ID: "R1", Runtime: "pi", Cwd: "/p", Resume: "p1"}, t0, u); k != pk {
		t.Fatalf("key %v", k)
	}
	o.tick(t0.Add(resumeWindow-time.Second), u)
	if c, _ := o.card(pk); c.State != hookstate.StateConnecting || c.Note != "" {
		t.Fatalf("settled early: %+v", c)
	}
	o.tick(t0.Add(resumeWindow+time.Second), u)
	c, _ := o.card(pk)
	if c.State != hookstate.StateIdle || !strings.Contains(c.Note, "reported nothing") {
		t.Fatalf("after the window: %q %q", c.State, c.Note)
	}
	// The next event from the agent clears the explanation.
	o.event(hookstate.Event{Runtime: "pi", SessionID: "p1", Kind: hookstate.KindPrompt, Name: "agent_start",
		Relay: hookstate.RelayInfo{TerminalID: "R1", SentAt: t0.Add(3 * time.Minute)}}, t0.Add(3*time.Minute), u)
	if c, _ := o.card(pk); c.Note != "" || c.State != hookstate.StatePrompting {
		t.Fatalf("after an event: %q %q", c.State, c.Note)
	}
}

func TestRestartingNeverShowsEnded(t *testing.T) {
	o := newOwner(hookstate.Config{})
	u := newUpdate()
	launch := []byte(`{"runtime":"claude","model":"opus"}`)
	o.host(Terminal{ID: "T1", Runtime: "claude", Cwd: "/home/u/proj", SessionID: "s1", Launch: launch, Name: "api work"}, t0, u)
	run(t, o, step{time.Second, with(hook("s1", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.TerminalID = "T1" })})
	if ts := o.targets(); len(ts) != 1 || ts[0].Key != key("s1") {
		t.Fatalf("targets before the restart %+v", ts)
	}
	k, ok := o.restarting("T1", t0.Add(time.Minute), u)
	if !ok || k != key("s1") || state(t, o, k) != hookstate.StateConnecting {
		t.Fatalf("restarting: %v %v %q", k, ok, state(t, o, k))
	}
	// No process check judges a card still connecting: the history's pid
	// is the previous run's, and "gone" would end the restarted card.
	if ts := o.targets(); len(ts) != 0 {
		t.Fatalf("targets while connecting %+v", ts)
	}
	// The old agent's goodbye, from the closed terminal, arrives after the
	// new terminal took the card.
	o.adopt(Terminal{ID: "T2", Runtime: "claude", Cwd: "/home/u/proj", Resume: "s1", Launch: launch, Name: "api work"}, k, t0.Add(61*time.Second), u)
	run(t, o,
		step{62 * time.Second, with(hook("s1", hookstate.KindSessionEnd, "SessionEnd"), func(e *hookstate.Event) { e.Relay.TerminalID = "T1" })},
		step{63 * time.Second, with(hook("s1", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.TerminalID = "T2" })},
	)
	c, _ := o.card(k)
	if c.State != hookstate.StateIdle || c.TerminalID != "T2" || c.Name != "api work" || string(c.Launch) != string(launch) {
		t.Fatalf("card after restart: %+v", c)
	}
	for _, h := range c.History {
		if h.State == hookstate.StateEnded {
			t.Fatalf("history went through ended: %+v", c.History)
		}
	}
	// Its own terminal's SessionEnd still ends it.
	run(t, o, step{70 * time.Second, with(hook("s1", hookstate.KindSessionEnd, "SessionEnd"), func(e *hookstate.Event) { e.Relay.TerminalID = "T2" })})
	if state(t, o, k) != hookstate.StateEnded {
		t.Fatalf("own SessionEnd: %q", state(t, o, k))
	}
	if _, ok := o.restarting("nope", t0, u); ok {
		t.Fatal("restarting an unknown terminal")
	}
}

func TestSaveRestoreKeepsLaunchAndRuns(t *testing.T) {
	o := newOwner(hookstate.Config{})
	u := newUpdate()
	o.host(Terminal{ID: "T1", Runtime: "claude", Cwd: "/p", SessionID: "s1", Launch: []byte(`{"runtime":"claude","effort":"high"}`), Name: "n",
		Parent: key("lead")}, t0, u)
	run(t, o, step{time.Second, with(hook("s1", hookstate.KindSessionStart, "SessionStart"), func(e *hookstate.Event) { e.Relay.TerminalID = "T1" })})
	o.rekey(key("s1"), key("s2"), t0.Add(time.Minute), u)
	o.meta[key("s2")].freed = 123 << 20
	cards, _ := o.save(map[session.Key]bool{key("s2"): true}, t0.Add(2*time.Minute))
	o2 := newOwner(hookstate.Config{})
	if n := o2.restore(hookstate.Config{}, cards); n != 1 {
		t.Fatalf("restored %d", n)
	}
	a, _ := o.card(key("s2"))
	b, _ := o2.card(key("s2"))
	if string(b.Launch) != string(a.Launch) || b.Name != "n" || b.Parent != key("lead") || b.Freed != 123<<20 ||
		len(b.Runs) != 1 || b.Runs[0].Key != key("s1") {
		t.Fatalf("restored %+v\nsaved %+v", b, a)
	}
}
