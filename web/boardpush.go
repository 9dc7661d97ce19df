package web

import (
	"bytes"
	"context"
	"slices"

	"github.com/a-h/templ"

	"paddock/views"
)

// A board viewer is sent the whole board once (on connect) and after that
// only what changed: the cards whose HTML differs, in place; the cards
// that moved or are new, through the page's inbox with the card they now
// follow; a delete for each card that left the first page; the "needs
// you" strip and the board's own lines when they differ. A state change of
// one session is one card (about 1 KB) to each viewer, not the board.

// boardShown is what one board viewer was last sent.
type boardShown struct {
	whole bool     // a skeleton or an empty board: only a whole board replaces it
	ids   []string // the first page's cards, in order
	cards map[string][]byte
	meta  []byte
	strip []byte
	// office is the office view's HTML; nil while the setting is off.
	office []byte
}

// boardFrame is the board's first page under one filter, rendered once per
// broadcast for every viewer with that filter.
type boardFrame struct {
	s      *Server
	b      views.Board
	whole  bool
	ids    []string
	cards  map[string][]byte // each card's HTML as a page renders it
	views  map[string]views.Card
	meta   []byte
	strip  []byte
	office []byte
	full   []byte // the whole board, rendered when a viewer needs it
}

// cardRender remembers a card's HTML across broadcasts: a card whose view
// did not change is not rendered again.
type cardRender struct {
	v views.Card
	b []byte
}

// boardFrames renders the first page for each filter in use, reusing the
// HTML of cards that did not change since the last broadcast.
type boardFrames struct {
	h      *hub
	frames map[views.BoardFilter]*boardFrame
	// parts are the single-card fragments of this broadcast, shared by
	// the viewers that need the same one.
	parts map[string][]byte
}

func (h *hub) newFrames() *boardFrames {
	h.cardsNext = map[string]cardRender{}
	return &boardFrames{h: h, frames: map[views.BoardFilter]*boardFrame{}, parts: map[string][]byte{}}
}

// done keeps the cards this broadcast rendered for the next one (and
// forgets those no viewer shows any more).
func (fs *boardFrames) done() {
	if len(fs.frames) > 0 {
		fs.h.cards = fs.h.cardsNext
	}
	fs.h.cardsNext = nil
}

func (fs *boardFrames) frame(ctx context.Context, f views.BoardFilter) (*boardFrame, error) {
	if fr, ok := fs.frames[f]; ok {
		return fr, nil
	}
	b, err := fs.h.s.board(f, "")
	if err != nil {
		return nil, err
	}
	fr := &boardFrame{s: fs.h.s, b: b, whole: !b.Loaded || len(b.Cards) == 0, cards: map[string][]byte{}, views: map[string]views.Card{}}
	for _, c := range b.Cards {
		r, ok := fs.h.cards[c.DOMID]
		if !ok || r.v != c {
			html, err := renderBytes(ctx, views.CardView(c))
			if err != nil {
				return nil, err
			}
			r = cardRender{v: c, b: html}
		}
		fs.h.cardsNext[c.DOMID] = r
		fr.ids = append(fr.ids, c.DOMID)
		fr.cards[c.DOMID] = r.b
		fr.views[c.DOMID] = c
	}
	if fr.meta, err = renderBytes(ctx, views.BoardMeta(b, true)); err != nil {
		return nil, err
	}
	if fr.strip, err = renderBytes(ctx, views.NeedsStrip(b, true)); err != nil {
		return nil, err
	}
	if b.Office != nil {
		if fr.office, err = renderBytes(ctx, views.OfficeView(*b.Office, true)); err != nil {
			return nil, err
		}
	}
	fs.frames[f] = fr
	return fr, nil
}

// fullBoard is the whole board, as a snapshot sends it, with its filters'
// choices (worked out only here: a change sent card by card needs none).
func (fr *boardFrame) fullBoard(ctx context.Context) ([]byte, error) {
	if fr.full == nil {
		v := fr.b
		if v.Loaded {
			v.Agents, v.Projects = fr.s.filterOptions(v.Filter)
		}
		b, err := renderBytes(ctx, views.BoardList(v, true))
		if err != nil {
			return nil, err
		}
		fr.full = b
	}
	return fr.full, nil
}

