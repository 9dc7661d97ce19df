package web

import (
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v5"

	"paddock/internal/session"
	"paddock/views"
)

const (
	viewBoard   = "board"
	viewInbox   = "inbox"
	viewSession = "session"

	wsWriteWait  = 10 * time.Second
	wsPongWait   = 60 * time.Second
	wsPingPeriod = 25 * time.Second
	wsSendBuffer = 32
	wsReadLimit  = 4096
)

// client is one websocket connection. shown and screen are touched only by
// the hub goroutine; send is closed only by the hub.
type client struct {
	conn *websocket.Conn
	// valid re-checks the device session, so a device revoked while its
	// page is open loses its live feed within a ping period.
	valid func() bool
	send  chan []byte
	view  string
	key   session.Key
	// shown is the newest messages the session viewer was sent (see after).
	shown []session.Message
	// pinned: the session page was opened at a message (a search hit), not
	// at the newest: it is sent its head, never the newest messages, which
	// would replace the page the reader is on.
	pinned bool
	// screen is the hosted terminal's text last sent (session viewers).
	screen string
	// last is the session head last sent (session viewers): an unchanged
	// one is not sent again, so the page does not swap its buttons under
	// a finger for nothing.
	last []byte
	// filter and board are a board viewer's filter and what it was last
	// sent (touched by the hub goroutine only).
	filter views.BoardFilter
	board  *boardShown
	// bye is the close code sent when the hub lets the client go. Both
	// codes used ask the browser to come back (its websocket extension
	// retries only 1006 and 1011–1013): 1013 for a client dropped as too
	// slow, 1012 when paddock stops, since a stop is nearly always a
	// restart and the phone must find the new server on its own.
	bye int
}

// offer queues a frame without blocking; false means the client is too slow.
func (c *client) offer(b []byte) bool {
	select {
	case c.send <- b:
		return true
	default:
		return false
	}
}

// sameOrigin accepts only a browser Origin that names this very server: a
// page elsewhere cannot open a socket with the user's cookie.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	// A browser's Origin is exactly scheme://host[:port]: one with a user
	// (https://evil@host), a path, a query or a fragment is not one.
	if err != nil || u.Scheme != "https" || u.Host != r.Host || o != "https://"+u.Host {
		return false
	}
	return s.hostAllowed(u.Host)
}

func (s *Server) websocket(c *echo.Context) error {
	r := c.Request()
	if !s.sameOrigin(r) {
		s.log.Warn("refused cross-origin websocket", "ip", c.RealIP())
		return errBadOrigin
	}
	cl := &client{send: make(chan []byte, wsSendBuffer), view: r.URL.Query().Get("view"), bye: websocket.CloseTryAgainLater}
	switch cl.view {
	case viewBoard:
		f, err := s.boardFilter(r.URL.Query())
		if err != nil {
			return err
		}
		cl.filter = f
	case viewInbox:
	case viewSession:
		k := session.Key{Runtime: r.URL.Query().Get("runtime"), ID: r.URL.Query().Get("id")}
		if !validToken(k.Runtime, 32) || !validToken(k.ID, 200) {
			return newError(http.StatusBadRequest, "bad_session_key", "The websocket needs view=board, view=inbox, or view=session with runtime and id.")
		}
		cl.key = k
		cl.pinned = r.URL.Query().Get("at") != ""
	default:
		return newError(http.StatusBadRequest, "bad_view", "The websocket needs view=board, view=inbox, or view=session with runtime and id.")
	}
	up := websocket.Upgrader{CheckOrigin: s.sameOrigin}
	conn, err := up.Upgrade(c.Response(), r, nil)
	if err != nil {
		return nil // the upgrader has already answered
	}
	cl.conn = conn
	if p := principalOf(c); p != nil && p.bearer {
		tok := p.bearerToken
		cl.valid = func() bool {
			_, err := s.opts.Auth.Token(context.Background(), tok)
			return err == nil
		}
	} else if p != nil {
		tok := p.cookieToken
		cl.valid = func() bool {
			_, err := s.opts.Auth.Device(context.Background(), tok)
			return err == nil
		}
	}
	select {
	case s.hub.register <- cl:
	case <-s.hub.done:
		conn.Close()
		return nil
	}
	go cl.writePump()
	cl.readPump()
	select {
	case s.hub.unregister <- cl:
	case <-s.hub.done:
	}
	return nil
}

// readPump discards what the browser sends (the board is push-only) and
// notices when the connection dies.
func (c *client) readPump() {
	c.conn.SetReadLimit(wsReadLimit)
	_ = c.conn.SetReadDeadline(time.Now().Add(wsPongWait))
	c.conn.SetPongHandler(func(string) error {
		return c.conn.SetReadDeadline(time.Now().Add(wsPongWait))
	})
	for {
		if _, _, err := c.conn.ReadMessage(); err != nil {
			return
		}
	}
}

// writePump owns all writes; it ends when the hub closes send or a write
// fails, and closes the connection either way (which ends readPump).
func (c *client) writePump() {
	ping := time.NewTicker(wsPingPeriod)
	defer func() {
		ping.Stop()
		c.conn.Close()
	}()
	for {
		select {
		case b, ok := <-c.send:
			_ = c.conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
			if !ok {
				_ = c.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(c.bye, ""))
				return
			}
			if err := c.conn.WriteMessage(websocket.TextMessage, b); err != nil {
				return
			}
		case <-ping.C:
			if c.valid != nil && !c.valid() {
				_ = c.conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.ClosePolicyViolation, "device revoked"))
				return
			}
			_ = c.conn.SetWriteDeadline(time.Now().Add(wsWriteWait))
			if err := c.conn.WriteMessage(websocket.PingMessage, nil); err != nil {
				return
			}
		}
	}
}
