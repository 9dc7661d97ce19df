package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"paddock/internal/hosted"
	"paddock/internal/session"
)

// startingHosting starts sessions for tests: it keeps each request and
// answers with a new session that took its prompt.
type startingHosting struct {
	Hosting
	created []hosted.Request
	lost    string // when set, the prompt does not arrive, for this reason
}

func (h *startingHosting) Installed() []string { return []string{"claude", "codex"} }

func (h *startingHosting) Create(_ context.Context, r hosted.Request) (hosted.Created, error) {
	h.created = append(h.created, r)
	d := &hosted.Delivery{Delivered: h.lost == "", Reason: h.lost}
	return hosted.Created{Key: session.Key{Runtime: r.Runtime, ID: "started-1"}, TerminalID: "t1", Prompt: d}, nil
}

// TestHandoffStartsItsTarget: with start instead of a target, the
// hand-off starts a new session of the agent chosen, in the source's
// directory, with the hand-off as its first prompt; the source's card
// then says where its work went. Start and target together, or an agent
// not installed, are refused with the reason, and nothing starts.
func TestHandoffStartsItsTarget(t *testing.T) {
	r := newRig(t)
	h := &startingHosting{}
	r.srv.opts.Hosting = h
	tok := r.pair()
	post := func(body string) (int, string) {
		w := r.do(r.srv.Handler(), http.MethodPost, "/api/v1/handoff", withCookie(tok), withHeader(csrfHeader, r.csrf(tok)), withJSON(body))
		return w.Code, w.Body.String()
	}
	src := `"source":"claude:` + sessionA + `","task":"Finish the build"`
	for _, bad := range []struct{ body, code string }{
		{`{` + src + `,"start":{"runtime":"cursor"}}`, "bad_runtime"},
		{`{` + src + `,"start":{"runtime":"codex"},"target":"claude:x"}`, "bad_target"},
	} {
		if code, body := post(bad.body); code != http.StatusBadRequest || decodeError(t, []byte(body)) != bad.code {
			t.Errorf("%s: %d %s, want 400 %s", bad.body, code, body, bad.code)
		}
	}
	if len(h.created) != 0 {
		t.Fatalf("a refused hand-off started %+v", h.created)
	}
	// A target that dies before the message arrives: reported, nothing
	// claimed, nothing marked.
	h.lost = "the agent exited before its prompt arrived"
	if code, body := post(`{` + src + `,"start":{"runtime":"codex"}}`); code != http.StatusBadGateway || decodeError(t, []byte(body)) != "not_delivered" ||
		!strings.Contains(body, h.lost) {
		t.Errorf("a lost hand-off: %d %s", code, body)
	}
	h.lost, h.created = "", nil
	if page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok)).Body.String(); strings.Contains(page, `data-testid="card-handed-off"`) {
		t.Fatal("a card says it was handed off before any hand-off arrived")
	}
	code, body := post(`{` + src + `,"start":{"runtime":"codex"}}`)
	var out struct {
		Target             string
		Started, Delivered bool
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || code != http.StatusOK || !out.Started || !out.Delivered || out.Target != "codex:started-1" {
		t.Fatalf("start: %d %s", code, body)
	}
	if len(h.created) != 1 {
		t.Fatalf("created %+v", h.created)
	}
	c := h.created[0]
	if c.Runtime != "codex" || c.Workdir != projectPath || c.Parent != "claude:"+sessionA ||
		!strings.HasPrefix(c.Prompt, "## Session handoff") || !strings.Contains(c.Prompt, "first question about the build") {
		t.Errorf("started %+v", c)
	}
	page := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok)).Body.String()
	i := strings.Index(page, `data-key="claude:`+sessionA+`"`)
	if i < 0 || !strings.Contains(page[i:], `data-testid="card-handed-off">handed off to Codex</span>`) {
		t.Errorf("the source's card does not say where its work went")
	}
	// The page's sheet offers to start one of each installed agent.
	sp := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionA, withCookie(tok)).Body.String()
	for _, want := range []string{`<option value="new:claude">A new Claude session here</option>`, `<option value="new:codex">A new Codex session here</option>`} {
		if !strings.Contains(sp, want) {
			t.Errorf("the Hand off sheet lacks %s", want)
		}
	}
}
