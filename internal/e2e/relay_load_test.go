package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"paddock/internal/app"
	"paddock/internal/hookchannel"
	"paddock/internal/testkit/servetest"
)

// relayLoad is one load on a real paddock serve: sessions whose events
// each run a real `paddock hook` process, as agents with command hooks
// run them, and background sessions posted straight to the listener (as
// Claude's http hooks do), while boards are open.
type relayLoad struct {
	relaySessions, relayRate int // sessions through the relay, events/s each
	background, backRate     int // sessions posted straight, events/s each
	seconds                  int
	boards                   int // websocket clients on the board
	// noRelay posts the relay sessions straight too: the same events
	// without a process each, to tell serve's share from the relays'.
	noRelay bool
}

// loadReport is what a load did: problems are lost events and cards that
// differ from their last event, which the caller fails on; the rest is
// what the benchmark reports.
type loadReport struct {
	events     int64           // events sent, both ways
	gaveUp     int64           // relay runs that gave up within their budget (fail-open)
	relayRun   []time.Duration // each relay process, start to exit
	postRTT    []time.Duration // each straight post, sent to answered
	unanswered int64           // straight posts not answered within the client's 5 s
	answers    string          // the listener's own count and answer times, from serve's log
	serveRSS   float64         // serve's peak RSS, MB
	serveCPU   float64         // serve's CPU time over the load's wall time, in cores
	relayCPU   float64         // the relay processes' CPU time over the load's wall time, in cores
	testCPU    float64         // this process's (the boards', the straight posts'), in cores
	checked    int             // sessions whose final card was checked
	problems   []string
	perSecond  float64
}

// loadKinds is each session's cycle of events.
var loadKinds = []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"}

// loadCount is how many events session s sends at rate for seconds: whole
// cycles less 0, 1 or 3, so that sessions end on a Stop (waiting), a
// PostToolUse (working) or a prompt (prompting) — states no timer changes
// within seconds (a PreToolUse would turn into an inferred approval).
func loadCount(s, rate, seconds int) int {
	n := max(rate*seconds/len(loadKinds), 1) * len(loadKinds)
	return n - []int{0, 1, 3}[s%3]
}

// finalState is the state a session's last event leaves its card in.
func finalState(n int) string {
	return map[string]string{"UserPromptSubmit": "prompting", "PostToolUse": "working", "Stop": "waiting"}[loadKinds[(n-1)%len(loadKinds)]]
}

// loadEvent is event n of session id: a prompt names its session and
// number, so the card's last prompt shows which prompt came last.
func loadEvent(id, cwd string, n int) (kind, body string) {
	kind = loadKinds[n%len(loadKinds)]
	return kind, fmt.Sprintf(`{"session_id":%q,"hook_event_name":%q,"cwd":%q,"prompt":"%s-p%d","tool_name":"Bash","tool_use_id":"t%d","tool_input":{"command":"true"}}`,
		id, kind, cwd, id, n, n/len(loadKinds))
}

// lastPrompt is the prompt of the last UserPromptSubmit of a session that
// sent n events.
func lastPrompt(id string, n int) string {
	return fmt.Sprintf("%s-p%d", id, (n-1)/len(loadKinds)*len(loadKinds))
}

