package web

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// Live is what the web layer needs from the live state (hooks, timers,
// process checks).
type Live interface {
	Card(k session.Key) (live.Card, bool)
	Cards() []live.Card
	Subscribe() (<-chan session.Change, func())
	Machine() live.MachineMemory
	// MarkRead clears a card's unread result: the user looked at it.
	MarkRead(ctx context.Context, k session.Key) error
}

// noLive stands in when serve runs without hooks (tests of the history
// views): no cards, no changes.
type noLive struct{}

func (noLive) Card(session.Key) (live.Card, bool)          { return live.Card{}, false }
func (noLive) Cards() []live.Card                          { return nil }
func (noLive) Machine() live.MachineMemory                 { return live.MachineMemory{} }
func (noLive) MarkRead(context.Context, session.Key) error { return nil }
func (noLive) Subscribe() (<-chan session.Change, func()) {
	ch := make(chan session.Change)
	return ch, func() {}
}

// entry is one session as the views show it: what its history says, and
// what its hooks say when it has a live card.
type entry struct {
	info session.Info
	card *live.Card
}

func (e entry) key() session.Key { return e.info.Key() }

// sortTime orders the board: the newest activity from either source.
func (e entry) sortTime() time.Time {
	t := e.info.Updated
	if e.card != nil && e.card.LastEvent.After(t) {
		t = e.card.LastEvent
	}
	return t
}

// infoFromCard is the history entry of a session paddock knows only from
// its hooks so far (no history file yet, or a runtime without a scanner).
func infoFromCard(c live.Card, home string) session.Info {
	return session.Info{
		Runtime: c.Key.Runtime, ID: c.Key.ID, Cwd: c.Cwd, Project: session.ShortProject(c.Cwd, home),
		Title: c.LastPrompt, LastPrompt: c.LastPrompt, Updated: c.LastEvent, Model: c.Model,
		Live: !c.State.Over(), PID: c.PID, Path: c.Transcript,
	}
}

// provisional reports whether a live card still waits for its session id
// (a hosted terminal before its first hook); such cards have no page yet.
func provisional(c live.Card) bool { return c.TerminalID != "" && c.State == hookstate.StateConnecting }

// entries merges the history list with the live cards, newest first.
// The filter's runtime and query also narrow the live-only cards; its
// Live and Limit are the caller's to apply (liveness and order change
// with the merge).
func (s *Server) entries(f catalog.Filter) []entry {
	list := s.opts.Sessions.List(catalog.Filter{Runtime: f.Runtime, Query: f.Query})
	q := strings.ToLower(strings.TrimSpace(f.Query))
	cards := slices.DeleteFunc(s.live.Cards(), func(c live.Card) bool {
		return f.Runtime != "" && c.Key.Runtime != f.Runtime ||
			q != "" && !strings.Contains(strings.ToLower(c.LastPrompt+"\x00"+c.Cwd), q)
	})
	byKey := make(map[session.Key]*live.Card, len(cards))
	for i := range cards {
		byKey[cards[i].Key] = &cards[i]
	}
	out := make([]entry, 0, len(list)+len(cards))
	for _, in := range list {
		e := entry{info: in}
		if c, ok := byKey[in.Key()]; ok {
			e.card = c
			delete(byKey, in.Key())
		}
		out = append(out, e)
	}
	for _, c := range cards {
		if _, left := byKey[c.Key]; left {
			out = append(out, entry{info: infoFromCard(c, s.home), card: &c})
		}
	}
	slices.SortStableFunc(out, func(a, b entry) int { return b.sortTime().Compare(a.sortTime()) })
	return out
}

// entry finds one session in the history or, failing that, among the live
// cards.
func (s *Server) entry(ctx context.Context, k session.Key) (entry, error) {
	in, err := s.opts.Sessions.Get(ctx, k)
	c, hasCard := s.live.Card(k)
	switch {
	case err == nil:
		e := entry{info: in}
		if hasCard {
			e.card = &c
		}
		return e, nil
	case hasCard && errors.Is(err, session.ErrNotFound):
		return entry{info: infoFromCard(c, s.home), card: &c}, nil
	}
	return entry{}, err
}

// messages is the conversation; a session known only from its hooks has
// none yet.
func (s *Server) messages(ctx context.Context, e entry) ([]session.Message, error) {
	msgs, err := s.opts.Sessions.Messages(ctx, e.key())
	if err != nil && e.card != nil && errors.Is(err, session.ErrNotFound) {
		return nil, nil
	}
	return msgs, err
}

