package hookchannel

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"paddock/internal/agent/registry"
	"paddock/internal/hookstate"
	"paddock/internal/testkit/sharedtest"
)

const testSecret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// sinkFunc is a Sink of a function; collect is one that keeps every event.
type collect struct {
	mu     sync.Mutex
	events []hookstate.Event
}

func (c *collect) HookEvent(_ context.Context, ev hookstate.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.events = append(c.events, ev)
}

func (c *collect) all() []hookstate.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]hookstate.Event(nil), c.events...)
}

func newHandler(t *testing.T) (*Handler, *collect) {
	t.Helper()
	c := &collect{}
	return NewHandler(HandlerOptions{Secret: testSecret, Decoders: decoders, Sink: c}), c
}

const sessionStart = `{"session_id":"14d07547","transcript_path":"/tmp/x.jsonl","cwd":"/tmp/proj","hook_event_name":"SessionStart","source":"startup","model":"m"}`

type request struct {
	method, path, body string
	header             map[string]string
	contentLength      int64 // -1: chunked (unknown length)
}

func do(h http.Handler, rq request) *httptest.ResponseRecorder {
	var body io.Reader = strings.NewReader(rq.body)
	if rq.contentLength < 0 {
		body = io.MultiReader(strings.NewReader(rq.body)) // hides the length
	}
	r := httptest.NewRequest(rq.method, "http://127.0.0.1:7081"+rq.path, body)
	if rq.contentLength < 0 {
		r.ContentLength = -1
	}
	r.Header.Set(SecretHeader, testSecret)
	for k, v := range rq.header {
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	if h := rq.header["Host"]; h != "" {
		r.Host = h
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandlerStatuses(t *testing.T) {
	big := `{"session_id":"s","hook_event_name":"Stop","pad":"` + strings.Repeat("x", MaxBody) + `"}`
	cases := []struct {
		name   string
		rq     request
		status int
		reason Reason // "" when accepted
		msg    string // part of the body
	}{
		{"accepted", request{method: "POST", path: "/hook/claude/SessionStart", body: sessionStart}, 204, "", ""},
		{"accepted without event in path", request{method: "POST", path: "/hook/claude", body: sessionStart}, 204, "", ""},
		{"no secret", request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{SecretHeader: ""}}, 401, ReasonUnauthorized, "X-Paddock-Secret"},
		{"wrong secret", request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{SecretHeader: strings.Repeat("0", 64)}}, 401, ReasonUnauthorized, "wrong"},
		{"secret prefix", request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{SecretHeader: testSecret[:63]}}, 401, ReasonUnauthorized, ""},
		{"unauthenticated before anything else", request{method: "GET", path: "/nope", header: map[string]string{SecretHeader: "x"}}, 401, ReasonUnauthorized, ""},
		{"rebinding host", request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{"Host": "evil.example:7081"}}, 403, ReasonBadHost, "loopback"},
		{"localhost host", request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{"Host": "localhost:7081"}}, 204, "", ""},
		{"oversize by length", request{method: "POST", path: "/hook/claude/Stop", body: big}, 413, ReasonTooLarge, "too large"},
		{"oversize chunked", request{method: "POST", path: "/hook/claude/Stop", body: big, contentLength: -1}, 413, ReasonTooLarge, "too large"},
		{"unknown runtime", request{method: "POST", path: "/hook/gemini/SessionStart", body: sessionStart}, 404, ReasonUnknownRuntime, "known: claude"},
		{"bad path", request{method: "POST", path: "/hooks/claude", body: sessionStart}, 404, ReasonNotFound, ""},
		{"too deep", request{method: "POST", path: "/hook/claude/a/b", body: sessionStart}, 404, ReasonNotFound, ""},
		{"empty runtime", request{method: "POST", path: "/hook//x", body: sessionStart}, 404, ReasonNotFound, ""},
		{"GET", request{method: "GET", path: "/hook/claude"}, 405, ReasonMethod, "POST"},
		{"not JSON", request{method: "POST", path: "/hook/claude/Stop", body: `{"session_id":`}, 400, ReasonMalformed, "not valid JSON"},
		{"not an object", request{method: "POST", path: "/hook/codex/Stop", body: `[1,2]`}, 400, ReasonMalformed, "must be a JSON object"},
		{"empty body", request{method: "POST", path: "/hook/claude/Stop", body: ``}, 400, ReasonMalformed, "malformed claude hook payload"},
		{"missing session", request{method: "POST", path: "/hook/claude/Stop", body: `{"hook_event_name":"Stop"}`}, 400, ReasonMalformed, "session_id"},
		{"wrong type", request{method: "POST", path: "/hook/claude/Stop", body: `{"hook_event_name":"Stop","session_id":7}`}, 400, ReasonMalformed, "must be a string"},
	}
	h, sink := newHandler(t)
	want := map[Reason]uint64{}
	accepted := 0
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := do(h, c.rq)
			if w.Code != c.status {
				t.Fatalf("status %d, want %d (%s)", w.Code, c.status, w.Body.String())
			}
			if c.reason == "" {
				accepted++
				if w.Body.Len() != 0 {
					t.Fatalf("an accepted event has a body %q: Claude would feed it to the model", w.Body.String())
				}
				return
			}
			want[c.reason]++
			if !strings.Contains(w.Body.String(), c.msg) {
				t.Fatalf("body %q lacks %q", w.Body.String(), c.msg)
			}
			if strings.Contains(w.Body.String(), testSecret) {
				t.Fatal("the secret is in a response")
			}
		})
	}
	st := h.Stats()
	if st.Accepted != uint64(accepted) || len(sink.all()) != accepted || st.ByRuntime["claude"] != uint64(accepted) {
		t.Fatalf("accepted %d (sink %d, by runtime %v), want %d", st.Accepted, len(sink.all()), st.ByRuntime, accepted)
	}
	for r, n := range want {
		if st.Rejected[r] != n {
			t.Errorf("rejected[%s] = %d, want %d (all %v)", r, st.Rejected[r], n, st.Rejected)
		}
	}
	if st.RejectedTotal() != uint64(len(cases)-accepted) || st.LastEvent.IsZero() {
		t.Fatalf("stats %+v", st)
	}
}

