package web

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/session"
)

// FuzzCursor: any ?before= string parses or is refused and resolves
// against any conversation without panicking; the anchor cursor of the
// newest k messages of a conversation names exactly where they start.
func FuzzCursor(f *testing.F) {
	f.Add("80", "a\x00b\x00c", uint8(2), int64(0))
	f.Add("t3-9f3c2a1b-1a2b3c", "x\x00x\x00x\x00x", uint8(3), int64(1764000000000000000))
	f.Add("t0-0", "", uint8(0), int64(-1))
	f.Add("-1", "one", uint8(9), int64(1))
	f.Add("t99999999999999999999-ffffffffffffffff-zzzzzzzzzzzzzz", "a\x00a", uint8(1), int64(0))
	f.Fuzz(func(t *testing.T, raw, texts string, k uint8, at int64) {
		var msgs []session.Message
		if texts != "" {
			for i, text := range strings.Split(texts, "\x00") {
				m := session.Message{Role: session.RoleUser, Text: text}
				if i%2 == 1 {
					m.Role = session.RoleAssistant
				}
				if at != 0 && i%3 != 2 { // some messages without a time, some sharing one
					m.Time = time.Unix(0, at+int64(i/2))
				}
				msgs = append(msgs, m)
			}
		}
		if cu, ok := parseCursor(raw); ok {
			if i, ok := cu.resolve(msgs); ok && (i < 0 || i > len(msgs)) {
				t.Fatalf("cursor %q resolved to %d of %d messages", raw, i, len(msgs))
			}
		}
		n := min(int(k), len(msgs))
		if n == 0 {
			return
		}
		c := anchorCursor(msgs[len(msgs)-n:])
		cu, ok := parseCursor(c)
		if !ok {
			t.Fatalf("own cursor %q refused", c)
		}
		if i, ok := cu.resolve(msgs); !ok || i != len(msgs)-n {
			t.Fatalf("cursor %q of the last %d of %d messages resolved to %d, %v", c, n, len(msgs), i, ok)
		}
	})
}

// FuzzBoardFilter: any board query is refused or read as a filter that
// the board's own links (boardQuery) carry unchanged.
func FuzzBoardFilter(f *testing.F) {
	f.Add("agent=claude&project=paddock&live=1&q=fix+the+build")
	f.Add("agent=emacs")
	f.Add("q=%ff%fe&live=0")
	f.Add("project=" + strings.Repeat("p", 300))
	f.Add("q=++spaced++&agent=&live=")
	s := &Server{opts: Options{Agents: registry.Default()}}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		got, err := s.boardFilter(q)
		if err != nil {
			return
		}
		back, err := url.ParseQuery(boardQuery(got, ""))
		if err != nil {
			t.Fatalf("boardQuery(%+v) does not parse: %v", got, err)
		}
		again, err := s.boardFilter(back)
		if err != nil || again != got {
			t.Fatalf("filter %+v came back as %+v (%v)", got, again, err)
		}
	})
}

// FuzzHandoffDetail: a hand-off's audit detail reads back as the two
// sessions it names, and any other text is refused or names valid keys.
func FuzzHandoffDetail(f *testing.F) {
	f.Add("claude", "0b5d4c2e-1111-4a2b-9c3d-aaaaaaaaaaaa", "codex", "01a22933-9fa0-7061-a419-c6368c8164b9", "source=a:b target=c:d")
	f.Add("x y", "id", "pi", "..", "source= target=")
	f.Fuzz(func(t *testing.T, srcRT, srcID, tgtRT, tgtID, other string) {
		if src, tgt, ok := parseHandoffDetail(other); ok {
			for _, k := range []session.Key{src, tgt} {
				if !validToken(k.Runtime, 32) || !validToken(k.ID, 200) {
					t.Fatalf("%q read as key %+v", other, k)
				}
			}
		}
		src, tgt := session.Key{Runtime: srcRT, ID: srcID}, session.Key{Runtime: tgtRT, ID: tgtID}
		if !validToken(srcRT, 32) || !validToken(srcID, 200) || !validToken(tgtRT, 32) || !validToken(tgtID, 200) {
			return
		}
		s2, t2, ok := parseHandoffDetail(handoffDetail(src, tgt))
		if !ok || s2 != src || t2 != tgt {
			t.Fatalf("detail of %v → %v read back as %v → %v (%v)", src, tgt, s2, t2, ok)
		}
	})
}

