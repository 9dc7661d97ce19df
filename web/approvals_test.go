package web

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/decisions"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// openItem puts an approval in the rig's broker, as a held hook would.
func (r *rig) openItem(it decisions.Item) (decisions.Item, <-chan decisions.Outcome) {
	r.t.Helper()
	if it.Key.ID == "" {
		it.Key = session.Key{Runtime: "claude", ID: sessionA}
	}
	if it.Expires.IsZero() {
		it.Expires = time.Now().Add(time.Minute)
	}
	got, out, err := r.items.Open(r.t.Context(), it)
	if err != nil {
		r.t.Fatal(err)
	}
	return got, out
}

func TestApprovalsAPI(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	bash, out := r.openItem(decisions.Item{Kind: decisions.KindApproval, Tool: "Bash", Input: json.RawMessage(`{"command":"rm -rf build"}`),
		Suggestions: json.RawMessage(`[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"rm -rf build"}],"behavior":"allow","destination":"localSettings"}]`),
		Can:         []string{decisions.VerbAllow, decisions.VerbDeny, decisions.VerbAlways}})
	q, _ := r.openItem(decisions.Item{Kind: decisions.KindQuestion, Tool: "AskUserQuestion", Input: json.RawMessage(`{}`),
		Questions: []decisions.Question{{Question: "Which color?", Options: []decisions.Option{{Label: "Red"}, {Label: "Blue"}}}},
		Can:       []string{decisions.VerbAnswer, decisions.VerbDeny}})

	w := r.do(h, http.MethodGet, "/api/v1/approvals", withCookie(tok))
	var list struct{ Approvals []itemJSON }
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &list) != nil || len(list.Approvals) != 1 || list.Approvals[0].ID != bash.ID {
		t.Fatalf("approvals %d %s", w.Code, w.Body)
	}
	if s := list.Approvals[0].Scope; !strings.Contains(s, "Bash(rm -rf build) in this project") {
		t.Fatalf("always scope %q", s)
	}
	w = r.do(h, http.MethodGet, "/api/v1/questions", withCookie(tok))
	if !strings.Contains(w.Body.String(), q.ID) || strings.Contains(w.Body.String(), bash.ID) {
		t.Fatalf("questions %s", w.Body)
	}

	post := func(path, body string, opts ...reqOpt) (int, string) {
		opts = append(opts, withCookie(tok), withHeader("Content-Type", "application/json"), withHeader(csrfHeader, r.csrf(tok)))
		w := httptestBody(r, h, path, body, opts...)
		return w.Code, w.Body.String()
	}
	// Bad input: a clear 400, nothing decided.
	for _, body := range []string{`{"decision":"maybe"}`, `{"decision":"answer","answers":{"Which color?":"Red"}}`, `{"decision":"allow","extra":1}`} {
		if code, b := post("/api/v1/approvals/"+bash.ID, body); code != http.StatusBadRequest {
			t.Fatalf("%s: %d %s", body, code, b)
		}
	}
	if code, _ := post("/api/v1/approvals/itm_nope", `{"decision":"allow"}`); code != http.StatusNotFound {
		t.Fatalf("unknown item: %d", code)
	}
	// Without the CSRF header a cookie session decides nothing.
	if w := httptestBody(r, h, "/api/v1/approvals/"+bash.ID, `{"decision":"allow"}`, withCookie(tok), withHeader("Content-Type", "application/json")); w.Code != http.StatusForbidden {
		t.Fatalf("no CSRF: %d", w.Code)
	}
	// Two devices at once: exactly one wins, the other is told.
	var wg sync.WaitGroup
	codes := make([]int, 8)
	for i := range codes {
		wg.Go(func() { codes[i], _ = post("/api/v1/approvals/"+bash.ID, `{"decision":"always"}`) })
	}
	wg.Wait()
	ok, conflict := 0, 0
	for _, c := range codes {
		switch c {
		case http.StatusOK:
			ok++
		case http.StatusConflict:
			conflict++
		}
	}
	if ok != 1 || conflict != len(codes)-1 {
		t.Fatalf("codes %v: want one 200 and the rest 409", codes)
	}
	if o := <-out; o.Item.Resolution != decisions.Always || !strings.HasPrefix(o.Item.ResolvedBy, "device:") {
		t.Fatalf("outcome %+v", o.Item)
	}
	// The question: answered by text.
	if code, b := post("/api/v1/questions/"+q.ID, `{"answers":{"Which color?":"Blue"}}`); code != http.StatusOK || !strings.Contains(b, `"answered"`) {
		t.Fatalf("answer: %d %s", code, b)
	}
}

func httptestBody(r *rig, h http.Handler, path, body string, opts ...reqOpt) *httptest.ResponseRecorder {
	r.t.Helper()
	opts = append([]reqOpt{func(q *http.Request) {
		q.Body = io.NopCloser(strings.NewReader(body))
		q.ContentLength = int64(len(body))
	}}, opts...)
	return r.do(h, http.MethodPost, path, opts...)
}

