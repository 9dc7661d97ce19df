package hookstate_test

import (
	. "paddock/internal/hookstate"
	"testing"
	"time"
)

var none = Facts{}

// TestTransitions covers the state machine's hook transitions and each runtime's
// equivalents, one event after another on the fake clock.
func TestTransitions(t *testing.T) {
	cases := []struct {
		name  string
		rt    string
		steps []step
	}{
		{"claude turn with a tool", "claude", []step{
			apply(0, ev(KindSessionStart), StateIdle),
			apply(1*sec, ev(KindPrompt), StatePrompting),
			apply(2*sec, ev(KindToolStart, tool("Read")), StateWorking),
			apply(2500*ms, ev(KindToolEnd, tool("Read")), StateWorking),
			apply(3*sec, ev(KindStop), StateWaiting),
			apply(4*sec, ev(KindSessionEnd), StateEnded),
		}},
		{"permission request is approval", "claude", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindToolStart, tool("Bash")), StateWorking),
			apply(1100*ms, ev(KindPermission, tool("Bash")), StateApproval),
			apply(5*sec, ev(KindToolEnd, tool("Bash")), StateWorking),
		}},
		{"AskUserQuestion is input", "claude", []step{
			apply(0, ev(KindToolStart, tool("AskUserQuestion")), StateWorking),
			apply(100*ms, ev(KindPermission, tool("AskUserQuestion")), StateInput),
			apply(9*sec, ev(KindToolEnd, tool("AskUserQuestion")), StateWorking),
		}},
		{"ExitPlanMode is input", "claude", []step{
			apply(0, ev(KindPermission, tool("ExitPlanMode")), StateInput),
		}},
		{"EnterPlanMode is input", "claude", []step{
			apply(0, ev(KindPermission, tool("EnterPlanMode")), StateInput),
		}},
		{"a tool end after Stop is a straggler", "claude", []step{
			apply(0, ev(KindStop), StateWaiting),
			apply(1*sec, ev(KindToolEnd, tool("Bash")), StateWaiting),
		}},
		{"codex Interrupt (Esc on the approval) is waiting", "codex", []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			apply(100*ms, ev(KindPermission, tool("Bash")), StateApproval),
			apply(2*sec, ev(KindInterrupt), StateWaiting),
		}},
		{"codex notify turn complete is waiting", "codex", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindTurnComplete), StateWaiting),
		}},
		{"opencode busy: idle/waiting → working, prompting stays", "opencode", []step{
			apply(0, ev(KindSessionStart), StateIdle),
			apply(1*sec, ev(KindBusy), StateWorking),
			apply(2*sec, ev(KindStop), StateWaiting), // session.status idle
			apply(3*sec, ev(KindPrompt), StatePrompting),
			apply(3100*ms, ev(KindBusy), StatePrompting),
			apply(4*sec, ev(KindToolStart, tool("bash")), StateWorking),
			apply(4100*ms, ev(KindPermission, tool("bash")), StateApproval),
			apply(4200*ms, ev(KindBusy), StateApproval), // busy never hides a dialog
			apply(6*sec, ev(KindReplied), StateWorking),
			apply(7*sec, ev(KindStop), StateWaiting),
		}},
		{"opencode question.asked is input", "opencode", []step{
			apply(0, ev(KindQuestion), StateInput),
			apply(5*sec, ev(KindReplied), StateWorking),
		}},
		{"cursor: prompt, afterAgentResponse is waiting not working", "cursor", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindBusy), StatePrompting),
			apply(2*sec, ev(KindToolStart, tool("Shell")), StateWorking),
			apply(3*sec, ev(KindToolEnd, tool("Shell")), StateWorking),
			apply(4*sec, ev(KindTurnComplete), StateWaiting),
			apply(4100*ms, ev(KindStop), StateWaiting),
		}},
		{"kimi: PermissionResult answers; Stop of a subagent is not the session's", "kimi", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindToolStart, tool("Agent"), toolID("a1")), StateWorking),
			apply(1100*ms, ev(KindSubagentStart), StateWorking),
			apply(1200*ms, ev(KindToolStart, tool("Bash"), toolID("b1")), StateWorking),
			apply(1300*ms, ev(KindPermission, tool("Bash"), toolID("b1")), StateApproval),
			apply(2*sec, ev(KindReplied), StateWorking),
			apply(2100*ms, ev(KindToolEnd, tool("Bash"), toolID("b1")), StateWorking),
			apply(2200*ms, ev(KindStop), StateWorking), // the subagent's turn
			apply(2300*ms, ev(KindSubagentStop), StateWorking),
			apply(2400*ms, ev(KindToolEnd, tool("Agent"), toolID("a1")), StateWorking),
			apply(2500*ms, ev(KindStop), StateWaiting),
		}},
		{"claude Stop is the session's even while a subagent runs", "claude", []step{
			apply(0, ev(KindSubagentStart), StateIdle),
			apply(1*sec, ev(KindStop), StateWaiting),
		}},
		{"steering a running turn changes nothing", "kimi", []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			apply(1*sec, ev(KindPrompt, steer()), StateWorking),
		}},
		{"pi gate: permission_asked / permission_decided", "pi", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindBusy), StatePrompting),
			apply(2*sec, ev(KindToolStart, tool("bash"), toolID("c1")), StateWorking),
			apply(2001*ms, ev(KindToolStart, tool("bash"), toolID("c1")), StateWorking),
			apply(2002*ms, ev(KindPermission, tool("bash"), toolID("c1")), StateApproval),
			apply(3*sec, ev(KindReplied), StateWorking),
			apply(3100*ms, ev(KindToolEnd, tool("bash"), toolID("c1")), StateWorking),
			apply(4*sec, ev(KindStop), StateWaiting),
		}},
		{"ended: only a resume or live hooks bring it back", "claude", []step{
			apply(0, ev(KindSessionEnd), StateEnded),
			apply(1*sec, ev(KindStop), StateEnded),
			apply(2*sec, ev(KindToolEnd, tool("Bash")), StateEnded),
			apply(3*sec, ev(KindNotification, notif("permission_prompt")), StateEnded),
			apply(4*sec, ev(KindSessionStart), StateIdle),
		}},
		{"ended then a prompt (http hooks send no SessionStart)", "claude", []step{
			apply(0, ev(KindSessionEnd), StateEnded),
			apply(1*sec, ev(KindPrompt), StatePrompting),
		}},
		{"SessionStart resets a stuck dialog", "claude", []step{
			apply(0, ev(KindPermission, tool("Bash")), StateApproval),
			apply(1*sec, ev(KindSessionStart), StateIdle),
		}},
		{"activity changes nothing", "claude", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindActivity), StatePrompting),
			apply(2*sec, ev(KindSubagentStop), StatePrompting),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, newMachine(c.rt, Config{}), c.steps)
		})
	}
}

