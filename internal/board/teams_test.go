package board

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

func TestTeamsGroupUnderLeadUntilAllEnded(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	card := func(id string, st hookstate.State, since time.Time, parent string) Entry {
		c := live.Card{Key: session.Key{Runtime: "claude", ID: id}, State: st, Since: since}
		if parent != "" {
			c.Parent = session.Key{Runtime: "claude", ID: parent}
		}
		return Entry{Info: session.Info{Runtime: "claude", ID: id}, Card: &c}
	}
	order := func(es []Entry, slots []Slot) string {
		var b strings.Builder
		for i, sl := range slots {
			switch {
			case sl.Member:
				b.WriteString("+")
			case i > 0:
				b.WriteString(" ")
			}
			b.WriteString(es[sl.Index].Info.ID)
			if sl.Team > 0 {
				fmt.Fprintf(&b, "(%d)", sl.Team)
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		name string
		es   []Entry
		want string
	}{
		{"members move under their lead", []Entry{
			card("m1", hookstate.StateWorking, now, "lead"), card("solo", hookstate.StateIdle, now, ""),
			card("lead", hookstate.StateWaiting, now, ""), card("m2", hookstate.StateEnded, now, "lead"),
		}, "solo lead(3)+m1+m2"},
		{"all ended 10 s ago: still a team", []Entry{
			card("lead", hookstate.StateEnded, now.Add(-10*time.Second), ""), card("m1", hookstate.StateEnded, now.Add(-10*time.Second), "lead"),
		}, "lead(2)+m1"},
		{"all ended 20 s ago: the team is gone", []Entry{
			card("lead", hookstate.StateEnded, now.Add(-20*time.Second), ""), card("m1", hookstate.StateEnded, now.Add(-20*time.Second), "lead"),
		}, "lead m1"},
		{"no card names a parent", []Entry{
			card("b", hookstate.StateWorking, now, ""), {Info: session.Info{Runtime: "claude", ID: "history-only"}}, card("a", hookstate.StateIdle, now, ""),
		}, "b history-only a"},
		{"parent not on the board", []Entry{card("m1", hookstate.StateWorking, now, "gone")}, "m1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := order(tc.es, Teams(tc.es, now)); got != tc.want {
				t.Fatalf("board %q, want %q", got, tc.want)
			}
		})
	}
}