// TestApprovalCardFromThePage: the card's buttons post a form; the card
// comes back resolved, and a second tap is told "already answered" — never
// a spinner.
func TestApprovalCardFromThePage(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	it, _ := r.openItem(decisions.Item{Kind: decisions.KindApproval, Tool: "Bash", Input: json.RawMessage(`{"command":"make deploy"}`),
		Can: []string{decisions.VerbAllow, decisions.VerbDeny}})

	w := r.do(h, http.MethodGet, "/", withCookie(tok))
	if !strings.Contains(w.Body.String(), `data-item="`+it.ID+`"`) || !strings.Contains(w.Body.String(), "make deploy") {
		t.Fatalf("board without the card:\n%s", w.Body)
	}
	w = r.do(h, http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
	if !strings.Contains(w.Body.String(), `data-item="`+it.ID+`"`) {
		t.Fatal("session page without the card")
	}
	form := url.Values{"verb": {"deny"}, "message": {"use staging"}}
	w = r.do(h, http.MethodPost, "/approvals/"+it.ID, withCookie(tok), withHeader(csrfHeader, r.csrf(tok)), withForm(form))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Denied") {
		t.Fatalf("deny from the page: %d %s", w.Code, w.Body)
	}
	w = r.do(h, http.MethodPost, "/approvals/"+it.ID, withCookie(tok), withHeader(csrfHeader, r.csrf(tok)), withForm(url.Values{"verb": {"allow"}}))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "already answered") || !strings.Contains(w.Body.String(), "Denied") {
		t.Fatalf("a second tap: %d %s", w.Code, w.Body)
	}
	if got, _ := r.items.Get(it.ID); got.Message != "use staging" {
		t.Fatalf("message %q", got.Message)
	}
	// The audit log names the decision and the device that made it.
	w = r.do(h, http.MethodGet, "/audit", withCookie(tok))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "approval.denied") || !strings.Contains(w.Body.String(), it.ID) ||
		!strings.Contains(w.Body.String(), "(device:") {
		t.Fatalf("audit page %d:\n%s", w.Code, w.Body)
	}
	if w := r.do(h, http.MethodGet, "/audit"); w.Code == http.StatusOK {
		t.Fatal("the audit log without a device session")
	}
}

// TestPendingViewsKeepsWaitingAndFewAnswered: every waiting item shows,
// beside only the newest maxResolvedShown answered ones, and only for
// showResolved after their answer.
func TestPendingViewsKeepsWaitingAndFewAnswered(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	b := decisions.New(decisions.Options{Now: clock})
	s := &Server{opts: Options{Agents: registry.Default(), Approvals: b, Now: clock}}
	key := session.Key{Runtime: "claude", ID: sessionA}
	open := func() decisions.Item {
		it, _, err := b.Open(t.Context(), decisions.Item{Kind: decisions.KindApproval, Key: key, Tool: "Bash",
			Input: json.RawMessage(`{"command":"ls"}`), Can: []string{decisions.VerbAllow, decisions.VerbDeny}, Expires: now.Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return it
	}
	waiting := open() // the oldest: a cap on answered cards must not push it out
	var answered []string
	for range maxResolvedShown + 2 {
		it := open()
		if _, err := b.Decide(t.Context(), it.ID, decisions.Decision{Verb: decisions.VerbDeny, By: "device:d1"}); err != nil {
			t.Fatal(err)
		}
		answered = append(answered, it.ID)
	}
	tests := []struct {
		name  string
		after time.Duration
		want  []string
	}{
		{"just answered", 0, append([]string{waiting.ID}, answered[len(answered)-maxResolvedShown:]...)},
		{"at the end of showResolved", showResolved, append([]string{waiting.ID}, answered[len(answered)-maxResolvedShown:]...)},
		{"after showResolved", time.Second, []string{waiting.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			now = now.Add(tc.after)
			mu.Unlock()
			var got []string
			for _, v := range s.pendingViews(key) {
				got = append(got, v.ID)
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Fatalf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

// TestSessionPageShowsAPromptOnce: while a card waits to be answered, the
// session's dialog line (the same prompt, as the hooks saw it) is not
// shown beside it; without a card, or once it is answered, it is.
func TestSessionPageShowsAPromptOnce(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	a := session.Key{Runtime: "claude", ID: sessionA}
	r.live.HookEvent(t.Context(), hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "PermissionRequest", Kind: hookstate.KindPermission,
		ToolName: "Bash", ToolUseID: "t1", ToolSummary: "rm -rf build", Cwd: projectPath, Relay: relay()})
	waitCard(t, r.live, a, func(c live.Card) bool { return c.Dialog != nil })
	var it decisions.Item
	tests := []struct {
		name          string
		do            func()
		cards, dialog int
	}{
		{"dialog only", func() {}, 0, 1},
		{"a card waits", func() {
			it, _ = r.openItem(decisions.Item{Kind: decisions.KindApproval, Tool: "Bash", ToolUseID: "t1",
				Input: json.RawMessage(`{"command":"rm -rf build"}`), Can: []string{decisions.VerbAllow, decisions.VerbDeny}})
		}, 1, 0},
		{"the card answered", func() {
			if _, err := r.items.Decide(t.Context(), it.ID, decisions.Decision{Verb: decisions.VerbDeny, By: "device:d1"}); err != nil {
				t.Fatal(err)
			}
		}, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.do()
			w := r.do(h, http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
			doc := parseHTML(t, w.Body.String())
			head := doc.Find("#session-head")
			if cards, dialog := head.Find(`[data-testid="approval"]`).Length(), head.Find(`[data-testid="dialog"]`).Length(); w.Code != http.StatusOK ||
				cards != tc.cards || dialog != tc.dialog {
				t.Fatalf("%d: %d cards, %d dialog lines; want %d, %d", w.Code, cards, dialog, tc.cards, tc.dialog)
			}
		})
	}
}