func TestConnecting(t *testing.T) {
	for _, rt := range agents.Names() {
		t.Run(rt+" first hook", func(t *testing.T) {
			m := NewMachine(withRules(Config{}), Options{Runtime: rt, Connecting: true}, t0)
			run(t, m, []step{
				tick(10*sec, none, StateConnecting),
				apply(11*sec, ev(KindActivity), StateIdle),
			})
		})
		t.Run(rt+" 30 s", func(t *testing.T) {
			m := NewMachine(withRules(Config{}), Options{Runtime: rt, Connecting: true}, t0)
			want := StateConnecting // Only Claude Code and Codex time out
			if rt == "claude" || rt == "codex" {
				want = StateIdle
				if d := m.NextDeadline(); !d.Equal(at(30 * sec)) {
					t.Fatalf("NextDeadline %v, want 30s", d.Sub(t0))
				}
			} else if d := m.NextDeadline(); !d.IsZero() {
				t.Fatalf("NextDeadline %v, want none", d.Sub(t0))
			}
			run(t, m, []step{
				tick(29*sec, none, StateConnecting),
				tick(30*sec, none, want),
			})
		})
	}
	t.Run("a prompt straight from connecting", func(t *testing.T) {
		m := NewMachine(withRules(Config{}), Options{Runtime: "codex", Connecting: true}, t0)
		run(t, m, []step{apply(5*sec, ev(KindSessionStart), StateIdle), apply(5*sec, ev(KindPrompt), StatePrompting)})
	})
	t.Run("restart: the old process's SessionEnd does not end it", func(t *testing.T) {
		m := newMachine("claude", Config{})
		run(t, m, []step{apply(0, ev(KindStop), StateWaiting)})
		m.MarkConnecting(at(10 * sec))
		run(t, m, []step{
			apply(11*sec, ev(KindSessionEnd), StateConnecting),
			apply(12*sec, ev(KindSessionStart), StateIdle),
		})
	})
	t.Run("restart: a dead new process ends it", func(t *testing.T) {
		m := NewMachine(withRules(Config{}), Options{Runtime: "claude", Connecting: true}, t0)
		run(t, m, []step{tick(15*sec, Facts{Process: ProcessGone}, StateEnded)})
	})
}