func (fr *boardFrame) shown() *boardShown {
	return &boardShown{whole: fr.whole, ids: fr.ids, cards: fr.cards, meta: fr.meta, strip: fr.strip, office: fr.office}
}

// delta is what brings a viewer that was sent old up to fr: nil when
// nothing differs.
func (fs *boardFrames) delta(ctx context.Context, fr *boardFrame, old *boardShown) ([]byte, error) {
	// The office view turned on or off: it has no place to go in, or to
	// leave, but the whole board.
	if old == nil || old.whole || fr.whole || (old.office == nil) != (fr.office == nil) {
		if old != nil && old.whole && fr.whole && bytes.Equal(old.meta, fr.meta) && bytes.Equal(old.strip, fr.strip) &&
			bytes.Equal(old.office, fr.office) && slices.Equal(old.ids, fr.ids) && fr.b.Loaded {
			return nil, nil
		}
		return fr.fullBoard(ctx)
	}
	var out bytes.Buffer
	if !bytes.Equal(old.meta, fr.meta) {
		out.Write(fr.meta)
	}
	if !bytes.Equal(old.strip, fr.strip) {
		out.Write(fr.strip)
	}
	if !bytes.Equal(old.office, fr.office) {
		out.Write(fr.office)
	}
	for _, id := range old.ids {
		if _, ok := fr.cards[id]; !ok {
			b, err := fs.part(ctx, "gone "+id, views.CardGone(id))
			if err != nil {
				return nil, err
			}
			out.Write(b)
		}
	}
	// The cards that keep their relative order stay where they are (the
	// longest run of them in the old order); every other card is placed
	// after the one before it in the new order, in that order.
	oldAt := make(map[string]int, len(old.ids))
	for i, id := range old.ids {
		oldAt[id] = i
	}
	var common []string
	for _, id := range fr.ids {
		if _, ok := oldAt[id]; ok {
			common = append(common, id)
		}
	}
	stay := longestIncreasing(common, oldAt)
	prev := ""
	for _, id := range fr.ids {
		c := fr.views[id]
		switch {
		case stay[id] && bytes.Equal(old.cards[id], fr.cards[id]):
		case stay[id]:
			b, err := fs.part(ctx, "in "+id+" "+string(fr.cards[id]), views.CardUpdate(c, false, ""))
			if err != nil {
				return nil, err
			}
			out.Write(b)
		default:
			b, err := fs.part(ctx, "move "+id+" after "+prev+" "+string(fr.cards[id]), views.CardUpdate(c, true, prev))
			if err != nil {
				return nil, err
			}
			out.Write(b)
		}
		prev = id
	}
	if out.Len() == 0 {
		return nil, nil
	}
	return out.Bytes(), nil
}

// part renders one fragment once per broadcast, keyed by what it says.
func (fs *boardFrames) part(ctx context.Context, key string, c templ.Component) ([]byte, error) {
	if b, ok := fs.parts[key]; ok {
		return b, nil
	}
	b, err := renderBytes(ctx, c)
	if err != nil {
		return nil, err
	}
	fs.parts[key] = b
	return b, nil
}

// longestIncreasing is the set of ids (in their new order) that form the
// longest run increasing in their old positions: the cards that need not
// move. Patience sorting, O(n log n).
func longestIncreasing(ids []string, oldAt map[string]int) map[string]bool {
	var tails []int // index into ids of the smallest tail of each run length
	prevOf := make([]int, len(ids))
	for i, id := range ids {
		v := oldAt[id]
		j, _ := slices.BinarySearchFunc(tails, v, func(t int, v int) int { return oldAt[ids[t]] - v })
		if j > 0 {
			prevOf[i] = tails[j-1]
		} else {
			prevOf[i] = -1
		}
		if j == len(tails) {
			tails = append(tails, i)
		} else {
			tails[j] = i
		}
	}
	stay := make(map[string]bool, len(tails))
	if len(tails) == 0 {
		return stay
	}
	for i := tails[len(tails)-1]; i >= 0; i = prevOf[i] {
		stay[ids[i]] = true
	}
	return stay
}
