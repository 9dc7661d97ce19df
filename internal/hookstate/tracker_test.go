package hookstate_test

import (
	"encoding/json"
	. "paddock/internal/hookstate"
	"reflect"
	"slices"
	"testing"

	"paddock/internal/session"
)

func TestTracker(t *testing.T) {
	tr := NewTracker(withRules(Config{}))
	a := session.Key{Runtime: "claude", ID: "a"}
	b := session.Key{Runtime: "codex", ID: "b"}

	// Stop, SessionEnd, turn completions and subagent events of unknown
	// sessions are ignored.
	for _, k := range []Kind{KindStop, KindSessionEnd, KindTurnComplete, KindInterrupt,
		KindSubagentStart, KindSubagentStop, KindActivity, KindToolEnd, KindReplied, KindBusy} {
		if changed, tracked := tr.Apply(a, ev(k), at(0)); changed || tracked {
			t.Errorf("%s of an unknown session: changed=%v tracked=%v", k, changed, tracked)
		}
	}
	if _, tracked := tr.Apply(a, ev(KindToolStart, tool("Bash"), agent("sub")), at(0)); tracked {
		t.Error("a subagent's event opened a session")
	}
	if _, tracked := tr.Apply(session.Key{Runtime: "claude"}, ev(KindPrompt), at(0)); tracked {
		t.Error("an event without a session id opened a session")
	}
	if tr.Len() != 0 {
		t.Fatalf("%d machines", tr.Len())
	}

	// A SessionStart or a prompt opens one.
	if changed, tracked := tr.Apply(a, ev(KindSessionStart), at(0)); !changed || !tracked {
		t.Fatal("SessionStart did not open a session")
	}
	if changed, tracked := tr.Apply(b, ev(KindPrompt, onRuntime("codex")), at(1*sec)); !changed || !tracked {
		t.Fatal("a prompt did not open a session")
	}
	if got := tr.Get(b).State(); got != StatePrompting {
		t.Fatalf("b %s", got)
	}
	if !slices.Equal(tr.Keys(), []session.Key{a, b}) {
		t.Fatalf("keys %v", tr.Keys())
	}
	// Known sessions take every event.
	if changed, _ := tr.Apply(a, ev(KindStop), at(2*sec)); !changed {
		t.Fatal("Stop of a known session")
	}

	// NextDeadline is the earliest: b's prompting at 31 s.
	if d := tr.NextDeadline(); !d.Equal(at(31 * sec)) {
		t.Fatalf("NextDeadline %v", d.Sub(t0))
	}
	changed := tr.Tick(at(31*sec), map[session.Key]Facts{a: {Process: ProcessAlive}})
	if !slices.Equal(changed, []session.Key{b}) || tr.Get(b).State() != StateWaiting {
		t.Fatalf("changed %v, b %s", changed, tr.Get(b).State())
	}
	changed = tr.Tick(at(40*sec), map[session.Key]Facts{a: {Process: ProcessGone}})
	if !slices.Equal(changed, []session.Key{a}) || tr.Get(a).State() != StateEnded {
		t.Fatalf("changed %v, a %s", changed, tr.Get(a).State())
	}

	// A hosted terminal: connecting under a provisional key, then rekeyed.
	term := session.Key{Runtime: "claude", ID: "term-1"}
	m := tr.Host(term, at(50*sec))
	if m.State() != StateConnecting {
		t.Fatalf("hosted %s", m.State())
	}
	sid := session.Key{Runtime: "claude", ID: "c"}
	if tr.Rekey(term, a) {
		t.Fatal("Rekey onto a taken key")
	}
	if !tr.Rekey(term, sid) || tr.Get(term) != nil || tr.Get(sid) != m {
		t.Fatal("Rekey")
	}
	if changed, _ := tr.Apply(sid, ev(KindSessionStart), at(51*sec)); !changed || m.State() != StateIdle {
		t.Fatalf("first hook: %s", m.State())
	}
	// Host on an existing card = restart: connecting, no ended in between.
	tr.Host(sid, at(60*sec))
	tr.Apply(sid, ev(KindSessionEnd, stamped(61*sec)), at(61*sec))
	if m.State() != StateConnecting {
		t.Fatalf("restart: %s", m.State())
	}
	if !tr.Remove(sid) || tr.Remove(sid) || tr.Get(sid) != nil {
		t.Fatal("Remove")
	}
	if m, created := tr.Open(b, at(70*sec)); created || m.State() != StateWaiting {
		t.Fatal("Open of an existing key")
	}
}

func TestSnapshotRestore(t *testing.T) {
	m := newMachine("claude", Config{})
	m.Apply(ev(KindStop), at(1*sec))
	m.Apply(ev(KindPrompt, mode("acceptEdits")), at(2*sec))
	m.Apply(ev(KindToolStart, tool("AskUserQuestion"), toolID("q1")), at(3*sec))
	m.Apply(Event{Kind: KindPermission, ToolName: "AskUserQuestion", ToolSummary: "Which color?"}, at(4*sec))
	m.MarkRead(at(2 * sec))

	snap := m.Snapshot()
	data, err := json.Marshal(snap)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, snap) {
		t.Fatalf("JSON round trip:\n%+v\n%+v", back, snap)
	}
	r, err := Restore(withRules(Config{}), back)
	if err != nil {
		t.Fatal(err)
	}
	if r.State() != StateInput || !r.Since().Equal(at(4*sec)) || r.Attention() != AttentionAnswer ||
		r.PermissionMode() != "acceptEdits" || r.Runtime() != "claude" {
		t.Fatalf("restored %s since %v attention %q", r.State(), r.Since().Sub(t0), r.Attention())
	}
	if d, open := r.Dialog(); !open || d.Tool != "AskUserQuestion" || d.ToolUseID != "q1" || d.Summary != "Which color?" {
		t.Fatalf("dialog %+v", d)
	}
	// Timers run from Since: a tick after a long downtime expires the dialog.
	run(t, r, []step{tick(4*sec+10*minute, none, StateIdle)})
	if r.Attention() != AttentionNone {
		t.Fatalf("after expiry: %q", r.Attention())
	}

	if _, err := Restore(withRules(Config{}), Snapshot{State: "busy"}); err == nil {
		t.Fatal("unknown state restored")
	}
	// An approval snapshot without its dialog still has one.
	r, _ = Restore(withRules(Config{}), Snapshot{Runtime: "codex", State: StateApproval, Since: t0})
	if _, open := r.Dialog(); !open {
		t.Fatal("approval without a dialog")
	}
}

func TestParseDensity(t *testing.T) {
	for in, want := range map[string]Density{"": DensityMedium, "low": DensityLow, "medium": DensityMedium, "high": DensityHigh} {
		if got, err := ParseDensity(in); err != nil || got != want {
			t.Errorf("ParseDensity(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseDensity("max"); err == nil {
		t.Error("ParseDensity(max) accepted")
	}
}
