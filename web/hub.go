package web

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/gorilla/websocket"

	"paddock/internal/board"
	"paddock/internal/session"
	"paddock/internal/settings"
	"paddock/views"
)

// The hub owns every websocket client and pushes HTML fragments (elements
// with hx-swap-oob) when the board's entries change. Each fragment is rendered once
// per change and the same bytes go to every client that shows it. A client
// whose buffer is full is dropped, never waited for: it reconnects and gets
// a full snapshot.
type hub struct {
	s          *Server
	register   chan *client
	unregister chan *client
	done       chan struct{}
	// cards is each board card's last HTML, and cardsNext the ones a
	// broadcast in progress rendered (touched by the hub goroutine only).
	cards, cardsNext map[string]cardRender
}

func newHub(s *Server) *hub {
	return &hub{s: s, register: make(chan *client), unregister: make(chan *client), done: make(chan struct{})}
}

// loadPoll is how often the hub checks whether the first scan is done (the
// board shows a skeleton until then) and whether paddock can save.
const loadPoll = 100 * time.Millisecond

func (h *hub) run(ctx context.Context) error {
	defer close(h.done)
	changes, cancel := h.s.opts.Board.Subscribe()
	defer cancel()
	clients := map[*client]struct{}{}
	drop := func(c *client) {
		if _, ok := clients[c]; ok {
			delete(clients, c)
			close(c.send)
		}
	}
	defer func() {
		for c := range clients {
			c.bye = websocket.CloseServiceRestart
			drop(c)
		}
	}()

	// A change of the settings can change every board (the office view).
	var settingsChanged <-chan settings.Values
	if h.s.opts.Settings != nil {
		ch, stop := h.s.opts.Settings.Subscribe()
		defer stop()
		settingsChanged = ch
	}

	// A session's tokens and context are read a moment after its history
	// changed: its card and page take them then.
	var usageChanged <-chan []session.Key
	if h.s.opts.Usage != nil {
		ch, stop := h.s.opts.Usage.Subscribe()
		defer stop()
		usageChanged = ch
	}

	loaded := h.s.opts.Board.Loaded()
	// Whether paddock can save shows on every board (its banner).
	unsaved := h.s.storeProblem()
	poll := time.NewTicker(loadPoll)
	defer poll.Stop()
	screens := time.NewTicker(screenEvery)
	defer screens.Stop()
	for {
		select {
		case <-screens.C:
			h.screens(ctx, clients, drop)
		case <-ctx.Done():
			return nil
		case c := <-h.register:
			clients[c] = struct{}{}
			if !h.snapshot(ctx, c) {
				drop(c)
			}
		case c := <-h.unregister:
			drop(c)
		case <-poll.C:
			changed := false
			if !loaded && h.s.opts.Board.Loaded() {
				loaded, changed = true, true
			}
			if p := h.s.storeProblem(); p != unsaved {
				unsaved, changed = p, true
			}
			if changed {
				h.broadcast(ctx, clients, board.Change{Full: true}, drop)
			}
		case <-settingsChanged:
			h.broadcast(ctx, clients, board.Change{Full: true}, drop)
		case keys, ok := <-usageChanged:
			if !ok {
				usageChanged = nil
				continue
			}
			h.broadcast(ctx, clients, board.Change{Updated: keys, Full: keys == nil}, drop)
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			h.broadcast(ctx, clients, coalesce(ch, changes), drop)
		}
	}
}