// recent is the newest page of a conversation, as RecentMessages answers.
type recent struct {
	msgs []session.Message // oldest first
	// total counts the whole conversation; -1 when it was not counted
	// (the page was read from the end of a long history).
	total int
}

// recentMessages is the newest n messages: what a session's page shows
// first and its live updates carry. A session known only from its hooks
// has none yet.
func (s *Server) recentMessages(ctx context.Context, e entry, n int) (recent, error) {
	msgs, total, err := s.opts.Sessions.RecentMessages(ctx, e.key(), n)
	if err != nil && e.card != nil && errors.Is(err, session.ErrNotFound) {
		return recent{}, nil
	}
	return recent{msgs: msgs, total: total}, err
}

// stateOf is the board's state vocabulary for an entry: the hooks' state
// when the session has a live card, else what the agent's own files say.
func stateOf(e entry) (class, label string) {
	if e.card != nil {
		st := e.card.State
		return string(st), stateLabel(st)
	}
	in := e.info
	if !in.Live {
		return "ended", "ended"
	}
	switch in.State {
	case "busy":
		return "working", "working"
	case "waiting":
		if in.WaitingFor == "" {
			return "waiting", stateLabel(hookstate.StateWaiting)
		}
		if containsFold(in.WaitingFor, "permission") || containsFold(in.WaitingFor, "approv") {
			return "approval", stateLabel(hookstate.StateApproval)
		}
		return "input", stateLabel(hookstate.StateInput)
	case "idle":
		return "idle", "idle"
	}
	return "idle", "live"
}

func stateLabel(st hookstate.State) string {
	switch st {
	case hookstate.StateApproval:
		return "needs approval"
	case hookstate.StateInput:
		return "needs answer"
	case hookstate.StateWaiting:
		return "your turn"
	}
	return string(st)
}

func containsFold(s, sub string) bool { return strings.Contains(strings.ToLower(s), sub) }

// needsYou is the "needs you" strip: sessions waiting for an approval or an
// answer, oldest request first.
func needsYou(es []entry) []entry {
	var out []entry
	for _, e := range es {
		if cls, _ := stateOf(e); cls == string(hookstate.StateApproval) || cls == string(hookstate.StateInput) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b entry) int { return cmp.Compare(since(a).UnixNano(), since(b).UnixNano()) })
	return out
}

func since(e entry) time.Time {
	if e.card != nil {
		return e.card.Since
	}
	return e.info.Updated
}

// teamLinger is how long a team stays grouped after its last member ended
// (seed 000: the team is removed fifteen seconds after all have ended).
const teamLinger = 15 * time.Second

// group is one board slot: a session, or a team lead with its members.
type group struct {
	lead    entry
	members []entry
}

// teams groups team members (sessions whose live card names a parent on
// the board) under their lead, in the lead's place. A team whose sessions
// have all ended more than teamLinger ago is no longer grouped.
func teams(es []entry, now time.Time) []group {
	index := make(map[session.Key]int, len(es))
	for i, e := range es {
		index[e.key()] = i
	}
	members := map[int][]int{}
	for i, e := range es {
		if e.card == nil || e.card.Parent.ID == "" {
			continue
		}
		if p, ok := index[e.card.Parent]; ok && p != i {
			members[p] = append(members[p], i)
		}
	}
	grouped := map[int]bool{}
	for p, ms := range members {
		if !teamActive(es[p], ms, es, now) {
			delete(members, p)
			continue
		}
		for _, m := range ms {
			grouped[m] = true
		}
	}
	out := make([]group, 0, len(es))
	for i, e := range es {
		if grouped[i] && members[i] == nil {
			continue
		}
		g := group{lead: e}
		for _, m := range members[i] {
			g.members = append(g.members, es[m])
		}
		out = append(out, g)
	}
	return out
}

func teamActive(lead entry, ms []int, es []entry, now time.Time) bool {
	all := []entry{lead}
	for _, m := range ms {
		all = append(all, es[m])
	}
	for _, e := range all {
		if e.card == nil {
			if e.info.Live {
				return true
			}
			continue
		}
		st := e.card.State
		if !st.Over() || now.Sub(e.card.Since) <= teamLinger {
			return true
		}
	}
	return false
}