// runRelayLoad starts paddock serve, opens the boards, runs the load and
// then checks that paddock lost nothing: every event the listener took
// reached the live state (serve's counters at shutdown), every event a
// relay or a straight post saw answered 204 was counted, and each
// session's card ends as its last event left it — its state and its last
// prompt. A relay that gives up within its budget (the machine too busy
// to start it in time: it fails open, by design) is counted in gaveUp;
// strict makes that a problem too, and without it a session that had one
// is not held to its last event (that event may never have been sent).
func runRelayLoad(tb testing.TB, l relayLoad, strict bool) loadReport {
	tb.Helper()
	home := tb.TempDir()
	srv := servetest.Start(tb, home)
	api := newAPIClient(tb, srv)
	openBoards(tb, srv, api, l.boards)
	bin := servetest.Binary(tb)
	secret, err := hookchannel.ReadSecret(srv.DataDir)
	if err != nil {
		tb.Fatal(err)
	}
	var st app.State
	raw, err := os.ReadFile(filepath.Join(srv.DataDir, "serve.json"))
	if err != nil || json.Unmarshal(raw, &st) != nil {
		tb.Fatalf("serve.json: %v", err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/hook/claude", st.HookPort)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: l.background + l.relaySessions}}

	cpu0, self0 := cpuTime(srv.Cmd.Process.Pid), selfCPU()
	var (
		rep       loadReport
		relayCPU  time.Duration
		mu        sync.Mutex
		sent      atomic.Int64
		delivered atomic.Int64 // answered 204, as the sender saw it
		wg        sync.WaitGroup
		problems  []string
		unsure    = map[string]bool{} // sessions a relay gave up on
		// gaveUpSaid are the first relays' reports of giving up.
		gaveUpSaid []string
	)
	more := 0 // problems past the first 20, only counted
	problem := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 20 {
			problems = append(problems, fmt.Sprintf(format, args...))
		} else {
			more++
		}
	}
	// straight posts session id's n events at rate to the listener, as
	// Claude's http hooks do, timing each round trip.
	straight := func(id string, pane, rate, n int) {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for i := range n {
			<-tick.C
			_, body := loadEvent(id, home, i)
			// The relay's facts, as the relay would add them: a terminal
			// (so the session has a card) and when the event was sent
			// (so late arrivals cannot undo later ones).
			body = strings.TrimSuffix(body, "}") + fmt.Sprintf(`,"paddock":{"tmux_pane":"%%%d","sent_at":%q}}`, pane, time.Now().UTC().Format(time.RFC3339Nano))
			req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
			req.Header.Set(hookchannel.SecretHeader, secret)
			req.Header.Set("Content-Type", "application/json")
			sent.Add(1)
			at := time.Now()
			resp, err := client.Do(req)
			d := time.Since(at)
			if err != nil {
				mu.Lock()
				rep.unanswered++
				mu.Unlock()
				problem("%s event %d: %v", id, i, err)
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				problem("%s event %d answered %s", id, i, resp.Status)
				continue
			}
			delivered.Add(1)
			mu.Lock()
			rep.postRTT = append(rep.postRTT, d)
			mu.Unlock()
		}
	}
	want := map[string]int{} // session → events sent
	start := time.Now()
	for s := range l.relaySessions {
		id := fmt.Sprintf("relay-%d", s)
		n := loadCount(s, l.relayRate, l.seconds)
		want[id] = n
		if l.noRelay {
			wg.Go(func() { straight(id, 100+s, l.relayRate, n) })
			continue
		}
		// The session's agent process outlives the load: one that exited
		// would be seen gone, and its card ended.
		agent := startLoadAgent(tb, bin, srv.DataDir, fmt.Sprintf("%%%d", 100+s))
		wg.Go(func() {
			results := make(chan struct{})
			go func() {
				defer close(results)
				for range n {
					r, ok := <-agent.results
					if !ok {
						problem("%s: its agent process ended early", id)
						return
					}
					mu.Lock()
					rep.relayRun = append(rep.relayRun, r.took)
					relayCPU += r.cpu
					mu.Unlock()
					switch {
					case r.delivered:
						delivered.Add(1)
					case strings.Contains(r.said, "context deadline exceeded"):
						mu.Lock()
						rep.gaveUp++
						unsure[id] = true
						if len(gaveUpSaid) < 3 {
							gaveUpSaid = append(gaveUpSaid, fmt.Sprintf("%s event %d (%s): %s", id, r.n, r.kind, r.said))
						}
						mu.Unlock()
					default:
						problem("%s event %d (%s) not delivered: %s", id, r.n, r.kind, r.said)
					}
				}
			}()
			tick := time.NewTicker(time.Second / time.Duration(l.relayRate))
			defer tick.Stop()
			for i := range n {
				<-tick.C
				kind, body := loadEvent(id, home, i)
				sent.Add(1)
				agent.run(tb, i, kind, body)
			}
			<-results
		})
	}
	for s := range l.background {
		id := fmt.Sprintf("back-%d", s)
		n := loadCount(s, l.backRate, l.seconds)
		want[id] = n
		wg.Go(func() { straight(id, 1000+s, l.backRate, n) })
	}
	wg.Wait()
	wall := time.Since(start)
	rep.events = sent.Load()
	rep.perSecond = float64(rep.events) / wall.Seconds()
	rep.serveCPU = (cpuTime(srv.Cmd.Process.Pid) - cpu0).Seconds() / wall.Seconds()
	rep.relayCPU = relayCPU.Seconds() / wall.Seconds()
	rep.testCPU = (selfCPU() - self0).Seconds() / wall.Seconds()
	if strict && rep.gaveUp > 0 {
		problem("%d relay runs gave up within their budget (fail-open), first: %s", rep.gaveUp, strings.Join(gaveUpSaid, "; "))
	}

	// Every session's card ends in the state its last event leaves it,
	// with the last prompt it was sent: waited for a while (the last
	// events may still be on their way), well within the 30 s after
	// which a quiet prompt counts as a turn that ended.
	type card struct{ State, LastPrompt string }
	final := func(id string, c card) bool {
		return unsure[id] || c.State == finalState(want[id]) && c.LastPrompt == lastPrompt(id, want[id])
	}
	cards := map[string]card{}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var out struct {
			Sessions []struct {
				ID, State  string
				LastPrompt string `json:"last_prompt"`
			}
		}
		if err := api.get("/api/v1/sessions?runtime=claude&limit=1000", &out); err != nil {
			tb.Fatal(err)
		}
		done := 0
		for _, c := range out.Sessions {
			cards[c.ID] = card{c.State, c.LastPrompt}
			if _, ok := want[c.ID]; ok && final(c.ID, cards[c.ID]) {
				done++
			}
		}
		if done == len(want) || time.Now().After(deadline) {
			break
		}
	}
	for id, n := range want {
		c, ok := cards[id]
		switch {
		case !ok:
			problem("%s has no card", id)
		case unsure[id]:
		case !final(id, c):
			problem("%s ended %s with last prompt %q, want %s with %q (its last events)", id, c.State, c.LastPrompt, finalState(n), lastPrompt(id, n))
		default:
			rep.checked++
		}
	}

	rep.serveRSS = peakRSS(srv.Cmd.Process.Pid)
	srv.Stop(tb)
	logs := srv.Stderr()
	// What the listener took, the live state received, all of it.
	m := regexp.MustCompile(`accepted=(\d+) rejected=(\d+)`).FindStringSubmatch(logs)
	if m == nil {
		problem("the hook listener reported no counts: %s", lastLines(logs, 3))
	} else {
		accepted, _ := strconv.ParseInt(m[1], 10, 64)
		if m[2] != "0" || accepted < delivered.Load() || accepted > rep.events {
			problem("the hook listener accepted %s and rejected %s of %d events, %d of them answered 204", m[1], m[2], rep.events, delivered.Load())
		}
		if want := fmt.Sprintf("received=%d dropped=0", accepted); !strings.Contains(logs, want) {
			problem("events lost after the listener: the live state did not report %q: %s", want, lastLines(logs, 3))
		}
	}
	rep.answers = regexp.MustCompile(`answered=\S+ answer_p50=\S+ answer_p99=\S+ answer_max=\S+`).FindString(logs)
	rep.problems = problems
	if more > 0 {
		rep.problems = append(rep.problems, fmt.Sprintf("… and %d more problems", more))
	}
	return rep
}

