package export

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"paddock/internal/session"
)

// ordered is the export order as a whole record in memory gives it: the
// messages (with tools, every event), each call's results right after
// its first occurrence. The streaming orderer must write exactly this.
func ordered(evs []session.Event, tools bool) []session.Event {
	if !tools {
		var out []session.Event
		for _, e := range evs {
			if e.Kind == session.EventMessage {
				out = append(out, e)
			}
		}
		return out
	}
	calls := map[string]bool{}
	results := map[string][]session.Event{}
	for _, e := range evs {
		switch {
		case e.Kind == session.EventToolCall && e.ToolID != "":
			calls[e.ToolID] = true
		case isResult(e):
			results[e.ToolID] = append(results[e.ToolID], e)
		}
	}
	var out []session.Event
	for _, e := range evs {
		paired := e.ToolID != "" && calls[e.ToolID]
		switch {
		case isResult(e) && paired:
			continue
		case e.Kind == session.EventToolCall && paired:
			out = append(out, e)
			out = append(out, results[e.ToolID]...)
			delete(results, e.ToolID)
		default:
			out = append(out, e)
		}
	}
	return out
}

// streamed is what the orderer writes of evs, after a plan, holding at
// most max bytes.
func streamed(t *testing.T, evs []session.Event, tools bool, max int) []session.Event {
	t.Helper()
	x, err := Plan(FromEvents(evs), tools)
	if err != nil {
		t.Fatal(err)
	}
	var out []session.Event
	o := newOrderer(tools, x.results, func(e session.Event) error { out = append(out, e); return nil })
	o.max = max
	if err := FromEvents(evs)(o.add); err != nil {
		t.Fatal(err)
	}
	if err := o.end(); err != nil {
		t.Fatal(err)
	}
	return out
}

// randomRecord is n events over a few call ids: calls (some twice),
// results and tool images before, after and between them, orphans,
// messages and thinking.
func randomRecord(r *rand.Rand, n int) []session.Event {
	var evs []session.Event
	for i := range n {
		id := fmt.Sprintf("c%d", r.IntN(6))
		if r.IntN(8) == 0 {
			id = ""
		}
		var e session.Event
		switch r.IntN(6) {
		case 0:
			e = session.Event{Kind: session.EventMessage, Role: session.RoleUser}
		case 1:
			e = session.Event{Kind: session.EventThinking}
		case 2:
			e = session.Event{Kind: session.EventToolCall, ToolID: id}
		case 3, 4:
			e = session.Event{Kind: session.EventToolResult, ToolID: id}
		case 5:
			e = session.Event{Kind: session.EventImage, ToolID: id}
			if r.IntN(2) == 0 {
				e.Role = session.RoleUser // a person's image: never a result
			}
		}
		e.Text = fmt.Sprint(i) // tells every event apart
		evs = append(evs, e)
	}
	return evs
}

func texts(evs []session.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind[:1]+e.ToolID+"#"+e.Text)
	}
	return out
}

// TestOrdererMatchesWholeRecord: on random records, the streaming
// orderer writes exactly what ordering the whole record in memory does.
func TestOrdererMatchesWholeRecord(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		evs := randomRecord(r, r.IntN(40))
		for _, tools := range []bool{false, true} {
			want, got := ordered(evs, tools), streamed(t, evs, tools, maxHeld)
			if !slices.EqualFunc(got, want, func(a, b session.Event) bool { return a == b }) {
				t.Fatalf("record %d (tools %v) %q:\n got %q\nwant %q", i, tools, texts(evs), texts(got), texts(want))
			}
		}
	}
}

// TestOrdererBounded: holding at most a few events' worth, the orderer
// still writes every event once, calls before the results it placed.
func TestOrdererBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		evs := randomRecord(r, r.IntN(60))
		got := streamed(t, evs, true, 3*64)
		if len(got) != len(evs) {
			t.Fatalf("record %d: wrote %d of %d events: %q from %q", i, len(got), len(evs), texts(got), texts(evs))
		}
		a, b := slices.Clone(texts(got)), slices.Clone(texts(evs))
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("record %d: %q, not a reordering of %q", i, texts(got), texts(evs))
		}
	}
}