// TestHandlerOverHTTP runs the handler behind a real listener, as serve
// does: a Content-Length over the limit is refused before the body is read.
func TestHandlerOverHTTP(t *testing.T) {
	h, _ := newHandler(t)
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	u := "http://" + ln.Addr().String() + "/hook/claude/SessionStart"
	post := func(body io.Reader, n int64) int {
		req, _ := http.NewRequest("POST", u, body)
		req.ContentLength = n
		req.Header.Set(SecretHeader, testSecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := post(strings.NewReader(sessionStart), int64(len(sessionStart))); s != 204 {
		t.Fatalf("status %d", s)
	}
	if s := post(io.LimitReader(zeros{}, MaxBody+1), MaxBody+1); s != 413 {
		t.Fatalf("oversize: status %d", s)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestHandlerAcceptsRecordings posts every recorded hook call of the real
// CLIs, as the relay would (event name in the path, relay info added).
func TestHandlerAcceptsRecordings(t *testing.T) {
	recordings := []struct {
		runtime string
		path    []string
	}{
		{"claude", []string{"claude-2.1.328", "hooks.log"}},
		{"codex", []string{"codex-0.169.0", "hooks.log"}},
		{"codex", []string{"codex-0.169.0", "notify.log"}},
		{"kimi", []string{"kimi-code-2.1.0", "hooks.log"}},
		{"opencode", []string{"opencode-1.18.33", "plugin-events.log"}},
		{"pi", []string{"pi-0.73.1", "extension-events.log"}},
	}
	for _, rec := range recordings {
		t.Run(strings.Join(rec.path, "/"), func(t *testing.T) {
			f, err := os.Open(sharedtest.Fixtures(t, append([]string{"real"}, rec.path...)...))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			h, sink := newHandler(t)
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, MaxBody+4096)
			n := 0
			for sc.Scan() {
				line := sc.Text()
				if strings.TrimSpace(line) == "" {
					continue
				}
				var event, payload string
				switch parts := strings.SplitN(line, "\t", 3); len(parts) {
				case 1:
					payload = parts[0]
				case 2:
					event, payload = parts[0], parts[1]
				case 3:
					event, payload = parts[1], parts[2]
				}
				n++
				path := "/hook/" + rec.runtime
				if event != "" {
					path += "/" + url.PathEscape(event)
				}
				// what the relay adds
				payload = strings.TrimSuffix(strings.TrimSpace(payload), "}") + `,"paddock":{"pid":4242,"tty":"/dev/pts/3","terminal_id":"term-1"}}`
				if w := do(h, request{method: "POST", path: path, body: payload}); w.Code != 204 {
					t.Fatalf("line %d (%s): %d %s", n, event, w.Code, w.Body.String())
				}
			}
			got := sink.all()
			if len(got) != n || n == 0 {
				t.Fatalf("%d events for %d lines", len(got), n)
			}
			for _, ev := range got {
				if ev.Runtime != rec.runtime || ev.Name == "" || ev.Relay.PID != 4242 || ev.Relay.TTY != "/dev/pts/3" || ev.Relay.TerminalID != "term-1" {
					t.Fatalf("event %+v", ev)
				}
			}
			if st := h.Stats(); st.Accepted != uint64(n) || st.RejectedTotal() != 0 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestClaudeHTTPHeaders: Claude's http hooks have no relay; the listener
// takes the terminal facts from the headers hookinstall configures.
func TestClaudeHTTPHeaders(t *testing.T) {
	h, sink := newHandler(t)
	w := do(h, request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{
		"X-Paddock-Terminal-Id": "term-9", "X-Paddock-Tmux-Pane": "%3", "X-Paddock-Term-Program": "$TERM_PROGRAM",
	}})
	if w.Code != 204 {
		t.Fatal(w.Code, w.Body.String())
	}
	withRelay := strings.TrimSuffix(sessionStart, "}") + `,"paddock":{"terminal_id":"from-relay"}}`
	do(h, request{method: "POST", path: "/hook/claude", body: withRelay, header: map[string]string{"X-Paddock-Terminal-Id": "from-header"}})
	evs := sink.all()
	if r := evs[0].Relay; r.TerminalID != "term-9" || r.TmuxPane != "%3" || r.TermProgram != "" {
		t.Fatalf("relay from headers %+v (an unexpanded $VAR must read as absent)", r)
	}
	if r := evs[1].Relay; r.TerminalID != "from-relay" {
		t.Fatalf("the payload's relay info must win: %+v", r)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"": true, "127.0.0.1": true, "127.0.0.1:7081": true, "localhost:1": true, "LOCALHOST": true,
		"[::1]:7081": true, "::1": true, "127.1.2.3:80": true,
		"example.com": false, "10.0.0.1:7081": false, "localhost.evil.com": false, "[::]:80": false, "0.0.0.0": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v", host, got)
		}
	}
}

func TestNewPanicsWithoutSecret(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	NewHandler(HandlerOptions{Sink: &collect{}})
}

func TestRejectLogsNoSecret(t *testing.T) {
	var logs bytes.Buffer
	h := NewHandler(HandlerOptions{Secret: testSecret, Decoders: decoders, Sink: &collect{}, Logger: newTextLogger(&logs)})
	for range 3 {
		do(h, request{method: "POST", path: "/hook/claude", body: sessionStart, header: map[string]string{SecretHeader: testSecret + "x"}})
	}
	do(h, request{method: "POST", path: "/hook/claude", body: `{"prompt":"my private prompt"}`})
	if strings.Contains(logs.String(), testSecret) || strings.Contains(logs.String(), "private") {
		t.Fatalf("logs leak: %s", logs.String())
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != 2 { // one per reason and minute
		t.Fatalf("%d warnings:\n%s", got, logs.String())
	}
}

// decoders are the shipped agents' hook decoders.
var decoders = registry.Default().Decoders()