// TestRelayLoadLosesNothing is the load at a scale CI runs in seconds:
// 4 sessions × 5 events/s through real `paddock hook` processes and 8
// background sessions × 2 events/s posted straight, for 6 s, with 10
// boards open. paddock may lose nothing it was given, and every card must
// end as its last event left it. A relay that the machine could not run
// within its budget fails open, by design, and is only counted: CI shares
// its cores with other tests. BenchmarkRelayLoad is the full scale, with
// the times, where that counts as a loss too.
func TestRelayLoadLosesNothing(t *testing.T) {
	rep := runRelayLoad(t, relayLoad{relaySessions: 4, relayRate: 5, background: 8, backRate: 2, seconds: 6, boards: 10}, false)
	for _, p := range rep.problems {
		t.Error(p)
	}
	t.Logf("%d events, %.0f/s, %d relay runs gave up (a busy machine); %d of 12 final cards checked; listener %s",
		rep.events, rep.perSecond, rep.gaveUp, rep.checked, rep.answers)
}

// BenchmarkRelayLoad is the full scale: 10 sessions × 10 events/s through
// real `paddock hook` processes plus 40 background sessions × 2 events/s
// posted straight to the listener, for 30 s, with 100 boards open
// (PADDOCK_BENCH_BOARDS to change). It fails on any lost event — a relay
// that gave up within its budget included — or any card that differs
// from its last event, and reports the listener's answer times (its own,
// from a post's body read to the 204, over every post), the straight
// posts' round trips, the relay processes' run times, the CPU each side
// used and serve's peak RSS. PADDOCK_BENCH_NO_RELAY=1 posts the relayed
// sessions straight instead: the same events without their processes;
// PADDOCK_BENCH_RELAYS=n relays n sessions instead of 10.
// Run with -benchtime=1x.
func BenchmarkRelayLoad(b *testing.B) {
	l := relayLoad{relaySessions: 10, relayRate: 10, background: 40, backRate: 2, seconds: 30, boards: 100,
		noRelay: os.Getenv("PADDOCK_BENCH_NO_RELAY") == "1"}
	if os.Getenv("PADDOCK_BENCH_BOARDS") != "" {
		l.boards = benchBoards(b)
	}
	if v := os.Getenv("PADDOCK_BENCH_RELAYS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			b.Fatalf("PADDOCK_BENCH_RELAYS=%q: a count of relayed sessions", v)
		}
		l.relaySessions = n
	}
	for b.Loop() {
		rep := runRelayLoad(b, l, true)
		for _, p := range rep.problems {
			b.Error(p)
		}
		b.ReportMetric(float64(rep.gaveUp), "relay-gave-up")
		b.ReportMetric(float64(rep.checked), "final-cards-checked")
		reportPercentiles(b, "post-rtt", rep.postRTT)
		reportPercentiles(b, "relay-run", rep.relayRun)
		b.ReportMetric(float64(rep.events), "events")
		b.ReportMetric(rep.perSecond, "events/s")
		b.ReportMetric(rep.serveRSS, "serve-peak-RSS-MB")
		b.ReportMetric(rep.serveCPU, "serve-cores")
		b.ReportMetric(rep.relayCPU, "relay-cores")
		b.ReportMetric(rep.testCPU, "client-cores")
		b.ReportMetric(float64(rep.unanswered), "straight-unanswered")
		b.Logf("%d events (%.0f/s); relay gave up %d; straight posts unanswered in 5 s %d; final cards checked %d; listener %s; post RTT p50/p99 %v/%v; relay run p50/p99 %v/%v; serve %.2f cores, relays %.2f cores, boards and posters %.2f cores, serve peak RSS %.1f MB",
			rep.events, rep.perSecond, rep.gaveUp, rep.unanswered, rep.checked, rep.answers, quantile(rep.postRTT, 0.5), quantile(rep.postRTT, 0.99),
			quantile(rep.relayRun, 0.5), quantile(rep.relayRun, 0.99), rep.serveCPU, rep.relayCPU, rep.testCPU, rep.serveRSS)
	}
}

