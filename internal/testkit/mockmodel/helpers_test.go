package mockmodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newTestServer mounts the mock on an httptest server, the way make demo
// mounts Handler on its own listener.
func newTestServer(t *testing.T, opts Options) (*Server, *httptest.Server) {
	t.Helper()
	s := New(opts)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		s.Close() // first: ends held SLOW replies so hs.Close does not wait
		hs.Close()
	})
	return s, hs
}

func post(t *testing.T, base, path string, body any, header ...string) *http.Response {
	t.Helper()
	var b []byte
	switch v := body.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, base+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

type sseEvent struct {
	name string
	data string
}

// readSSE parses a whole event stream the way the SDKs do: "event:" and
// "data:" lines, events separated by a blank line.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" || cur.name != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				t.Fatalf("multi-line data in one event: %q", line)
			}
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur.data != "" {
		t.Fatalf("stream ended inside an event: %+v", cur)
	}
	return out
}

func decodeJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("bad JSON %q: %v", s, err)
	}
	return m
}

func readJSON(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, string(b))
}

// get walks a decoded JSON value by keys and indexes: get(m, "error", "type").
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Request bodies in each API's shape.

var (
	claudeTools = []any{
		map[string]any{"name": "Bash", "input_schema": map[string]any{"type": "object", "properties": map[string]any{
			"command": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"}, "timeout": map[string]any{"type": "number"}}}},
		map[string]any{"name": "AskUserQuestion", "input_schema": map[string]any{"type": "object", "properties": map[string]any{
			"questions": map[string]any{"type": "array"}}}},
	}
	codexTools = []any{
		map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"type": "object", "properties": map[string]any{
			"cmd": map[string]any{}, "justification": map[string]any{}, "sandbox_permissions": map[string]any{}, "workdir": map[string]any{}}}},
		map[string]any{"type": "function", "name": "request_user_input", "parameters": map[string]any{"type": "object", "properties": map[string]any{
			"questions": map[string]any{}}}},
		map[string]any{"type": "web_search"},
	}
	// Pi's bash declares no "description": the mock must not send one.
	piTools = []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "read", "parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{}}}}},
		map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": map[string]any{"type": "object", "properties": map[string]any{
			"command": map[string]any{}, "timeout": map[string]any{}}}}},
	}
	openCodeTools = []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": map[string]any{"type": "object", "properties": map[string]any{
			"command": map[string]any{}, "timeout": map[string]any{}, "workdir": map[string]any{}, "description": map[string]any{}}}}},
		map[string]any{"type": "function", "function": map[string]any{"name": "question", "parameters": map[string]any{"type": "object", "properties": map[string]any{
			"questions": map[string]any{}}}}},
	}
)

func claudeBody(stream bool, tools []any, messages ...any) map[string]any {
	b := map[string]any{"model": "claude-opus-5-5", "max_tokens": 32000, "stream": stream, "messages": messages,
		"system": []any{map[string]any{"type": "text", "text": "You are Claude Code."}}}
	if tools != nil {
		b["tools"] = tools
	}
	return b
}

func userText(texts ...string) map[string]any {
	var blocks []any
	for _, t := range texts {
		blocks = append(blocks, map[string]any{"type": "text", "text": t})
	}
	return map[string]any{"role": "user", "content": blocks}
}
