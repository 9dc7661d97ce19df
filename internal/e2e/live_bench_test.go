package e2e

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"paddock/internal/app"
	"paddock/internal/hookchannel"
	"paddock/internal/testkit/servetest"
)

// boardClients opens n board websockets to a running paddock, as n phones
// would, and records when each first saw every "benchmark-prompt-N".
type boardClients struct {
	mu   sync.Mutex
	seen []map[int]time.Time // per client
	cond *sync.Cond
}

var benchMarker = regexp.MustCompile(`benchmark-prompt-(\d+)`)

func openBoards(b *testing.B, srv *servetest.Server, api *apiClient, n int) *boardClients {
	b.Helper()
	pem, err := os.ReadFile(filepath.Join(srv.DataDir, "ca.pem"))
	if err != nil {
		b.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	d := websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: pool}, HandshakeTimeout: 5 * time.Second}
	bc := &boardClients{}
	bc.cond = sync.NewCond(&bc.mu)
	for i := range n {
		h := http.Header{"Origin": {api.base}, "Authorization": {"Bearer " + api.token}}
		conn, _, err := d.Dial("wss"+strings.TrimPrefix(api.base, "https")+"/ws?view=board", h)
		if err != nil {
			b.Fatalf("board %d: %v", i, err)
		}
		b.Cleanup(func() { conn.Close() })
		bc.seen = append(bc.seen, map[int]time.Time{})
		go func() {
			for {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				at := time.Now()
				bc.mu.Lock()
				for _, m := range benchMarker.FindAllSubmatch(msg, -1) {
					k, _ := strconv.Atoi(string(m[1]))
					if _, ok := bc.seen[i][k]; !ok {
						bc.seen[i][k] = at
					}
				}
				bc.cond.Broadcast()
				bc.mu.Unlock()
			}
		}()
	}
	return bc
}

// waitAll returns when every client saw marker k (the latest arrival), or
// false after timeout.
func (bc *boardClients) waitAll(k int, timeout time.Duration) (time.Time, bool) {
	deadline := time.Now().Add(timeout)
	timer := time.AfterFunc(timeout, func() { bc.mu.Lock(); bc.cond.Broadcast(); bc.mu.Unlock() })
	defer timer.Stop()
	bc.mu.Lock()
	defer bc.mu.Unlock()
	for {
		var last time.Time
		all := true
		for _, s := range bc.seen {
			at, ok := s[k]
			if !ok {
				all = false
				break
			}
			if at.After(last) {
				last = at
			}
		}
		if all {
			return last, true
		}
		if time.Now().After(deadline) {
			return time.Time{}, false
		}
		bc.cond.Wait()
	}
}

// BenchmarkHookToFrame is the live board's end-to-end latency: a real
// `paddock hook` process started as Claude Code would start it, through the
// loopback listener and the live state, to the websocket frame at every one
// of 20 open boards of a real `paddock serve`. Each iteration is one
// UserPromptSubmit with a new prompt; the metric is from the hook
// command's start to the frame carrying it at the last of the 20 boards.
// Target: p99 ≤ 20 ms. Run with -benchtime=1000x.
func BenchmarkHookToFrame(b *testing.B) {
	home := b.TempDir()
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	boards := openBoards(b, srv, api, 20)
	bin := servetest.Binary(b)
	lat := make([]time.Duration, 0, b.N)
	i := 0
	for b.Loop() {
		payload := fmt.Sprintf(`{"session_id":"bench-session","hook_event_name":"UserPromptSubmit","cwd":%q,"prompt":"benchmark-prompt-%d"}`, home, i)
		cmd := exec.Command(bin, "hook", "--runtime", "claude", "--data-dir", srv.DataDir, "UserPromptSubmit")
		// A terminal the relay can name: a run without one opens no card.
		cmd.Env = append(os.Environ(), "TMUX_PANE=%9")
		cmd.Stdin = strings.NewReader(payload)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		if err := cmd.Run(); err != nil || out.Len() > 0 {
			b.Fatalf("paddock hook: %v %q", err, out.String())
		}
		at, ok := boards.waitAll(i, 5*time.Second)
		if !ok {
			b.Fatalf("event %d never reached all boards", i)
		}
		lat = append(lat, at.Sub(start))
		i++
	}
	reportPercentiles(b, "hook-to-frame", lat)
}

// BenchmarkHookBurst posts 50 sessions × 20 events/s for 30 s straight to
// the hook listener (as Claude's http hooks do: no process per event)
// while 20 boards are open, and checks that none is lost: every post
// answered 204, and serve's own counters at shutdown say every event was
// accepted and applied. Run with -benchtime=1x (it always runs 30 s).
func BenchmarkHookBurst(b *testing.B) {
	const sessions, perSecond, seconds = 50, 20, 30
	home := b.TempDir()
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	openBoards(b, srv, api, 20)
	secret, err := hookchannel.ReadSecret(srv.DataDir)
	if err != nil {
		b.Fatal(err)
	}
	var st app.State
	raw, err := os.ReadFile(filepath.Join(srv.DataDir, "serve.json"))
	if err != nil || json.Unmarshal(raw, &st) != nil {
		b.Fatalf("serve.json: %v", err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/hook/claude", st.HookPort)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: sessions}}
	kinds := []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}
	for b.Loop() {
		var sent, ok atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for s := range sessions {
			wg.Go(func() {
				tick := time.NewTicker(time.Second / perSecond)
				defer tick.Stop()
				for n := range perSecond * seconds {
					<-tick.C
					ev := kinds[n%len(kinds)]
					body := fmt.Sprintf(`{"session_id":"burst-%d","hook_event_name":%q,"cwd":%q,"prompt":"p%d","tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"true"}}`,
						s, ev, home, n, n/len(kinds))
					req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
					req.Header.Set(hookchannel.SecretHeader, secret)
					req.Header.Set("Content-Type", "application/json")
					sent.Add(1)
					resp, err := client.Do(req)
					if err == nil {
						if resp.StatusCode == http.StatusNoContent {
							ok.Add(1)
						}
						resp.Body.Close()
					}
				}
			})
		}
		wg.Wait()
		b.ReportMetric(float64(sent.Load())/time.Since(start).Seconds(), "events/s")
		if lost := sent.Load() - ok.Load(); lost != 0 {
			b.Fatalf("%d of %d events not accepted", lost, sent.Load())
		}
		b.ReportMetric(float64(sent.Load()), "events")
		srv.Stop(b)
		logs := srv.Stderr()
		want := fmt.Sprintf("accepted=%d rejected=0", sent.Load())
		if !strings.Contains(logs, want) {
			b.Fatalf("hook listener did not report %q:\n%s", want, lastLines(logs, 5))
		}
		applied := fmt.Sprintf("received=%d dropped=0", sent.Load())
		if !strings.Contains(logs, applied) {
			b.Fatalf("live state did not report %q:\n%s", applied, lastLines(logs, 5))
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
