package board

import (
	"cmp"
	"slices"
	"time"

	"paddock/internal/session"
)

// NeedsYou are the sessions waiting for an approval or an answer, oldest
// request first: the "needs you" strip.
func NeedsYou(es []Entry) []Entry {
	var out []Entry
	for _, e := range es {
		if e.NeedsYou() {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return cmp.Compare(a.Since().UnixNano(), b.Since().UnixNano()) })
	return out
}

// TeamLinger is how long a team stays grouped after its last member
// ended.
const TeamLinger = 15 * time.Second

// Slot is one card's place on the board: the entry at Index of the list
// Teams was given, alone, as a team's lead (Team: the team's size, its
// members included) or as a member, right after its lead.
type Slot struct {
	Index  int
	Team   int
	Member bool
}

// Teams lays the board out: team members (sessions whose live card names
// a parent on the board) follow their lead, in the lead's place; every
// other entry keeps its own. A team whose sessions have all ended more
// than TeamLinger ago is no longer grouped. It costs one pass when no
// card names a parent, as on most boards of thousands of sessions.
func Teams(es []Entry, now time.Time) []Slot {
	out := make([]Slot, 0, len(es))
	if !slices.ContainsFunc(es, func(e Entry) bool { return e.Card != nil && e.Card.Parent.ID != "" }) {
		for i := range es {
			out = append(out, Slot{Index: i})
		}
		return out
	}
	index := make(map[session.Key]int, len(es))
	for i, e := range es {
		index[e.Key()] = i
	}
	members := map[int][]int{}
	for i, e := range es {
		if e.Card == nil || e.Card.Parent.ID == "" {
			continue
		}
		if p, ok := index[e.Card.Parent]; ok && p != i {
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
	for i := range es {
		ms := members[i]
		if grouped[i] && ms == nil {
			continue
		}
		size := 0
		if len(ms) > 0 {
			size = len(ms) + 1
		}
		out = append(out, Slot{Index: i, Team: size})
		for _, m := range ms {
			out = append(out, Slot{Index: m, Member: true})
		}
	}
	return out
}

func teamActive(lead Entry, ms []int, es []Entry, now time.Time) bool {
	all := []Entry{lead}
	for _, m := range ms {
		all = append(all, es[m])
	}
	for _, e := range all {
		if e.Card == nil {
			if e.Info.Live {
				return true
			}
			continue
		}
		if !e.Card.State.Over() || now.Sub(e.Card.Since) <= TeamLinger {
			return true
		}
	}
	return false
}
