package mockmodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/testkit/sharedtest"
)

func TestStartBindsLoopbackAndStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	s, err := Start(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL %q is not loopback", s.URL())
	}
	resp, err := http.Get(s.URL() + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	// Close waits for the shutdown the cancelled context started.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(s.URL() + "/v1/models"); err == nil {
		t.Fatal("server still answers after its context ended")
	}
}

func TestModels(t *testing.T) {
	for _, path := range []string{"/v1/models", "/models"} {
		t.Run(path, func(t *testing.T) {
			_, hs := newTestServer(t, Options{})
			resp, err := http.Get(hs.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			m := readJSON(t, resp)
			// Both SDK families must find the model.
			if m["object"] != "list" || get(m, "data", 0, "id") != MockModel || get(m, "data", 0, "object") != "model" ||
				get(m, "data", 0, "type") != "model" || m["has_more"] != false {
				t.Errorf("models list %v", m)
			}
		})
	}
}

func TestWrongMethodUsesTheAPIErrorShape(t *testing.T) {
	_, hs := newTestServer(t, Options{})
	for _, tc := range []struct{ path, wantShape string }{
		{"/v1/messages", "anthropic"},
		{"/v1/chat/completions", "openai"},
	} {
		resp, err := http.Get(hs.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		m := readJSON(t, resp)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: status %d", tc.path, resp.StatusCode)
		}
		if (tc.wantShape == "anthropic") != (m["type"] == "error") || get(m, "error", "message") == nil {
			t.Errorf("%s: body %v not in the %s shape", tc.path, m, tc.wantShape)
		}
	}
}

// lockedBuffer is an io.Writer safe for the server's concurrent handlers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRequestLog(t *testing.T) {
	var log lockedBuffer
	s, hs := newTestServer(t, Options{Log: &log})
	post(t, hs.URL, "/v1/messages", claudeBody(false, claudeTools, userText("please RUN it")),
		"x-api-key", "sk-ant-secret", "anthropic-version", "2023-06-01")
	post(t, hs.URL, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer sk-secret")

	reqs, err := s.WaitRequests(testCtx(t), 2)
	if err != nil {
		t.Fatal(err)
	}
	if reqs[0].Seq != 1 || reqs[1].Seq != 2 || reqs[0].API != APIAnthropicMessages || reqs[1].API != APIOpenAIChat {
		t.Errorf("requests %+v", reqs)
	}
	if reqs[0].Query != "" || reqs[0].Method != http.MethodPost || reqs[0].Path != "/v1/messages" || reqs[0].Time.IsZero() {
		t.Errorf("request metadata %+v", reqs[0])
	}
	if got := reqs[0].Header.Get("X-Api-Key"); got != "[redacted]" {
		t.Errorf("x-api-key logged as %q", got)
	}
	if got := reqs[1].Header.Get("Authorization"); got != "[redacted]" {
		t.Errorf("authorization logged as %q", got)
	}
	if get(decodeJSON(t, string(reqs[0].Body)), "model") != "claude-opus-5-5" {
		t.Errorf("body not logged: %s", reqs[0].Body)
	}
	if r := reqs[0].Reply; r == nil || r.Kind != KindTool || r.Tool != "Bash" || r.Prompt != "please RUN it" || r.Turn != 1 {
		t.Errorf("reply %+v", r)
	}
	if got := Replies(reqs); len(got) != 2 || got[1].Text != PlainReply(1) {
		t.Errorf("Replies = %+v", got)
	}

	// The JSONL log has the same two entries, without secrets.
	var lines []Request
	sc := bufio.NewScanner(strings.NewReader(log.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r Request
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		lines = append(lines, r)
	}
	if len(lines) != 2 || lines[1].Reply.Text != PlainReply(1) {
		t.Errorf("JSONL log %+v", lines)
	}
	if strings.Contains(log.String(), "secret") {
		t.Error("the request log holds an API key")
	}

	// WaitFor gives up with the context.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if got, err := s.WaitRequests(ctx, 3); err == nil || len(got) != 2 {
		t.Errorf("WaitRequests past the end = %d requests, %v", len(got), err)
	}
}

func TestNonJSONBodyIsLoggedAsString(t *testing.T) {
	s, hs := newTestServer(t, Options{})
	post(t, hs.URL, "/v1/chat/completions", "not json")
	var body string
	if err := json.Unmarshal(s.Requests()[0].Body, &body); err != nil || body != "not json" {
		t.Errorf("body logged as %s (%v)", s.Requests()[0].Body, err)
	}
}

func TestSlowReply(t *testing.T) {
	t.Run("held back, then sent", func(t *testing.T) {
		s, hs := newTestServer(t, Options{SlowDelay: 10 * time.Millisecond})
		resp := post(t, hs.URL, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"be SLOW"}]}`)
		m := readJSON(t, resp)
		if get(m, "choices", 0, "message", "content") != PlainReply(1) || !s.Requests()[0].Reply.Slow {
			t.Errorf("reply %v, logged %+v", m, s.Requests()[0].Reply)
		}
	})
	t.Run("Close ends a held reply", func(t *testing.T) {
		s, hs := newTestServer(t, Options{SlowDelay: time.Hour})
		done := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+"/v1/messages",
				strings.NewReader(`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"SLOW"}]}`))
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			done <- err
		}()
		ctx := testCtx(t)
		// The request is logged before its reply is held back.
		if _, err := s.WaitRequests(ctx, 1); err != nil {
			t.Fatal(err)
		}
		s.Close()
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatal("a held SLOW reply outlived Close")
		}
	})
}

// TestReplayRecordedRequests sends every request the real CLIs made in the
// recordings (../shared/fixtures/real/*/mock-requests.jsonl) to the mock:
// each must be accepted and answered with the runtime's own tools, called
// with arguments that fit the schema the request offered for that tool.
func TestReplayRecordedRequests(t *testing.T) {
	tests := []struct {
		dir                string
		shell, question    string
		wantTitle, wantAsk bool
	}{
		{dir: "codex-0.169.0", shell: "exec_command", question: "request_user_input", wantTitle: true},
		{dir: "opencode-1.18.33", shell: "bash", question: "question", wantTitle: true, wantAsk: true},
		{dir: "pi-0.73.1", shell: "bash"},
		{dir: "kimi-code-2.1.0", shell: "Bash", question: "AskUserQuestion", wantAsk: true},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			path := sharedtest.Fixtures(t, "real", tc.dir, "mock-requests.jsonl")
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			// The Kimi recording has a SLOW turn (interrupted there).
			s, hs := newTestServer(t, Options{SlowDelay: time.Millisecond})
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 16<<20)
			kinds := map[ReplyKind]int{}
			fullTools := map[string]json.RawMessage{}
			for line := 1; sc.Scan(); line++ {
				var rec struct {
					Method, Path string
					Body         json.RawMessage
				}
				if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
					t.Fatalf("%s:%d: %v", filepath.Base(path), line, err)
				}
				if rec.Method != http.MethodPost {
					continue
				}
				body := untrimTools(t, fullTools, rec.Body)
				resp := post(t, hs.URL, rec.Path, []byte(body))
				io.Copy(io.Discard, resp.Body)
				var model struct{ Model string }
				_ = json.Unmarshal(rec.Body, &model)
				if model.Model == "" {
					// The Codex recording starts with a hand-made curl probe
					// without a model: the real API refuses it, and so do we.
					if resp.StatusCode != http.StatusBadRequest {
						t.Errorf("line %d: model-less probe got %d", line, resp.StatusCode)
					}
					continue
				}
				if resp.StatusCode != http.StatusOK {
					t.Errorf("line %d: status %d", line, resp.StatusCode)
					continue
				}
				reqs := s.Requests()
				r := reqs[len(reqs)-1].Reply
				kinds[r.Kind]++
				if r.Kind == KindTool && r.Tool != tc.shell && r.Tool != tc.question {
					t.Errorf("line %d: called %q, want %q or %q", line, r.Tool, tc.shell, tc.question)
				}
				if r.Kind == KindTool {
					// The CLI validates the call against the schema it offered.
					schema := offeredSchemas(body)[r.Tool]
					if errs := validate(decode(t, string(schema)), decode(t, string(r.Input)), "$"); len(errs) > 0 {
						t.Errorf("line %d: %s arguments %s do not fit the offered schema: %v", line, r.Tool, r.Input, errs)
					}
				}
			}
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
			if kinds[KindTool] == 0 || kinds[KindText] == 0 || (kinds[KindTitle] > 0) != tc.wantTitle {
				t.Errorf("reply kinds %v (want tool calls, texts, titles=%v)", kinds, tc.wantTitle)
			}
			asked := false
			for _, r := range Replies(s.Requests()) {
				asked = asked || (r.Kind == KindTool && r.Tool == tc.question)
			}
			if asked != tc.wantAsk {
				t.Errorf("question tool called = %v, want %v", asked, tc.wantAsk)
			}
		})
	}
}

// untrimTools restores tool definitions in a recorded body: the Kimi
// recording keeps full tools only in its first request and just their names
// afterwards. Full definitions seen are remembered in full.
func untrimTools(t *testing.T, full map[string]json.RawMessage, body json.RawMessage) json.RawMessage {
	t.Helper()
	var b map[string]json.RawMessage
	if json.Unmarshal(body, &b) != nil || b["tools"] == nil {
		return body
	}
	var defs []struct {
		Function struct{ Name string }
	}
	var raw []json.RawMessage
	if json.Unmarshal(b["tools"], &defs) == nil && json.Unmarshal(b["tools"], &raw) == nil {
		for i, d := range defs {
			full[d.Function.Name] = raw[i]
		}
		return body
	}
	var names []string
	if err := json.Unmarshal(b["tools"], &names); err != nil {
		return body
	}
	raw = raw[:0]
	for _, n := range names {
		if full[n] == nil {
			t.Fatalf("recorded tool %q never appeared in full", n)
		}
		raw = append(raw, full[n])
	}
	b["tools"], _ = json.Marshal(raw)
	out, _ := json.Marshal(b)
	return out
}