// loadAgent is the process of one session of the load: the test binary
// run again as TestLoadAgent, which runs each event's `paddock hook` as
// its own child, as an agent does. The relay takes its parent for the
// session's process, so each session needs a process of its own.
type loadAgent struct {
	in      *json.Encoder
	results chan loadResult
}

// loadJob is one event for the agent to run; loadResult what became of it.
type loadJob struct {
	N          int
	Kind, Body string
}

type loadResult struct {
	n         int
	kind      string
	delivered bool          // the relay said it delivered the event (204)
	took      time.Duration // the process, start to exit
	cpu       time.Duration // its user and system time
	said      string        // the relay's report
}

func startLoadAgent(tb testing.TB, bin, dataDir, pane string) *loadAgent {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadAgent$")
	cmd.Env = append(os.Environ(), "PADDOCK_LOAD_AGENT="+bin+"\n"+dataDir+"\n"+pane)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	// Its stdin closing tells it to end, once its hooks did.
	tb.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	a := &loadAgent{in: json.NewEncoder(stdin), results: make(chan loadResult, 64)}
	go func() {
		defer close(a.results)
		dec := json.NewDecoder(stdout)
		for {
			var r struct {
				N         int
				Kind      string
				Delivered bool
				Took, CPU time.Duration
				Said      string
			}
			if err := dec.Decode(&r); err != nil {
				return // the agent is done (or the test runner's own output follows)
			}
			a.results <- loadResult{n: r.N, kind: r.Kind, delivered: r.Delivered, took: r.Took, cpu: r.CPU, said: r.Said}
		}
	}()
	return a
}

