package hookstate_test

import (
	. "paddock/internal/hookstate"
	"testing"
	"time"
)

// TestToolTimers: the state machine's per-tool delays, and what each turns into.
func TestToolTimers(t *testing.T) {
	cases := []struct {
		tool  string
		delay time.Duration
		want  State
	}{
		{"Read", 3 * sec, StateApproval},
		{"Write", 3 * sec, StateApproval},
		{"Edit", 3 * sec, StateApproval},
		{"Grep", 3 * sec, StateApproval},
		{"Glob", 3 * sec, StateApproval},
		{"NotebookEdit", 3 * sec, StateApproval},
		{"AskUserQuestion", 3 * sec, StateInput},
		{"EnterPlanMode", 3 * sec, StateInput},
		{"ExitPlanMode", 3 * sec, StateInput},
		{"WebFetch", 15 * sec, StateApproval},
		{"WebSearch", 15 * sec, StateApproval},
		{"Bash", 8 * sec, StateApproval},
		{"Task", 8 * sec, StateApproval},
		// Other runtimes' spellings.
		{"bash", 8 * sec, StateApproval},            // OpenCode, Pi
		{"Shell", 8 * sec, StateApproval},           // Cursor
		{"apply_patch", 3 * sec, StateApproval},     // Codex
		{"FetchURL", 15 * sec, StateApproval},       // Kimi
		{"question", 3 * sec, StateInput},           // OpenCode
		{"request_user_input", 3 * sec, StateInput}, // Codex
		// Tools the named lists leave out: the default delays.
		{"mcp__github__create_issue", 15 * sec, StateApproval},
		{"TodoWrite", 8 * sec, StateApproval},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			if got := ToolTimeout(c.tool); got != c.delay {
				t.Fatalf("ToolTimeout = %v, want %v", got, c.delay)
			}
			m := newMachine("claude", Config{})
			run(t, m, []step{apply(0, ev(KindToolStart, tool(c.tool), mode("default")), StateWorking)})
			if d := m.NextDeadline(); !d.Equal(at(c.delay)) {
				t.Fatalf("NextDeadline %v, want %v", d.Sub(t0), c.delay)
			}
			run(t, m, []step{
				tick(c.delay-ms, none, StateWorking),
				tick(c.delay, none, c.want),
			})
			d, open := m.Dialog()
			if !open || !d.Inferred || d.Tool != c.tool || !d.OpenedAt.Equal(t0) {
				t.Fatalf("dialog %+v open=%v", d, open)
			}
			// The tool ending is the answer.
			run(t, m, []step{apply(c.delay+2*sec, ev(KindToolEnd, tool(c.tool)), StateWorking)})
		})
	}
}