// snapshot sends a client everything its view shows; every (re)connect
// gets one, so nothing missed while disconnected stays missing.
func (h *hub) snapshot(ctx context.Context, c *client) bool {
	if c.view == viewInbox {
		fs := h.newFrames()
		fr, err := fs.frame(ctx, views.BoardFilter{})
		fs.done()
		if err != nil {
			return false
		}
		c.board = fr.shown()
		return c.offer(fr.strip)
	}
	if c.view == viewBoard {
		fs := h.newFrames()
		fr, err := fs.frame(ctx, c.filter)
		if err != nil {
			h.s.log.Error("render board", "error", err)
			return false
		}
		b, err := fr.fullBoard(ctx)
		fs.done()
		c.board = fr.shown()
		return err == nil && c.offer(b)
	}
	e, r, err := h.sessionData(ctx, c.key)
	if err != nil {
		h.s.log.Debug("websocket snapshot failed", "session", c.key.String(), "error", err)
		return false
	}
	v := h.s.sessionView(ctx, e, r)
	if c.pinned {
		b, err := renderBytes(ctx, views.SessionHead(v, true))
		c.last = b
		return err == nil && c.offer(b)
	}
	b1, err1 := renderBytes(ctx, views.SessionHead(v, true))
	b2, err2 := renderBytes(ctx, views.MessagesBlock(v.Conversation, true))
	if err1 != nil || err2 != nil {
		return false
	}
	c.shown, c.last = newest(r.Msgs), b1
	return c.offer(b1) && c.offer(b2)
}

// sessionData is what a session viewer shows: the board.Entry and the newest
// page of its conversation (read from the end of a long history, never a
// full parse per push).
func (h *hub) sessionData(ctx context.Context, k session.Key) (board.Entry, board.Recent, error) {
	e, err := h.s.opts.Board.Get(ctx, k)
	if err != nil {
		return e, board.Recent{}, err
	}
	r, err := h.s.opts.Board.Recent(ctx, e, pageSize)
	return e, r, err
}

func (h *hub) broadcast(ctx context.Context, clients map[*client]struct{}, ch board.Change, drop func(*client)) {
	if len(clients) == 0 {
		return
	}
	changed := map[session.Key]bool{}
	for _, k := range ch.Updated {
		changed[k] = true
	}
	for _, k := range ch.Removed {
		changed[k] = true
	}
	fs := h.newFrames()
	defer fs.done()
	type sessionFrag struct {
		head []byte
		msgs []session.Message // the newest page
		v    views.Session
		ok   bool
	}
	frags := map[session.Key]*sessionFrag{}
	for c := range clients {
		if c.view == viewInbox {
			fr, err := fs.frame(ctx, views.BoardFilter{})
			if err != nil {
				h.s.log.Error("render board", "error", err)
				return
			}
			strip := c.board.strip
			c.board = fr.shown()
			if !bytes.Equal(strip, fr.strip) && !c.offer(fr.strip) {
				drop(c)
			}
			continue
		}
		if c.view == viewBoard {
			fr, err := fs.frame(ctx, c.filter)
			if err != nil {
				h.s.log.Error("render board", "error", err)
				return
			}
			b, err := fs.delta(ctx, fr, c.board)
			if err != nil {
				h.s.log.Error("render board", "error", err)
				return
			}
			c.board = fr.shown()
			if b != nil && !c.offer(b) {
				drop(c)
			}
			continue
		}
		if !ch.Full && !changed[c.key] {
			continue
		}
		f, seen := frags[c.key]
		if !seen {
			f = &sessionFrag{}
			frags[c.key] = f
			if e, r, err := h.sessionData(ctx, c.key); err == nil {
				f.v = h.s.sessionView(ctx, e, r)
				f.msgs = r.Msgs
				f.head, err = renderBytes(ctx, views.SessionHead(f.v, true))
				f.ok = err == nil
			}
		}
		if !f.ok || !h.sendSession(ctx, c, f.head, f.v, f.msgs) {
			drop(c)
		}
	}
}

// sendSession brings one session viewer up to date: the header, then the
// messages of the newest page after the last ones it was sent, or the
// whole page when those are not in it (more arrived than a page holds, or
// the history was rewound). Messages are matched by content, not index:
// the page may come from the end of a history whose length is unknown.
func (h *hub) sendSession(ctx context.Context, c *client, head []byte, v views.Session, msgs []session.Message) bool {
	if !bytes.Equal(head, c.last) {
		if !c.offer(head) {
			return false
		}
		c.last = head
	}
	if c.pinned {
		return true // reading an older page: the newest are not pushed into it
	}
	add, ok := after(c.shown, msgs)
	switch {
	case ok && len(add) == 0:
		return true
	case ok:
		out := make([]views.Message, 0, len(add))
		for _, m := range add {
			out = append(out, h.s.message(m))
		}
		b, err := renderBytes(ctx, views.MessagesAppend(out))
		if err != nil {
			return false
		}
		c.shown = newest(msgs)
		return c.offer(b)
	default:
		b, err := renderBytes(ctx, views.MessagesBlock(v.Conversation, true))
		if err != nil {
			return false
		}
		c.shown = newest(msgs)
		return c.offer(b)
	}
}