// TestRandomAPIRequests sends the API and page routes that read input
// (path parameters, query values, JSON bodies) a few hundred requests
// made at random from their real values, damaged ones and hostile ones,
// with a valid API token: each is answered without a server error, and
// every JSON answer is JSON. Seeded and random rather than a fuzz target:
// each request runs the real server, store and scanner, whose background
// work makes coverage vary from run to run.
func TestRandomAPIRequests(t *testing.T) {
	r := newRig(t)
	tok, _, err := r.auth.CreateToken(t.Context(), "fuzz")
	if err != nil {
		t.Fatal(err)
	}
	h := r.srv.Handler()
	rng := rand.New(rand.NewPCG(16, 8))
	one := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	ids := []string{sessionA, sessionB, "..", "%2e%2e", "x%00y", strings.Repeat("a", 300), "%ff", "a/b", ""}
	runtimes := []string{"claude", "codex", "emacs", "..", "CLAUDE", "%00"}
	values := []string{"", "0", "-1", "1", "80", "1000000000000000000000", "t3-9f3c2a1b", "t1-0-zz", "NaN", "%ff", "a%00b", strings.Repeat("x", 5000), "true", "1e9"}
	params := []string{"limit", "cursor", "before", "after", "at", "q", "runtime", "project", "agent", "live", "state", "format", "tools", "session_id", "category", "all", "n"}
	bodies := []string{`{}`, `null`, `[]`, `{"text":"hi"}`, `{"runtime":"claude","workdir":"/tmp","prompt":"x"}`, `{"endpoint":"https://push.example/x","keys":{"p256dh":"a","auth":"b"}}`,
		`{"decision":"allow"}`, `{"verb":"answer","answers":{"q":"a"}}`, `{"source":"claude:` + sessionA + `","target":"codex:x","wait":true}`,
		`{"keys":["Enter","C-c","../../x"]}`, `{"text":` + strings.Repeat("[", 10000) + `}`, `{"a":1}{"b":2}`, "\xff\xfe", `{"text":"x","unknown":1}`}
	routes := []struct{ method, path string }{
		{"GET", "/api/v1/sessions"}, {"GET", "/api/v1/sessions/{rt}/{id}"}, {"GET", "/api/v1/sessions/{rt}/{id}/messages"},
		{"GET", "/api/v1/sessions/{rt}/{id}/events"}, {"GET", "/api/v1/sessions/{rt}/{id}/export"}, {"GET", "/api/v1/sessions/{rt}/{id}/images/{n}"},
		{"GET", "/api/v1/sessions/{rt}/{id}/agents/{id}/messages"}, {"GET", "/api/v1/sessions/{rt}/{id}/screen"}, {"GET", "/api/v1/search"},
		{"GET", "/api/v1/audit"}, {"GET", "/api/v1/approvals"}, {"GET", "/api/v1/questions"}, {"GET", "/board/more"},
		{"GET", "/s/{rt}/{id}"}, {"GET", "/s/{rt}/{id}/messages"}, {"GET", "/s/{rt}/{id}/activity"}, {"GET", "/s/{rt}/{id}/agents/{id}"},
		{"GET", "/search"}, {"GET", "/new"}, {"POST", "/api/v1/sessions"}, {"POST", "/api/v1/sessions/{rt}/{id}/message"},
		{"POST", "/api/v1/sessions/{rt}/{id}/keys"}, {"POST", "/api/v1/approvals/{id}"}, {"POST", "/api/v1/questions/{id}"},
		{"POST", "/api/v1/handoff"}, {"POST", "/api/v1/push/subscriptions"},
	}
	codes := map[int]int{}
	for i := range 400 {
		rt := routes[rng.IntN(len(routes))]
		path := strings.NewReplacer("{rt}", one(runtimes...), "{id}", one(ids...), "{n}", one(values...)).Replace(rt.path)
		q := url.Values{}
		for range rng.IntN(4) {
			q.Set(one(params...), one(values...))
		}
		target := path
		if len(q) > 0 {
			target += "?" + q.Encode()
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			continue // not a request a client can send
		}
		opts := []reqOpt{withHeader("Authorization", "Bearer "+tok)}
		if rt.method == "POST" {
			body := one(bodies...)
			if rng.IntN(4) == 0 {
				body = body[:rng.IntN(len(body)+1)]
			}
			opts = append(opts, withHeader("Content-Type", "application/json"), func(q *http.Request) {
				q.Body, q.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
			})
		}
		w := r.do(h, rt.method, target, opts...)
		codes[w.Code]++
		if w.Code >= 500 && w.Code != http.StatusNotImplemented && w.Code != http.StatusServiceUnavailable {
			t.Errorf("case %d: %s %s: %d %s", i, rt.method, target, w.Code, w.Body.String())
		}
		if strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") && !json.Valid(w.Body.Bytes()) {
			t.Errorf("case %d: %s %s: invalid JSON %q", i, rt.method, target, w.Body.String())
		}
	}
	t.Logf("answers by status: %v", codes)
	if codes[http.StatusOK] == 0 || codes[http.StatusBadRequest]+codes[http.StatusNotFound] == 0 {
		t.Errorf("the requests test only one way: %v", codes)
	}
}
