package board

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// fakeHistory is a catalog of fixed sessions; fakeLive a set of cards.
type fakeHistory struct {
	infos   []session.Info
	asGiven bool // All returns infos unsorted, as no catalog would
}

func (h *fakeHistory) Loaded() bool { return true }
func (h *fakeHistory) All() []session.Info {
	if h.asGiven {
		return h.infos
	}
	return slices.SortedFunc(slices.Values(h.infos), func(a, b session.Info) int {
		return cmp.Or(b.Updated.Compare(a.Updated), a.Key().Compare(b.Key()))
	})
}
func (h *fakeHistory) Get(_ context.Context, k session.Key) (session.Info, error) {
	for _, in := range h.infos {
		if in.Key() == k {
			return in, nil
		}
	}
	return session.Info{}, session.ErrNotFound
}
func (h *fakeHistory) Messages(context.Context, session.Key) ([]session.Message, error) {
	return nil, nil
}
func (h *fakeHistory) RecentMessages(context.Context, session.Key, int) ([]session.Message, int, error) {
	return nil, 0, nil
}
func (h *fakeHistory) Subscribe() (<-chan catalog.Change, func()) {
	return make(chan catalog.Change), func() {}
}
func (h *fakeHistory) Problems() []session.SourceProblem { return nil }
func (h *fakeHistory) Events(context.Context, session.Key) ([]session.Event, error) {
	return nil, catalog.ErrUnsupported
}
func (h *fakeHistory) EachEvent(context.Context, session.Key, func(session.Event) error) error {
	return catalog.ErrUnsupported
}
func (h *fakeHistory) Delete(context.Context, session.Key) error { return nil }
func (h *fakeHistory) HasSubagents(string) bool                  { return false }
func (h *fakeHistory) SubagentConversation(context.Context, session.Key, string) ([]session.Message, error) {
	return nil, catalog.ErrUnsupported
}

type fakeLive struct {
	noLive
	cards []live.Card
}

func (l *fakeLive) Cards() []live.Card { return slices.Clone(l.cards) }
func (l *fakeLive) Card(k session.Key) (live.Card, bool) {
	for _, c := range l.cards {
		if c.Key == k {
			return c, true
		}
	}
	return live.Card{}, false
}

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func keys(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key().String())
	}
	return out
}

// Paging walks the whole list once, in the board's order, whatever the
// page size; ids with dots and percent signs survive the cursor.
func TestPageWalksTheWholeList(t *testing.T) {
	h := &fakeHistory{}
	for i, id := range []string{"a", "b.c", "d%2E", "e", "f", "g"} {
		h.infos = append(h.infos, session.Info{Runtime: "claude", ID: id, Updated: t0.Add(-time.Duration(i/2) * time.Minute)}) // pairs share a time
	}
	h.infos = append(h.infos, session.Info{Runtime: "codex", ID: "z"}) // no time at all
	b := New(Options{History: h, Live: &fakeLive{cards: []live.Card{{Key: session.Key{Runtime: "pi", ID: "hooks-only"}, State: hookstate.StateWorking, LastEvent: t0.Add(time.Minute)}}}})
	all := keys(b.List(Filter{}))
	if len(all) != 8 || all[0] != "pi:hooks-only" || all[7] != "codex:z" {
		t.Fatalf("list %v", all)
	}
	for _, size := range []int{1, 2, 3, 7, 8, 100} {
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			page, next, err := b.Page(Select{}, cursor, size)
			if err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			got = append(got, keys(page)...)
			if next == "" {
				break
			}
			if pages > 10 {
				t.Fatalf("size %d: no end", size)
			}
			cursor = next
		}
		if !slices.Equal(got, all) {
			t.Errorf("size %d: pages %v, want %v", size, got, all)
		}
	}
}