func (a *loadAgent) run(tb testing.TB, n int, kind, body string) {
	if err := a.in.Encode(loadJob{N: n, Kind: kind, Body: body}); err != nil {
		tb.Errorf("load agent: %v", err)
	}
}

// TestLoadAgent is not a test of its own: it is the agent process of one
// session of runRelayLoad, run by it with PADDOCK_LOAD_AGENT set. It reads
// one loadJob a line, runs `paddock hook` for each at once (the next one
// does not wait for this one), and writes what each did as a line of JSON.
func TestLoadAgent(t *testing.T) {
	spec := os.Getenv("PADDOCK_LOAD_AGENT")
	if spec == "" {
		t.Skip("the agent process of TestRelayLoadLosesNothing and BenchmarkRelayLoad: it runs only as their child")
	}
	parts := strings.SplitN(spec, "\n", 3)
	if len(parts) != 3 {
		t.Fatalf("PADDOCK_LOAD_AGENT=%q", spec)
	}
	bin, dataDir, pane := parts[0], parts[1], parts[2]
	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	var wg sync.WaitGroup
	dec := json.NewDecoder(os.Stdin)
	for {
		var j loadJob
		if err := dec.Decode(&j); err != nil {
			break
		}
		wg.Go(func() {
			cmd := exec.Command(bin, "hook", "--runtime", "claude", "--data-dir", dataDir, j.Kind)
			// A terminal per session (a run without one opens no card),
			// and the relay's one-line report of what it did.
			cmd.Env = append(os.Environ(), "TMUX_PANE="+pane, "PADDOCK_HOOK_DEBUG=1")
			cmd.Stdin = strings.NewReader(j.Body)
			var said bytes.Buffer
			cmd.Stdout, cmd.Stderr = &said, &said
			at := time.Now()
			err := cmd.Run()
			took := time.Since(at)
			report := strings.TrimSpace(said.String())
			if err != nil {
				report += " (" + err.Error() + ")"
			}
			var cpu time.Duration
			if ps := cmd.ProcessState; ps != nil {
				cpu = ps.UserTime() + ps.SystemTime()
			}
			mu.Lock()
			defer mu.Unlock()
			_ = out.Encode(map[string]any{"N": j.N, "Kind": j.Kind, "Took": took, "CPU": cpu,
				"Delivered": err == nil && strings.Contains(report, ": delivered (status 204"), "Said": report})
		})
	}
	wg.Wait()
}

// cpuTime is a process's user and system time so far, from /proc (Linux;
// 0 elsewhere). The kernel counts it in ticks of 1/100 s.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return 0
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// quantile is the q-quantile of d (nearest rank), 0 for none.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, max(0, int(math.Ceil(q*float64(len(s))))-1))].Round(10 * time.Microsecond)
}

// selfCPU is this process's user and system time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