func TestInference(t *testing.T) {
	cases := []struct {
		name  string
		rt    string
		cfg   Config
		steps []step
	}{
		{"PostToolUse in time: no approval", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash"), toolID("a")), StateWorking),
			apply(7*sec, ev(KindToolEnd, tool("Bash"), toolID("a")), StateWorking),
			tick(8*sec, none, StateWorking),
			tick(60*sec, none, StateWorking),
		}},
		{"slow tool with running children is not approval", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			tick(8*sec, Facts{ToolChildren: true}, StateWorking),
			tick(13*sec, Facts{ToolChildren: true}, StateWorking),
			tick(90*sec, Facts{ToolChildren: true}, StateWorking),
			apply(95*sec, ev(KindToolEnd, tool("Bash")), StateWorking),
			tick(100*sec, none, StateWorking),
		}},
		{"slow tool whose children are gone without PostToolUse is approval", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			tick(8*sec, Facts{ToolChildren: true}, StateWorking),
			tick(13*sec, none, StateApproval),
		}},
		{"inferred approval, then the tool's children appear: it runs", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("WebFetch")), StateWorking),
			tick(15*sec, none, StateApproval),
			tick(20*sec, Facts{ToolChildren: true}, StateWorking),
			tick(60*sec, none, StateWorking), // inferred once, not again
		}},
		{"running children do not hide a question", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("AskUserQuestion")), StateWorking),
			tick(3*sec, Facts{ToolChildren: true}, StateInput),
		}},
		{"bypassPermissions disables inference", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash"), mode("bypassPermissions")), StateWorking),
			apply(1*sec, ev(KindToolStart, tool("Read"), toolID("r")), StateWorking),
			apply(2*sec, ev(KindToolStart, tool("WebFetch"), toolID("w")), StateWorking),
			tick(60*sec, none, StateWorking),
			tick(10*minute, none, StateWorking),
		}},
		{"bypassPermissions keeps the question timer", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("AskUserQuestion"), mode("bypassPermissions")), StateWorking),
			tick(3*sec, none, StateInput),
		}},
		{"dontAsk disables inference, questions too", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash"), mode("dontAsk")), StateWorking),
			apply(0, ev(KindToolStart, tool("AskUserQuestion"), toolID("q")), StateWorking),
			tick(60*sec, none, StateWorking),
		}},
		{"auto mode shows no permission dialogs", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("WebFetch"), mode("auto")), StateWorking),
			tick(60*sec, none, StateWorking),
		}},
		{"acceptEdits: no timer for edits, Bash still", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Edit"), mode("acceptEdits"), toolID("e")), StateWorking),
			tick(5*sec, none, StateWorking),
			apply(6*sec, ev(KindToolStart, tool("Bash"), toolID("b")), StateWorking),
			tick(14*sec, none, StateApproval),
		}},
		{"the mode remembered from an earlier payload", "claude", Config{}, []step{
			apply(0, ev(KindPrompt, mode("bypassPermissions")), StatePrompting),
			apply(1*sec, ev(KindToolStart, tool("Bash")), StateWorking),
			tick(60*sec, none, StateWorking),
		}},
		{"PermissionRequest overrides inference at once", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			apply(300*ms, ev(KindPermission, tool("Bash")), StateApproval), // not after 8 s
			apply(20*sec, ev(KindToolEnd, tool("Bash")), StateWorking),
			tick(30*sec, none, StateWorking), // the answered tool is not inferred later
		}},
		{"PermissionRequest without a PreToolUse", "claude", Config{}, []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(1*sec, ev(KindPermission, tool("Bash")), StateApproval),
		}},
		{"an approved slow tool is not inferred again", "codex", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			apply(100*ms, ev(KindPermission, tool("Bash")), StateApproval),
			tick(8*sec, none, StateApproval),
			apply(9*sec, ev(KindReplied), StateWorking),
			tick(30*sec, none, StateWorking),
		}},
		{"Notification permission_prompt at medium density", "claude", Config{Density: DensityMedium}, []step{
			apply(0, ev(KindToolStart, tool("WebFetch")), StateWorking),
			apply(6*sec, ev(KindNotification, notif("permission_prompt")), StateApproval),
		}},
		{"Notification permission_prompt at low density is ignored", "claude", Config{Density: DensityLow}, []step{
			apply(0, ev(KindToolStart, tool("WebFetch")), StateWorking),
			apply(6*sec, ev(KindNotification, notif("permission_prompt")), StateWorking),
			tick(15*sec, none, StateApproval), // inference still works at low density
		}},
		{"Notification permission_prompt with no tool in flight: high only (medium)", "claude", Config{Density: DensityMedium}, []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(6*sec, ev(KindNotification, notif("permission_prompt")), StatePrompting),
		}},
		{"Notification permission_prompt with no tool in flight: high only (high)", "claude", Config{Density: DensityHigh}, []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(6*sec, ev(KindNotification, notif("permission_prompt")), StateApproval),
		}},
		{"Notification for a question tool is input", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("AskUserQuestion"), mode("dontAsk")), StateWorking),
			apply(1*sec, ev(KindNotification, notif("permission_prompt")), StateInput),
		}},
		{"elicitation_dialog is input at high density", "claude", Config{Density: DensityHigh}, []step{
			apply(0, ev(KindToolStart, tool("mcp__db__query")), StateWorking),
			apply(1*sec, ev(KindNotification, notif("elicitation_dialog")), StateInput),
		}},
		{"idle_prompt corrects a lost Stop", "claude", Config{}, []step{
			apply(0, ev(KindPrompt), StatePrompting),
			apply(20*sec, ev(KindNotification, notif("idle_prompt")), StateWaiting),
		}},
		{"Pi has no dialogs of its own: no inference", "pi", Config{}, []step{
			apply(0, ev(KindToolStart, tool("bash")), StateWorking),
			tick(60*sec, none, StateWorking),
		}},
		{"a running subagent is not a dialog of its Task", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Task"), toolID("task")), StateWorking),
			apply(100*ms, ev(KindSubagentStart), StateWorking),
			tick(8*sec, none, StateWorking),
			tick(2*minute, none, StateWorking),
			// The subagent's own tools are inferred as usual.
			apply(2*minute+sec, ev(KindToolStart, tool("Bash"), toolID("b"), agent("ag1")), StateWorking),
			tick(2*minute+9*sec, none, StateApproval),
			apply(2*minute+20*sec, ev(KindToolEnd, tool("Bash"), toolID("b"), agent("ag1")), StateWorking),
			apply(3*minute, ev(KindSubagentStop), StateWorking),
			tick(3*minute+100*ms, none, StateWorking), // Task re-armed, not fired at once
			apply(3*minute+200*ms, ev(KindToolEnd, tool("Task"), toolID("task")), StateWorking),
			tick(4*minute, none, StateWorking),
		}},
		{"a background subagent does not exempt the main agent's Bash", "claude", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Task"), toolID("task")), StateWorking),
			apply(100*ms, ev(KindSubagentStart), StateWorking),
			apply(200*ms, ev(KindToolEnd, tool("Task"), toolID("task")), StateWorking), // run_in_background
			apply(1*sec, ev(KindToolStart, tool("Bash"), toolID("b")), StateWorking),
			tick(9*sec, none, StateApproval),
		}},
		{"parallel subagents: another agent's tools do not close a dialog", "claude", Config{}, []step{
			apply(0, ev(KindPermission, tool("Bash"), agent("a")), StateApproval),
			apply(1*sec, ev(KindToolStart, tool("Read"), agent("b"), toolID("r")), StateApproval),
			apply(2*sec, ev(KindToolEnd, tool("Read"), agent("b"), toolID("r")), StateApproval),
			apply(3*sec, ev(KindToolEnd, tool("Bash"), agent("a")), StateWorking),
		}},
		{"stop clears pending tools", "codex", Config{}, []step{
			apply(0, ev(KindToolStart, tool("Bash")), StateWorking),
			apply(1*sec, ev(KindStop), StateWaiting),
			tick(9*sec, none, StateWaiting),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run(t, newMachine(c.rt, c.cfg), c.steps)
		})
	}
}

// TestInferenceOverriddenKeepsOpening: the real request turns an inferred
// dialog into a reported one, keeping when it opened.
func TestInferenceOverriddenKeepsOpening(t *testing.T) {
	m := newMachine("claude", Config{})
	run(t, m, []step{
		apply(0, ev(KindToolStart, tool("Bash"), toolID("x")), StateWorking),
		tick(8*sec, none, StateApproval),
	})
	if d, _ := m.Dialog(); !d.Inferred {
		t.Fatal("want an inferred dialog")
	}
	run(t, m, []step{apply(9*sec, Event{Kind: KindPermission, ToolName: "Bash", RequestID: "r1", ToolSummary: "rm -rf build"}, StateApproval)})
	d, _ := m.Dialog()
	if d.Inferred || !d.OpenedAt.Equal(t0) || d.RequestID != "r1" || d.ToolUseID != "x" || d.Summary != "rm -rf build" {
		t.Fatalf("dialog %+v", d)
	}
}
