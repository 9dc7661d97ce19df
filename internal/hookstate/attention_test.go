package hookstate_test

import (
	. "paddock/internal/hookstate"
	"testing"
	"time"
)

func TestAttention(t *testing.T) {
	type check struct {
		at       time.Duration
		ev       *Event
		facts    *Facts
		markRead bool
		want     Attention
	}
	e := func(d time.Duration, x Event, want Attention) check { return check{at: d, ev: &x, want: want} }
	read := func(d time.Duration, want Attention) check { return check{at: d, markRead: true, want: want} }
	tk := func(d time.Duration, f Facts, want Attention) check { return check{at: d, facts: &f, want: want} }

	cases := []struct {
		name     string
		baseline time.Duration // initial read baseline offset; <0 = none
		checks   []check
	}{
		{"priority: answer > working > unread > none", -1, []check{
			e(0, ev(KindSessionStart), AttentionNone),
			e(1*sec, ev(KindPrompt), AttentionWorking),
			e(2*sec, ev(KindToolStart, tool("Bash")), AttentionWorking),
			e(3*sec, ev(KindPermission, tool("Bash")), AttentionAnswer),
			e(4*sec, ev(KindToolEnd, tool("Bash")), AttentionWorking),
			e(5*sec, ev(KindStop), AttentionUnread),
			read(6*sec, AttentionNone),
			e(7*sec, ev(KindPrompt), AttentionWorking),
			e(8*sec, ev(KindStop), AttentionUnread),
		}},
		{"a question survives Stop and turn completion", -1, []check{
			e(0, ev(KindToolStart, tool("AskUserQuestion")), AttentionWorking),
			e(1*sec, ev(KindPermission, tool("AskUserQuestion")), AttentionAnswer),
			e(2*sec, ev(KindStop), AttentionAnswer),
			e(3*sec, ev(KindTurnComplete), AttentionAnswer),
			read(4*sec, AttentionAnswer),
			e(5*sec, ev(KindPrompt), AttentionWorking), // only the user's submit ends it
		}},
		{"a question ends with the session", -1, []check{
			e(0, ev(KindQuestion), AttentionAnswer),
			e(1*sec, ev(KindStop), AttentionAnswer),
			e(2*sec, ev(KindSessionEnd), AttentionUnread),
		}},
		{"a question ends with the process", -1, []check{
			e(0, ev(KindQuestion), AttentionAnswer),
			e(1*sec, ev(KindTurnComplete), AttentionAnswer),
			tk(15*sec, Facts{Process: ProcessGone}, AttentionUnread),
		}},
		{"an inferred question counts (a structured AskUserQuestion call, unanswered)", -1, []check{
			e(0, ev(KindToolStart, tool("AskUserQuestion")), AttentionWorking),
			tk(3*sec, Facts{}, AttentionAnswer),
		}},
		{"an approval ends with Stop", -1, []check{
			e(0, ev(KindPermission, tool("Bash")), AttentionAnswer),
			e(1*sec, ev(KindStop), AttentionUnread),
		}},
		{"interrupt is a result token (abort)", -1, []check{
			e(0, ev(KindPrompt), AttentionWorking),
			e(1*sec, ev(KindInterrupt), AttentionUnread),
		}},
		{"a process alive but idle is not working", -1, []check{
			tk(1*sec, Facts{Process: ProcessAlive, ToolChildren: true}, AttentionNone),
		}},
		{"the initial baseline keeps old results read", 10 * sec, []check{
			e(1*sec, ev(KindStop, stamped(1*sec)), AttentionNone), // replayed history before the baseline
			e(11*sec, ev(KindPrompt), AttentionWorking),           // live work is never suppressed
			e(12*sec, ev(KindPermission, tool("Bash")), AttentionAnswer),
			e(13*sec, ev(KindStop), AttentionUnread), // a new result after the baseline
		}},
		{"a correction to waiting is no new result", -1, []check{
			e(0, ev(KindPrompt), AttentionWorking),
			tk(30*sec, Facts{}, AttentionNone),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{}
			if c.baseline >= 0 {
				cfg.ReadBaseline = at(c.baseline)
			}
			m := newMachine("claude", cfg)
			for i, ch := range c.checks {
				now := at(ch.at)
				switch {
				case ch.ev != nil:
					m.Apply(*ch.ev, now)
				case ch.facts != nil:
					m.Tick(now, *ch.facts)
				case ch.markRead:
					m.MarkRead(now)
				}
				if got := m.Attention(); got != ch.want {
					t.Fatalf("check %d at %v: attention %q, want %q (state %s)", i, ch.at, got, ch.want, m.State())
				}
			}
		})
	}
}

func TestMarkRead(t *testing.T) {
	m := newMachine("claude", Config{})
	m.Apply(ev(KindStop), at(5*sec))
	if !m.MarkRead(at(6 * sec)) {
		t.Fatal("MarkRead after a result should change attention")
	}
	if m.MarkRead(at(7 * sec)) {
		t.Fatal("a second MarkRead changes nothing")
	}
	m.MarkRead(at(1 * sec)) // never moves back
	if !m.ReadBaseline().Equal(at(7 * sec)) {
		t.Fatalf("baseline %v", m.ReadBaseline().Sub(t0))
	}
	if !m.LastResult().Equal(at(5 * sec)) {
		t.Fatalf("last result %v", m.LastResult().Sub(t0))
	}
}

// TestApplyReportsChanges: Apply and Tick report a change when state or
// attention changed, and only then.
func TestApplyReportsChanges(t *testing.T) {
	m := newMachine("claude", Config{})
	if m.Apply(ev(KindSessionStart), at(0)) {
		t.Error("idle → idle reported a change")
	}
	if !m.Apply(ev(KindPrompt), at(1*sec)) {
		t.Error("idle → prompting not reported")
	}
	if m.Apply(ev(KindActivity), at(2*sec)) {
		t.Error("activity reported a change")
	}
	if !m.Apply(ev(KindStop), at(3*sec)) {
		t.Error("prompting → waiting not reported")
	}
	if m.Apply(ev(KindTurnComplete), at(3*sec)) {
		t.Error("a duplicate completion reported a change")
	}
	if m.Tick(at(4*sec), Facts{}) {
		t.Error("an early tick reported a change")
	}
	if !m.Tick(at(3*sec+5*minute), Facts{}) {
		t.Error("waiting → idle not reported")
	}
	if !m.MarkRead(at(6 * minute)) {
		t.Error("unread → none not reported")
	}
}