// The list is the history's order with the cards' activity merged in:
// a card whose last event is newer moves its session up, an older one
// leaves it in place, a session known only from its hooks takes its
// time's place; the query sees a card's prompt too.
func TestListMergesCardsIntoTheHistorysOrder(t *testing.T) {
	var infos []session.Info
	for i := range 6 {
		infos = append(infos, session.Info{Runtime: "claude", ID: string(rune('a' + i)), Updated: t0.Add(-time.Duration(i) * time.Minute)})
	}
	cards := &fakeLive{cards: []live.Card{
		{Key: session.Key{Runtime: "claude", ID: "e"}, State: hookstate.StateWorking, LastEvent: t0.Add(time.Minute), LastPrompt: "Deploy the thing"},
		{Key: session.Key{Runtime: "claude", ID: "b"}, State: hookstate.StateIdle, LastEvent: t0.Add(-time.Hour)},
		{Key: session.Key{Runtime: "pi", ID: "hooks-only"}, State: hookstate.StateWorking, LastEvent: t0.Add(-150 * time.Second), Cwd: "/w/x"},
	}}
	want := []string{"claude:e", "claude:a", "claude:b", "claude:c", "pi:hooks-only", "claude:d", "claude:f"}
	for _, asGiven := range []bool{false, true} {
		h := &fakeHistory{infos: slices.Clone(infos), asGiven: asGiven}
		if asGiven {
			slices.Reverse(h.infos)
		}
		b := New(Options{History: h, Live: cards})
		if got := keys(b.List(Filter{})); !slices.Equal(got, want) {
			t.Errorf("history unsorted %v: list %v, want %v", asGiven, got, want)
		}
		if got := keys(b.List(Filter{Query: "deploy"})); !slices.Equal(got, []string{"claude:e"}) {
			t.Errorf("query on a card's prompt: %v", got)
		}
		if got := keys(b.List(Filter{Runtime: "pi"})); !slices.Equal(got, []string{"pi:hooks-only"}) {
			t.Errorf("runtime filter: %v", got)
		}
	}
}

// An entry that moves to the top between two pages is neither repeated
// nor makes the next page skip one.
func TestPageHoldsWhileTheListMoves(t *testing.T) {
	h := &fakeHistory{}
	for i := range 6 {
		h.infos = append(h.infos, session.Info{Runtime: "claude", ID: string(rune('a' + i)), Updated: t0.Add(-time.Duration(i) * time.Minute)})
	}
	b := New(Options{History: h})
	first, next, err := b.Page(Select{}, "", 3)
	if err != nil || !slices.Equal(keys(first), []string{"claude:a", "claude:b", "claude:c"}) {
		t.Fatalf("first page %v %v", keys(first), err)
	}
	h.infos[4].Updated = t0.Add(time.Hour) // "e" is active again
	second, _, err := b.Page(Select{}, next, 3)
	if err != nil || !slices.Equal(keys(second), []string{"claude:d", "claude:f"}) {
		t.Fatalf("second page %v %v", keys(second), err)
	}
}

func TestPageSelectsAndRefusesForeignCursors(t *testing.T) {
	h := &fakeHistory{infos: []session.Info{
		{Runtime: "claude", ID: "running", Live: true, Updated: t0},
		{Runtime: "claude", ID: "done", Updated: t0.Add(-time.Minute)},
		{Runtime: "codex", ID: "waiting", Live: true, State: "waiting", Updated: t0.Add(-2 * time.Minute)},
	}}
	b := New(Options{History: h})
	yes, no := true, false
	for _, tc := range []struct {
		sel  Select
		want []string
	}{
		{Select{Live: &yes}, []string{"claude:running", "codex:waiting"}},
		{Select{Live: &no}, []string{"claude:done"}},
		{Select{State: "waiting"}, []string{"codex:waiting"}},
		{Select{Filter: Filter{Runtime: "claude"}, Live: &yes}, []string{"claude:running"}},
	} {
		if got, _, err := b.Page(tc.sel, "", 10); err != nil || !slices.Equal(keys(got), tc.want) {
			t.Errorf("%+v: %v %v, want %v", tc.sel, keys(got), err, tc.want)
		}
	}
	for _, bad := range []string{"x", "1.claude", "zz.claude.%41", "1..id", "1.claude.", "9999999999999999.claude.a"} {
		if _, _, err := b.Page(Select{}, bad, 10); !errors.Is(err, ErrBadCursor) {
			t.Errorf("cursor %q: %v, want ErrBadCursor", bad, err)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, tc := range []struct {
		s, sub string
		want   bool
	}{
		{"Deploy the Thing", "the thing", true},
		{"Deploy", "deploy", true},
		{"Deploy", "deployed", false},
		{"", "x", false},
		{"anything", "", true},
		{"Über-Projekt", "über", true},
		{"naïve CAFÉ", "café", true},
		{"naïve CAFÉ", "cafe", false},
	} {
		if got := containsFold(tc.s, tc.sub); got != tc.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tc.s, tc.sub, got, tc.want)
		}
	}
}
