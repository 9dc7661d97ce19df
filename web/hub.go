package web

import (
	"context"
	"time"

	"paddock/internal/catalog"
	"paddock/internal/pending"
	"paddock/internal/session"
	"paddock/views"
)

// The hub owns every websocket client and pushes HTML fragments (elements
// with hx-swap-oob) when the catalog changes. Each fragment is rendered once
// per change and the same bytes go to every client that shows it. A client
// whose buffer is full is dropped, never waited for: it reconnects and gets
// a full snapshot.
type hub struct {
	s          *Server
	register   chan *client
	unregister chan *client
	done       chan struct{}
}

func newHub(s *Server) *hub {
	return &hub{s: s, register: make(chan *client), unregister: make(chan *client), done: make(chan struct{})}
}

// loadPoll is how often the hub checks whether the first scan is done; the
// board shows a skeleton until then.
const loadPoll = 100 * time.Millisecond

func (h *hub) run(ctx context.Context) error {
	defer close(h.done)
	changes, cancel := h.s.opts.Sessions.Subscribe()
	defer cancel()
	liveChanges, cancelLive := h.s.live.Subscribe()
	defer cancelLive()
	// A prompt opened or answered changes its session's card and page.
	var items <-chan pending.Item
	if h.s.opts.Approvals != nil {
		var cancelItems func()
		items, cancelItems = h.s.opts.Approvals.Subscribe()
		defer cancelItems()
	}
	clients := map[*client]struct{}{}
	drop := func(c *client) {
		if _, ok := clients[c]; ok {
			delete(clients, c)
			close(c.send)
		}
	}
	defer func() {
		for c := range clients {
			drop(c)
		}
	}()

	loaded := h.s.opts.Sessions.Loaded()
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
			if !loaded && h.s.opts.Sessions.Loaded() {
				loaded = true
				h.broadcast(ctx, clients, catalog.Change{Full: true}, drop)
			}
		case ch, ok := <-changes:
			if !ok {
				changes = nil
				continue
			}
			h.broadcast(ctx, clients, coalesce(ch, changes, liveChanges), drop)
		case ch, ok := <-liveChanges:
			if !ok {
				liveChanges = nil
				continue
			}
			h.broadcast(ctx, clients, coalesce(ch, changes, liveChanges), drop)
		case it, ok := <-items:
			if !ok {
				items = nil
				continue
			}
			h.broadcast(ctx, clients, coalesce(catalog.Change{Updated: []session.Key{it.Key}}, changes, liveChanges), drop)
		}
	}
}

// snapshot sends a client everything its view shows; every (re)connect
// gets one, so nothing missed while disconnected stays missing.
func (h *hub) snapshot(ctx context.Context, c *client) bool {
	if c.view == viewBoard {
		b, err := renderBytes(ctx, views.BoardList(h.s.board(), true))
		return err == nil && c.offer(b)
	}
	e, msgs, err := h.sessionData(ctx, c.key)
	if err != nil {
		h.s.log.Debug("websocket snapshot failed", "session", c.key.String(), "error", err)
		return false
	}
	v := h.s.sessionView(ctx, e, msgs)
	b1, err1 := renderBytes(ctx, views.SessionHead(v, true))
	b2, err2 := renderBytes(ctx, views.MessagesBlock(v.Conversation, true))
	if err1 != nil || err2 != nil {
		return false
	}
	c.sent = len(msgs)
	return c.offer(b1) && c.offer(b2)
}

func (h *hub) sessionData(ctx context.Context, k session.Key) (entry, []session.Message, error) {
	e, err := h.s.entry(ctx, k)
	if err != nil {
		return e, nil, err
	}
	msgs, err := h.s.messages(ctx, e)
	return e, msgs, err
}

func (h *hub) broadcast(ctx context.Context, clients map[*client]struct{}, ch catalog.Change, drop func(*client)) {
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
	var board []byte
	type sessionFrag struct {
		head []byte
		msgs []session.Message
		v    views.Session
		ok   bool
	}
	frags := map[session.Key]*sessionFrag{}
	for c := range clients {
		if c.view == viewBoard {
			if board == nil {
				b, err := renderBytes(ctx, views.BoardList(h.s.board(), true))
				if err != nil {
					h.s.log.Error("render board", "error", err)
					return
				}
				board = b
			}
			if !c.offer(board) {
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
			if e, msgs, err := h.sessionData(ctx, c.key); err == nil {
				f.v = h.s.sessionView(ctx, e, msgs)
				f.msgs = msgs
				f.head, err = renderBytes(ctx, views.SessionHead(f.v, true))
				f.ok = err == nil
			}
		}
		if !f.ok || !h.sendSession(ctx, c, f.head, f.v, f.msgs) {
			drop(c)
		}
	}
}

// sendSession brings one session viewer up to date: the header, then only
// the messages it has not seen (or the whole list if history shrank, as
// after a rewind).
func (h *hub) sendSession(ctx context.Context, c *client, head []byte, v views.Session, msgs []session.Message) bool {
	if !c.offer(head) {
		return false
	}
	switch {
	case len(msgs) == c.sent:
		return true
	case len(msgs) > c.sent:
		add := make([]views.Message, 0, len(msgs)-c.sent)
		for _, m := range msgs[c.sent:] {
			add = append(add, h.s.message(m))
		}
		b, err := renderBytes(ctx, views.MessagesAppend(add))
		if err != nil {
			return false
		}
		c.sent = len(msgs)
		return c.offer(b)
	default:
		b, err := renderBytes(ctx, views.MessagesBlock(v.Conversation, true))
		if err != nil {
			return false
		}
		c.sent = len(msgs)
		return c.offer(b)
	}
}

// coalesce merges into ch every change already waiting on the channels, so
// a burst of hook events costs one render per board instead of one per
// event; it never waits, so a lone change goes out at once.
func coalesce(ch catalog.Change, sources ...<-chan catalog.Change) catalog.Change {
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
			card, ok := h.s.live.Card(c.key)
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
