package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

func (r *rig) tlsServer() *httptest.Server {
	ts := httptest.NewUnstartedServer(r.srv.Handler())
	ts.StartTLS()
	r.t.Cleanup(ts.Close)
	return ts
}

func dialWS(t *testing.T, ts *httptest.Server, path, origin, tok string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{TLSClientConfig: ts.Client().Transport.(*http.Transport).TLSClientConfig, HandshakeTimeout: 5 * time.Second}
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	if tok != "" {
		h.Set("Cookie", cookieName+"="+tok)
	}
	return d.Dial("wss"+strings.TrimPrefix(ts.URL, "https")+path, h)
}

// readUntil reads frames until one contains want, or fails at the deadline.
func readUntil(t *testing.T, c *websocket.Conn, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_ = c.SetReadDeadline(deadline)
		_, b, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for %q: %v", want, err)
		}
		if strings.Contains(string(b), want) {
			return string(b)
		}
	}
}

func TestWebsocketRefusesCrossOriginAndStrangers(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	tests := []struct {
		name, origin, tok string
		want              int
	}{
		{"foreign origin", "https://evil.example", tok, http.StatusForbidden},
		{"plain-http origin", "http" + strings.TrimPrefix(ts.URL, "https"), tok, http.StatusForbidden},
		{"no origin", "", tok, http.StatusForbidden},
		{"origin with a user", "https://evil@" + strings.TrimPrefix(ts.URL, "https://"), tok, http.StatusForbidden},
		{"origin with a path", ts.URL + "/x", tok, http.StatusForbidden},
		{"origin with a query", ts.URL + "?a=1", tok, http.StatusForbidden},
		{"no session", ts.URL, "", http.StatusUnauthorized},
		{"bad session", ts.URL, "forged", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, resp, err := dialWS(t, ts, "/ws?view=board", tt.origin, tt.tok)
			if err == nil {
				c.Close()
				t.Fatal("handshake succeeded")
			}
			if resp == nil || resp.StatusCode != tt.want {
				t.Fatalf("response %v, want %d", resp, tt.want)
			}
		})
	}
}

func TestWebsocketPushesBoardAndConversation(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()

	board, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer board.Close()
	snap := readUntil(t, board, `id="board"`)
	if !strings.Contains(snap, `hx-swap-oob`) || !strings.Contains(snap, "first question about the build") {
		t.Fatalf("snapshot %q", snap)
	}

	sess, _, err := dialWS(t, ts, "/ws?view=session&runtime=claude&id="+sessionA, ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	readUntil(t, sess, "second answer")

	// A new session appears on the board.
	writeClaudeSession(t, r.claudeDir, sessionB, "a brand new session", "hello")
	readUntil(t, board, "a brand new session")

	// A new message in the open session is appended, not re-sent whole.
	appendClaudeTurns(t, r.sessionPath(sessionA), sessionA, 4, "third prompt from the phone test")
	got := readUntil(t, sess, "third prompt from the phone test")
	if !strings.Contains(got, `hx-swap-oob="beforeend"`) || strings.Contains(got, "second answer") {
		t.Fatalf("append fragment %q", got)
	}
}

// A stopping paddock closes every websocket with 1012 (service restart):
// the browser's websocket extension retries that code, while the 1001 of
// an ordinary "going away" would leave the phone stale for good.
func TestWebsocketStopAsksTheBrowserToComeBack(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	c, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	readUntil(t, c, `id="board"`)
	r.stopServer()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseServiceRestart {
			t.Fatalf("closed with %v, want close code %d", err, websocket.CloseServiceRestart)
		}
		return
	}
}

// TestWebsocketKeepsAReaderAtTheirMessage: a session page opened at a
// message (a search hit) gets its head live, but never the newest page
// or appended messages, which would replace what the reader is on; the
// same page opened at the newest gets both.
func TestWebsocketKeepsAReaderAtTheirMessage(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	at, _, err := dialWS(t, ts, "/ws?view=session&runtime=claude&id="+sessionA+"&at=0", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	first := readUntil(t, at, "hx-swap-oob")
	if strings.Contains(first, `id="messages"`) {
		t.Fatalf("the pinned page was sent the newest messages: %q", first)
	}
	newest, _, err := dialWS(t, ts, "/ws?view=session&runtime=claude&id="+sessionA, ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer newest.Close()
	readUntil(t, newest, `id="messages"`)
	appendClaudeTurns(t, r.sessionPath(sessionA), sessionA, 4, "a turn the pinned reader must not get")
	readUntil(t, newest, "a turn the pinned reader must not get")
	at.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	for {
		_, b, err := at.ReadMessage()
		if err != nil {
			break // the deadline: nothing more came
		}
		if strings.Contains(string(b), "a turn the pinned reader must not get") {
			t.Fatal("a message was pushed into the pinned page")
		}
	}
}
