package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"paddock/internal/hookstate"
)

// dialStalled opens a board websocket that will never be read: its socket
// takes at most a few KB, so the server's writes back up at once.
func dialStalled(t *testing.T, ts *httptest.Server, tok string) *websocket.Conn {
	t.Helper()
	url := ts.URL
	d := websocket.Dialer{
		TLSClientConfig:  ts.Client().Transport.(*http.Transport).TLSClientConfig,
		HandshakeTimeout: 5 * time.Second,
		NetDialContext: (&net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			_ = c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			return err
		}}).DialContext,
	}
	c, _, err := d.Dial("wss"+strings.TrimPrefix(url, "https")+"/ws?view=board", http.Header{"Origin": {url}, "Cookie": {cookieName + "=" + tok}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var faultMarker = regexp.MustCompile(`faultmark-(\d+)-`)

// TestFaultWebsocketStopsReading: one phone's board stops reading its
// websocket (a phone put in a pocket mid-page, a hung browser) while
// events flow. The hub must not wait for it: another board keeps getting
// every change up to the last, a board that connects meanwhile gets its
// snapshot, the server's heap stays bounded (the stalled client's queue
// holds at most its buffer), and the stalled client is dropped before the
// end of the flow (its socket ends, so a browser reconnects and gets a
// fresh snapshot).
func TestFaultWebsocketStopsReading(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()

	fast, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Close()
	readUntil(t, fast, `id="board"`)
	_ = fast.SetReadDeadline(time.Time{}) // readUntil's is for one frame
	var mu sync.Mutex
	newest, fastBytes := -1, 0
	fastDone := make(chan error, 1)
	go func() {
		for {
			_, b, err := fast.ReadMessage()
			if err != nil {
				fastDone <- err
				return
			}
			mu.Lock()
			fastBytes += len(b)
			for _, m := range faultMarker.FindAllSubmatch(b, -1) {
				n, _ := strconv.Atoi(string(m[1]))
				newest = max(newest, n)
			}
			mu.Unlock()
		}
	}()

	stalled := dialStalled(t, ts, tok)
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	// Events: a prompt of 32 KB each, one at a time, each one change the
	// reading board gets before the next is sent (so each is a frame of
	// its own, never coalesced with the next).
	const events = 1000
	pad := strings.Repeat("x", 32000)
	ctx := context.Background()
	var peak uint64
	for i := range events {
		r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt,
			Cwd: projectPath, Relay: relay(), Prompt: fmt.Sprintf("faultmark-%d-%s", i, pad)})
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			got := newest
			mu.Unlock()
			if got >= i {
				break
			}
			select {
			case err := <-fastDone:
				t.Fatalf("the reading board was let go at change %d: %v", i, err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("the reading board saw change %d, not %d, within 10 s: the hub waits for the stalled one", got, i)
			}
			time.Sleep(time.Millisecond)
		}
		if i%100 == 99 {
			runtime.GC() // what is live, not what awaits collection
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		if i == events/2 {
			// The hub still takes new clients.
			late, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
			if err != nil {
				t.Fatal(err)
			}
			readUntil(t, late, `id="board"`)
			late.Close()
		}
	}

	// Everything sent while it stalled is 32 MB: kept for it, the heap
	// would grow by that much.
	if grown := int64(peak) - int64(before.HeapInuse); grown > 16<<20 {
		t.Errorf("heap in use grew %d MB while a board stalled", grown>>20)
	}

	// The stalled board: what its socket held, then its end. The hub lets
	// it go with "try again later" once its queue is full; if its writer
	// was still stuck on the full socket, the write deadline cuts the
	// connection instead (an abnormal closure). A browser reconnects after
	// either.
	stalledBytes, frames := 0, 0
	_ = stalled.SetReadDeadline(time.Now().Add(20 * time.Second))
	for {
		_, b, err := stalled.ReadMessage()
		if err == nil {
			stalledBytes += len(b)
			frames++
			continue
		}
		var ce *websocket.CloseError
		var ne net.Error
		if errors.As(err, &ce) && ce.Code != websocket.CloseTryAgainLater || errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the stalled board ended with %v after %d frames, want close %d or a cut connection", err, frames, websocket.CloseTryAgainLater)
		}
		break
	}
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("reading board: %d KB; stalled board: %d frames, %d KB before it was dropped; heap in use %d MB before, peak %d MB, %d MB after",
		fastBytes>>10, frames, stalledBytes>>10, before.HeapInuse>>20, peak>>20, after.HeapInuse>>20)
	if stalledBytes*4 > fastBytes {
		t.Errorf("the stalled board got %d KB of the reading board's %d KB: it was not dropped when its buffer filled", stalledBytes>>10, fastBytes>>10)
	}
}
