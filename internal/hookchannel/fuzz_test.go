package hookchannel

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler throws arbitrary bodies, runtimes, event names and secrets
// at the handler: it must answer every one with a known status, count it
// exactly once, and never panic.
func FuzzHandler(f *testing.F) {
	f.Add("claude", "SessionStart", sessionStart, true)
	f.Add("codex", "notify", `{"type":"agent-turn-complete","thread-id":"t"}`, true)
	f.Add("opencode", "session.status", `{"event":{"type":"session.status","properties":{}}}`, true)
	f.Add("pi", "", `{"hook_event_name":"tool_call","paddock":{"pid":"x"}}`, true)
	f.Add("kimi", "PreToolUse", `{"session_id":null}`, true)
	f.Add("cursor", "stop", `{"conversation_id":"c","hook_event_name":"stop","paddock":[1]}`, true)
	f.Add("claude", "Stop", "\x00\xff{", false)
	f.Add("x/y", "%zz", `[]`, true)
	h := NewHandler(HandlerOptions{Secret: testSecret, Decoders: decoders, Sink: &collect{}})
	want := map[int]bool{204: true, 400: true, 401: true, 403: true, 404: true, 405: true, 413: true}
	n := uint64(0)
	f.Fuzz(func(t *testing.T, runtime, event, body string, authed bool) {
		path := "/hook/" + runtime
		if event != "" {
			path += "/" + event
		}
		r, err := http.NewRequest("POST", "http://127.0.0.1:7081/", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		r.URL.Path = path // as received, unvalidated
		r.URL.RawPath = ""
		if authed {
			r.Header.Set(SecretHeader, testSecret)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		n++
		if !want[w.Code] {
			t.Fatalf("status %d for %q %q", w.Code, path, body)
		}
		if !authed && w.Code != 401 {
			t.Fatalf("unauthenticated request got %d", w.Code)
		}
		if w.Code == 204 && w.Body.Len() != 0 {
			t.Fatal("accepted with a body")
		}
		st := h.Stats()
		if st.Accepted+st.RejectedTotal() != n {
			t.Fatalf("counted %d+%d of %d", st.Accepted, st.RejectedTotal(), n)
		}
	})
}