// newest is what a viewer remembers of the page it was sent: its last
// few messages, enough to find them again in the next page.
func newest(msgs []session.Message) []session.Message {
	return slices.Clone(msgs[max(len(msgs)-anchorSpan, 0):])
}

// after returns the messages of page that follow shown (the newest ones a
// viewer has), found as a run at the latest place it occurs; false when it
// is not there, or when the viewer has nothing yet but page has (the whole
// block replaces its "no messages" note). The newest shown message is
// matched by role and time alone when it has a time: an agent may still be
// adding to it (Claude joins an answer split over lines), and that is not
// a new message — but the viewer's copy is then short, so a grown message
// reports false and the whole block is sent again.
func after(shown, page []session.Message) ([]session.Message, bool) {
	if len(shown) == 0 {
		return nil, len(page) == 0
	}
	last := len(shown) - 1
	for end := len(page); end >= len(shown); end-- {
		run := page[end-len(shown) : end]
		same := sameStart(run[last], shown[last])
		for i := 0; same && i < last; i++ {
			same = run[i].Role == shown[i].Role && run[i].Text == shown[i].Text && run[i].Time.Equal(shown[i].Time)
		}
		if same {
			if run[last].Text != shown[last].Text {
				// It grew in place: the viewer's copy is short, and only
				// the whole block replaces it.
				return nil, false
			}
			return page[end:], true
		}
	}
	return nil, false
}

// sameStart reports whether a and b are one message, possibly grown.
func sameStart(a, b session.Message) bool {
	if a.Role != b.Role {
		return false
	}
	if a.Time.IsZero() || b.Time.IsZero() {
		return a.Text == b.Text && a.Time.Equal(b.Time)
	}
	return a.Time.Equal(b.Time)
}

// coalesce merges into ch every change already waiting on the channels, so
// a burst of hook events costs one render per board instead of one per
// event; it never waits, so a lone change goes out at once.
func coalesce(ch board.Change, sources ...<-chan board.Change) board.Change {
	const most = 256
	for range most {
		got := false
		for _, src := range sources {
			select {
			case more, ok := <-src:
				if ok {
					ch.Updated = append(ch.Updated, more.Updated...)
					ch.Removed = append(ch.Removed, more.Removed...)
					ch.Full = ch.Full || more.Full
					got = true
				}
			default:
			}
		}
		if !got {
			break
		}
	}
	return ch
}

// screenEvery is how often open pages of hosted sessions get their
// terminal's text (only when it changed).
const screenEvery = time.Second

// screens sends each viewer of a running hosted session its terminal's
// text when it changed: one capture per session, whatever the viewers.
func (h *hub) screens(ctx context.Context, clients map[*client]struct{}, drop func(*client)) {
	if h.s.opts.Hosting == nil {
		return
	}
	texts := map[session.Key]*string{}
	for c := range clients {
		if c.view != viewSession {
			continue
		}
		text, seen := texts[c.key]
		if !seen {
			texts[c.key] = nil
			card, ok := h.s.opts.Board.Card(c.key)
			if !ok || !hostedLive(card.State, card.TerminalID) {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			t, err := h.s.opts.Hosting.Screen(cctx, card, 0)
			cancel()
			if err != nil {
				continue
			}
			text = &t
			texts[c.key] = text
		}
		if text == nil || *text == c.screen {
			continue
		}
		b, err := renderBytes(ctx, views.Terminal(*text, true))
		if err != nil || !c.offer(b) {
			drop(c)
			continue
		}
		c.screen = *text
	}
}
