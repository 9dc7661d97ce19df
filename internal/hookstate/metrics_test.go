package hookstate_test

import (
	. "paddock/internal/hookstate"
	"testing"
	"time"
)

func TestMetrics(t *testing.T) {
	m := newMachine("claude", Config{})
	if got := m.Metrics(); got.HookLatency.Valid() || got.Detection.Valid() || got.PermissionResponse.Valid() {
		t.Fatalf("fresh metrics %+v", got)
	}
	// Hook latency: arrival minus the event's own time.
	m.Apply(ev(KindPrompt, stamped(0)), at(40*ms))                            // 40 ms, a state change
	m.Apply(ev(KindToolStart, tool("Bash"), stamped(1*sec)), at(1*sec+10*ms)) // 10 ms, a state change
	m.Apply(ev(KindActivity, stamped(2*sec)), at(2*sec+100*ms))               // 100 ms, no change
	m.Apply(ev(KindPermission, tool("Bash"), stamped(3*sec)), at(3*sec+20*ms))
	m.Apply(ev(KindActivity, stamped(5*sec)), at(4*sec)) // relay clock ahead: never negative
	m.Apply(ev(KindToolEnd, tool("Bash"), stamped(10*sec)), at(10*sec+30*ms))

	got := m.Metrics()
	if h := got.HookLatency; h.Count != 6 || h.Max != 100*ms || h.Last != 30*ms || h.Total != 200*ms || h.Mean() != 200*ms/6 {
		t.Errorf("hook latency %+v", h)
	}
	// Detection: only events that changed the state (prompt, tool start,
	// permission, tool end).
	if d := got.Detection; d.Count != 4 || d.Max != 40*ms || d.Last != 30*ms {
		t.Errorf("detection %+v", d)
	}
	// Permission response: from the PermissionRequest (3 s) to the tool end (10 s).
	if p := got.PermissionResponse; p.Count != 1 || p.Last != 7*sec {
		t.Errorf("permission response %+v", p)
	}

	// A correction noticed 2 s after its deadline.
	m.Apply(ev(KindStop, stamped(11*sec)), at(11*sec))
	m.Tick(at(11*sec+5*minute+2*sec), Facts{})
	if d := m.Metrics().Detection; d.Last != 2*sec || d.Count != 6 {
		t.Errorf("detection after a late tick %+v", d)
	}
}

func TestMetricsInferred(t *testing.T) {
	m := newMachine("codex", Config{})
	m.Apply(ev(KindToolStart, tool("Bash")), at(0))
	m.Tick(at(8*sec+500*ms), Facts{}) // inference due at 8 s, noticed 0.5 s late
	if d := m.Metrics().Detection; d.Last != 500*ms {
		t.Errorf("detection %+v", d)
	}
	m.Apply(ev(KindToolEnd, tool("Bash")), at(12*sec)) // answered 12 s after the tool started
	if p := m.Metrics().PermissionResponse; p.Count != 1 || p.Last != 12*sec {
		t.Errorf("permission response %+v", p)
	}
	// Esc on a dialog is an answer too; a Stop around it or a timeout is not.
	m.Apply(ev(KindPermission, tool("Bash")), at(20*sec))
	m.Apply(ev(KindInterrupt), at(23*sec))
	m.Apply(ev(KindPermission, tool("Bash")), at(30*sec))
	m.Apply(ev(KindStop), at(31*sec))
	m.Apply(ev(KindPermission, tool("Bash")), at(40*sec))
	m.Tick(at(40*sec+10*minute), Facts{})
	if p := m.Metrics().PermissionResponse; p.Count != 2 || p.Last != 3*sec || p.Max != 12*sec {
		t.Errorf("permission response %+v", p)
	}
}

func TestSampleMean(t *testing.T) {
	var s Sample
	if s.Mean() != 0 || s.Valid() {
		t.Fatal("empty sample")
	}
	s.Add(time.Second)
	s.Add(3 * time.Second)
	if s.Mean() != 2*time.Second || !s.Valid() || s.Max != 3*time.Second {
		t.Fatalf("%+v", s)
	}
}
