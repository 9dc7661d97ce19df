package web

import (
	"time"
	"unicode/utf8"

	"paddock/internal/board"
	"paddock/internal/session"
	"paddock/views"
)

// The office floor: desks in rows of officeCols, the lounge below in rows
// of loungeCols; at most officeMax sessions drawn (the newest first, as
// the board sorts them).
const (
	officeWidth  = 360
	officeCols   = 4
	deskRow      = 78
	loungeCols   = 5
	loungeRow    = 70
	officeMax    = 24
	officeRecent = 30 * time.Minute // an ended session stays on the floor, dark, this long
)

// atDesk says which states work at a desk: running, or asking the user
// mid-turn. The others (idle, your turn, starting, ended, asleep) are in
// the lounge.
func atDesk(state string) bool {
	switch state {
	case "working", "prompting", "approval", "input":
		return true
	}
	return false
}

// office lays out the sessions of es (the board's order) that are on the
// floor: every live one, and those that ended in the last half hour.
func (s *Server) office(es []board.Entry, slots []board.Slot) *views.Office {
	now := s.opts.Now()
	type placed struct {
		e    *board.Entry
		lead session.Key // a team member's lead
	}
	var desk, lounge []placed
	more := 0
	for _, sl := range slots {
		e := &es[sl.Index]
		if e.Over() && now.Sub(e.SortTime()) > officeRecent {
			continue
		}
		if len(desk)+len(lounge) == officeMax {
			more++
			continue
		}
		p := placed{e: e}
		if sl.Member && e.Card != nil {
			p.lead = e.Card.Parent
		}
		if cls, _ := e.State(); atDesk(cls) {
			desk = append(desk, p)
		} else {
			lounge = append(lounge, p)
		}
	}
	if len(desk)+len(lounge) == 0 {
		return &views.Office{Width: officeWidth, Height: 130, LoungeY: 60}
	}
	deskRows := max(1, (len(desk)+officeCols-1)/officeCols)
	loungeRows := max(1, (len(lounge)+loungeCols-1)/loungeCols)
	o := &views.Office{Width: officeWidth, LoungeY: 24 + deskRows*deskRow, More: more}
	o.Height = o.LoungeY + 30 + loungeRows*loungeRow
	at := map[session.Key][2]int{}
	add := func(p placed, x, y int) {
		cls, label := p.e.State()
		in := p.e.Info
		name := in.Project
		if name == "" {
			name = shortID(in.ID)
		}
		if utf8.RuneCountInString(name) > 11 {
			name = string([]rune(name)[:10]) + "…"
		}
		agentName := s.opts.Agents.Label(in.Runtime)
		initial, _ := utf8.DecodeRuneInString(agentName)
		o.Agents = append(o.Agents, views.OfficeAgent{X: x, Y: y, URL: sessionURL(p.e.Key()), State: cls, StateLabel: label,
			Initial: string(initial), Name: name, Title: string(initial) + " " + name + " " + label + " (" + agentName + ")"})
		at[p.e.Key()] = [2]int{x, y}
	}
	colW := officeWidth / officeCols
	for i, p := range desk {
		x, y := colW/2+(i%officeCols)*colW, 44+(i/officeCols)*deskRow
		o.Desks = append(o.Desks, views.OfficeDesk{X: x, Y: y})
		add(p, x, y)
	}
	loungeW := officeWidth / loungeCols
	for i, p := range lounge {
		add(p, loungeW/2+(i%loungeCols)*loungeW, o.LoungeY+52+(i/loungeCols)*loungeRow)
	}
	for _, p := range append(desk, lounge...) {
		if p.lead.ID == "" {
			continue
		}
		from, ok1 := at[p.e.Key()]
		to, ok2 := at[p.lead]
		if ok1 && ok2 {
			o.Links = append(o.Links, views.OfficeLink{X1: from[0], Y1: from[1], X2: to[0], Y2: to[1]})
		}
	}
	return o
}