// TestCorrections covers the state machine's automatic corrections.
func TestCorrections(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{
		{"prompting, no hook and no output for 30 s → waiting", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			tick(29*sec, none, StatePrompting),
			tick(30*sec, none, StateWaiting),
		}},
		{"a real Esc produces Stop, not the 30 s path", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(2*sec, ev(KindStop), StateWaiting), // at once, not after 30 s
			tick(30*sec, none, StateWaiting),
			tick(2*sec+5*minute-ms, none, StateWaiting), // its own 5 min run from the Stop
			tick(2*sec+5*minute, none, StateIdle),
		}},
		{"terminal output keeps prompting alive", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			tick(20*sec, Facts{OutputAt: at(20 * sec)}, StatePrompting),
			tick(30*sec, Facts{OutputAt: at(20 * sec)}, StatePrompting),
			tick(49*sec, Facts{OutputAt: at(20 * sec)}, StatePrompting),
			tick(50*sec, Facts{OutputAt: at(20 * sec)}, StateWaiting),
		}},
		{"any hook keeps prompting alive", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(25*sec, ev(KindActivity), StatePrompting),
			tick(54*sec, none, StatePrompting),
			tick(55*sec, none, StateWaiting),
		}},
		{"waiting 5 min → idle", []step{
			apply(0, ev(KindStop), StateWaiting),
			tick(5*minute-sec, none, StateWaiting),
			tick(5*minute, none, StateIdle),
			tick(60*minute, none, StateIdle),
		}},
		{"approval 10 min → idle", []step{
			apply(0, ev(KindPermission, tool("Bash")), StateApproval),
			tick(10*minute-sec, none, StateApproval),
			tick(10*minute, none, StateIdle),
		}},
		{"input 10 min → idle", []step{
			apply(0, ev(KindPermission, tool("AskUserQuestion")), StateInput),
			tick(10*minute, none, StateIdle),
		}},
		{"dialogs still reported open do not expire", []step{
			apply(0, ev(KindPermission, tool("Bash")), StateApproval),
			tick(10*minute, Facts{WaitingFor: "permission prompt"}, StateApproval),
			tick(20*minute, Facts{WaitingFor: "permission prompt"}, StateApproval),
			tick(45*minute, Facts{WaitingFor: "permission prompt"}, StateApproval),
			tick(46*minute, none, StateIdle), // no longer reported: it expires
		}},
		{"questions still reported open do not expire", []step{
			apply(0, ev(KindPermission, tool("AskUserQuestion")), StateInput),
			tick(30*minute, Facts{WaitingFor: "input needed"}, StateInput),
		}},
		{"working 15 min without a hook → idle", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindToolStart, tool("Bash"), mode("bypassPermissions")), StateWorking),
			tick(15*minute, none, StateWorking),
			tick(15*minute+sec, none, StateIdle),
		}},
		{"a hook while working restarts the 15 min", []step{
			apply(0, ev(KindToolStart, tool("Bash"), mode("bypassPermissions")), StateWorking),
			apply(10*minute, ev(KindActivity), StateWorking),
			tick(15*minute, none, StateWorking),
			tick(25*minute, none, StateIdle),
		}},
		{"process gone → ended, from working", []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			tick(1*sec, Facts{Process: ProcessAlive}, StateWorking),
			tick(2*sec, Facts{Process: ProcessGone}, StateEnded),
		}},
		{"process gone → ended, from approval", []step{
			apply(0, ev(KindPermission, tool("Bash")), StateApproval),
			tick(15*sec, Facts{Process: ProcessGone}, StateEnded),
		}},
		{"a hook stamped before the process died stays dead", []step{
			tick(15*sec, Facts{Process: ProcessGone}, StateEnded),
			apply(16*sec, ev(KindToolStart, tool("Bash"), stamped(14*sec)), StateEnded),
		}},
		{"a late owner catches up in one tick", []step{
			apply(0, ev(KindPrompt), StatePrompting),
			tick(6*minute, none, StateIdle), // prompting → waiting at 30 s → idle at 5 min 30 s
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, newMachine("claude", Config{}), c.steps)
		})
	}
}

