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
	// sent counts the bytes of every frame after each client's snapshot:
	// what the changes cost to send.
	sent atomic.Int64
}

// benchBoards is how many boards the serve benchmarks open:
// PADDOCK_BENCH_BOARDS, 20 by default (100 is the full-scale target).
func benchBoards(b *testing.B) int {
	n := 20
	if v := os.Getenv("PADDOCK_BENCH_BOARDS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			b.Fatalf("PADDOCK_BENCH_BOARDS=%q: a count of boards", v)
		}
	}
	return n
}

// peakRSS is a process's high-water resident set, from /proc.
func peakRSS(pid int) float64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

var benchMarker = regexp.MustCompile(`benchmark-prompt-(\d+)`)

func openBoards(b testing.TB, srv *servetest.Server, api *apiClient, n int) *boardClients {
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
			for first := true; ; first = false {
				_, msg, err := conn.ReadMessage()
				if err != nil {
					return
				}
				at := time.Now()
				if !first {
					bc.sent.Add(int64(len(msg)))
				}
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
// of 20 open boards (PADDOCK_BENCH_BOARDS) of a real `paddock serve`. Each iteration is one
// UserPromptSubmit with a new prompt; the metric is from the hook
// command's start to the frame carrying it at the last of the 20 boards.
// Target: p99 ≤ 20 ms. Run with -benchtime=1000x.
func BenchmarkHookToFrame(b *testing.B) {
	home := b.TempDir()
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	nb := benchBoards(b)
	boards := openBoards(b, srv, api, nb)
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
	b.ReportMetric(float64(boards.sent.Load())/float64(i*nb), "B/change/board")
}

// BenchmarkHookBurst posts 50 sessions × 20 events/s for 30 s straight to
// the hook listener (as Claude's http hooks do: no process per event)
// while 20 boards are open (PADDOCK_BENCH_BOARDS=100 for the full scale),
// times a probe session's prompts from post to frame at every board
// meanwhile, and checks that none is lost: every post
// answered 204, and serve's own counters at shutdown say every event was
// accepted and applied. Run with -benchtime=1x (it always runs 30 s).
func BenchmarkHookBurst(b *testing.B) {
	const sessions, perSecond, seconds = 50, 20, 30
	home := b.TempDir()
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	nb := benchBoards(b)
	boards := openBoards(b, srv, api, nb)
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
		// Meanwhile a probe session's prompt every 100 ms, timed from its
		// post to the frame carrying it at the last of the boards: the
		// event-to-frame latency under the burst.
		var lat []time.Duration
		probeDone := make(chan struct{})
		go func() {
			defer close(probeDone)
			for n := 0; time.Since(start) < time.Duration(seconds)*time.Second-time.Second; n++ {
				body := fmt.Sprintf(`{"session_id":"burst-probe","hook_event_name":"UserPromptSubmit","cwd":%q,"prompt":"benchmark-prompt-%d"}`, home, n)
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set(hookchannel.SecretHeader, secret)
				req.Header.Set("Content-Type", "application/json")
				sent.Add(1)
				at := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					if resp.StatusCode == http.StatusNoContent {
						ok.Add(1)
					}
					resp.Body.Close()
				}
				if got, seen := boards.waitAll(n, 5*time.Second); seen {
					lat = append(lat, got.Sub(at))
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
		wg.Wait()
		<-probeDone
		reportPercentiles(b, "event-to-frame", lat)
		b.ReportMetric(float64(len(lat)), "probes")
		b.ReportMetric(float64(sent.Load())/time.Since(start).Seconds(), "events/s")
		if lost := sent.Load() - ok.Load(); lost != 0 {
			b.Fatalf("%d of %d events not accepted", lost, sent.Load())
		}
		b.ReportMetric(float64(sent.Load()), "events")
		b.ReportMetric(float64(boards.sent.Load())/float64(sent.Load()*int64(nb)), "B/event/board")
		b.ReportMetric(peakRSS(srv.Cmd.Process.Pid), "serve-peak-RSS-MB")
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

// BenchmarkRelayBurst is the burst through real `paddock hook` processes,
// as agents with command hooks run them: 10 sessions × 10 events/s for
// 30 s, one process per event, while 20 boards are open
// (PADDOCK_BENCH_BOARDS=100 for the full scale). Nothing may be lost: the
// relay gives up silently after 100 ms (the agent must never wait), so
// serve's counters at shutdown must show every event accepted and
// applied. It reports the relay processes' run time. Run with
// -benchtime=1x.
func BenchmarkRelayBurst(b *testing.B) {
	const sessions, perSecond, seconds = 10, 10, 30
	home := b.TempDir()
	srv := servetest.Start(b, home)
	api := newAPIClient(b, srv)
	nb := benchBoards(b)
	openBoards(b, srv, api, nb)
	bin := servetest.Binary(b)
	kinds := []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}
	for b.Loop() {
		var sent, failed atomic.Int64
		var mu sync.Mutex
		var took []time.Duration
		var wg sync.WaitGroup
		start := time.Now()
		for s := range sessions {
			wg.Go(func() {
				tick := time.NewTicker(time.Second / perSecond)
				defer tick.Stop()
				var each sync.WaitGroup
				for n := range perSecond * seconds {
					<-tick.C
					ev := kinds[n%len(kinds)]
					body := fmt.Sprintf(`{"session_id":"relay-%d","hook_event_name":%q,"cwd":%q,"prompt":"p%d","tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"true"}}`,
						s, ev, home, n, n/len(kinds))
					sent.Add(1)
					// One process per event, as the agent runs it; the
					// next one starts on time whatever this one does.
					each.Go(func() {
						cmd := exec.Command(bin, "hook", "--runtime", "claude", "--data-dir", srv.DataDir, ev)
						cmd.Stdin = strings.NewReader(body)
						at := time.Now()
						err := cmd.Run()
						d := time.Since(at)
						if err != nil {
							failed.Add(1)
						}
						mu.Lock()
						took = append(took, d)
						mu.Unlock()
					})
				}
				each.Wait()
			})
		}
		wg.Wait()
		reportPercentiles(b, "relay-run", took)
		b.ReportMetric(float64(sent.Load())/time.Since(start).Seconds(), "events/s")
		b.ReportMetric(float64(sent.Load()), "events")
		b.ReportMetric(peakRSS(srv.Cmd.Process.Pid), "serve-peak-RSS-MB")
		if failed.Load() != 0 {
			b.Errorf("%d relay processes failed (a failing hook blocks Claude's prompt)", failed.Load())
		}
		srv.Stop(b)
		logs := srv.Stderr()
		if want := fmt.Sprintf("accepted=%d rejected=0", sent.Load()); !strings.Contains(logs, want) {
			b.Fatalf("events lost: the hook listener did not report %q:\n%s", want, lastLines(logs, 5))
		}
		if want := fmt.Sprintf("received=%d dropped=0", sent.Load()); !strings.Contains(logs, want) {
			b.Fatalf("events lost: the live state did not report %q:\n%s", want, lastLines(logs, 5))
		}
	}
}
