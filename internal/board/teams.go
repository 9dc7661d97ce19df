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

// Group is one board slot: a session, or a team lead with its members.
type Group struct {
	Lead    Entry
	Members []Entry
}

// Teams groups team members (sessions whose live card names a parent on
// the board) under their lead, in the lead's place. A team whose sessions
// have all ended more than TeamLinger ago is no longer grouped.
func Teams(es []Entry, now time.Time) []Group {
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
	out := make([]Group, 0, len(es))
	for i, e := range es {
		if grouped[i] && members[i] == nil {
			continue
		}
		g := Group{Lead: e}
		for _, m := range members[i] {
			g.Members = append(g.Members, es[m])
		}
		out = append(out, g)
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