func TestAsleep(t *testing.T) {
	m := newMachine("claude", Config{})
	run(t, m, []step{apply(0, ev(KindStop), StateWaiting), tick(5*minute, none, StateIdle)})
	if !m.MarkAsleep(at(20 * minute)) {
		t.Fatal("MarkAsleep reported no change")
	}
	run(t, m, []step{
		apply(20*minute+sec, ev(KindSessionEnd), StateAsleep), // closing the terminal
		tick(21*minute, Facts{Process: ProcessGone}, StateAsleep),
		apply(22*minute, ev(KindStop), StateAsleep),
		apply(30*minute, ev(KindSessionStart), StateIdle), // Resume
	})
	if m.NextDeadline().IsZero() != true {
		t.Fatal("idle has no timer")
	}
}

// TestConfigOverrides checks that Config replaces the state machine's timings.
func TestConfigOverrides(t *testing.T) {
	cfg := Config{PromptingQuiet: 10 * sec, WaitingIdle: minute, DialogIdle: 2 * minute,
		WorkingIdle: 3 * minute, ConnectingIdle: 5 * sec,
		ToolTimeouts: map[string]time.Duration{"bash": 20 * sec, "read": 0}}
	run(t, newMachine("claude", cfg), []step{
		apply(0, ev(KindPrompt), StatePrompting),
		tick(10*sec, none, StateWaiting),
		tick(70*sec, none, StateIdle),
		apply(80*sec, ev(KindToolStart, tool("Read")), StateWorking),
		tick(80*sec+time.Hour/60, none, StateWorking), // Read inference switched off
		apply(3*minute, ev(KindToolStart, tool("Bash")), StateWorking),
		tick(3*minute+19*sec, none, StateWorking),
		tick(3*minute+20*sec, none, StateApproval),
		tick(5*minute+20*sec, none, StateIdle),
	})
	m := NewMachine(withRules(cfg), Options{Runtime: "codex", Connecting: true}, t0)
	run(t, m, []step{tick(5*sec, none, StateIdle)})
}

// TestStaleEvents: hook processes run concurrently, so a payload stamped
// before the current state's cause can arrive after it.
func TestStaleEvents(t *testing.T) {
	run(t, newMachine("claude", Config{}), []step{
		apply(10*sec, ev(KindToolStart, tool("Bash"), toolID("t1"), stamped(10*sec)), StateWorking),
		apply(12*sec, ev(KindStop, stamped(12*sec)), StateWaiting),
		apply(12*sec+50*ms, ev(KindToolEnd, tool("Bash"), toolID("t1"), stamped(11*sec)), StateWaiting),
		apply(12*sec+60*ms, ev(KindPrompt, stamped(11900*ms)), StateWaiting),
		apply(13*sec, ev(KindPrompt, stamped(13*sec)), StatePrompting),
	})
	// A correction does not make a hook stamped just before it stale.
	run(t, newMachine("claude", Config{}), []step{
		apply(0, ev(KindPrompt, stamped(0)), StatePrompting),
		tick(30*sec, none, StateWaiting),
		apply(30*sec+100*ms, ev(KindToolStart, tool("Read"), stamped(29900*ms)), StateWorking),
	})
}

// TestDialogInvariant: the machine has an open dialog exactly in approval
// and input, whatever happens.
func TestDialogInvariant(t *testing.T) {
	kinds := []Kind{KindSessionStart, KindPrompt, KindBusy, KindToolStart, KindToolEnd, KindPermission,
		KindQuestion, KindReplied, KindNotification, KindStop, KindTurnComplete, KindInterrupt,
		KindSessionEnd, KindSubagentStart, KindSubagentStop, KindActivity}
	tools := []string{"Bash", "Read", "AskUserQuestion", "WebFetch", "mcp__x__y", ""}
	notifs := []string{"permission_prompt", "idle_prompt", "elicitation_dialog", ""}
	for _, density := range []Density{DensityLow, DensityMedium, DensityHigh} {
		for _, rt := range agents.Names() {
			m := newMachine(rt, Config{Density: density})
			now := t0
			seed := uint32(len(rt)) * 2654435761
			next := func(n int) int { seed = seed*1664525 + 1013904223; return int(seed>>16) % n }
			for i := 0; i < 3000; i++ {
				now = now.Add(time.Duration(next(20000)) * ms)
				if next(4) == 0 {
					f := Facts{Process: Process(next(3)), ToolChildren: next(2) == 0}
					if next(3) == 0 {
						f.WaitingFor = "permission prompt"
					}
					if next(2) == 0 {
						f.OutputAt = now.Add(-time.Duration(next(40)) * sec)
					}
					m.Tick(now, f)
					if d := m.NextDeadline(); !d.IsZero() && !d.After(now) {
						t.Fatalf("%s/%s step %d: NextDeadline in the past", density, rt, i)
					}
				} else {
					e := ev(kinds[next(len(kinds))], tool(tools[next(len(tools))]), notif(notifs[next(len(notifs))]))
					if next(5) == 0 {
						e.AgentID = "agent-1"
					}
					if next(3) == 0 {
						e.Time = now.Add(-time.Duration(next(3000)) * ms)
					}
					m.Apply(e, now)
				}
				_, open := m.Dialog()
				if open != m.State().NeedsUser() {
					t.Fatalf("%s/%s step %d: state %s with dialog open=%v", density, rt, i, m.State(), open)
				}
				if m.Since().After(now) {
					t.Fatalf("%s/%s step %d: Since %v after now", density, rt, i, m.Since().Sub(now))
				}
			}
		}
	}
}

// A turn that ended on an error says so until the next prompt, for the
// agents that report it (Claude Code's and Kimi Code's StopFailure).
func TestStopFailureMarksTheTurnFailed(t *testing.T) {
	for _, rt := range []string{"claude", "kimi"} {
		t.Run(rt, func(t *testing.T) {
			m := newMachine(rt, Config{})
			sid := `"session_id":"s1"`
			if rt == "kimi" {
				sid = `"session_id":"session_0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa"`
			}
			apply := func(event, extra string) {
				ev, err := Decode(rt, event, []byte(`{"hook_event_name":"`+event+`",`+sid+extra+`}`))
				if err != nil {
					t.Fatalf("%s: %v", event, err)
				}
				m.Apply(ev, t0.Add(time.Second))
			}
			apply("UserPromptSubmit", `,"prompt":"go"`)
			apply("StopFailure", `,"error":"rate_limit","error_details":"429 Too Many Requests"`)
			if m.State() != StateWaiting || !m.TurnFailed() {
				t.Fatalf("after StopFailure: %s, failed %v", m.State(), m.TurnFailed())
			}
			apply("UserPromptSubmit", `,"prompt":"again"`)
			if m.TurnFailed() {
				t.Fatal("a new prompt kept the failure")
			}
			apply("Stop", ``)
			if m.State() != StateWaiting || m.TurnFailed() {
				t.Fatalf("after a Stop: %s, failed %v", m.State(), m.TurnFailed())
			}
		})
	}
}
