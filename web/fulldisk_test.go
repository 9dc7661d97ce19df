package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"paddock/internal/decisions"
	"paddock/internal/testkit/fulldisk"
)

// On a full disk the phone's answer is refused with a 503 whose message
// says why, that nothing reached the agent and what to do — as the API's
// JSON and as the page's fragment (the flash shows it) — health says
// degraded and the board has a banner; both clear once a write succeeds.
func TestDecisionOnAFullDisk(t *testing.T) {
	disk := fulldisk.Mount(t, 32<<20)
	r := newRigIn(t, disk)
	tok := r.pair()
	h := r.srv.Handler()
	it, out := r.openItem(decisions.Item{Kind: decisions.KindApproval, Tool: "Bash", Input: json.RawMessage(`{"command":"make deploy"}`),
		Can: []string{decisions.VerbAllow, decisions.VerbDeny}})
	free := fulldisk.Fill(t, disk)

	w := r.do(h, http.MethodPost, "/approvals/"+it.ID, withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
		withHeader("HX-Request", "true"), withForm(url.Values{"verb": {"allow"}}))
	const said = "paddock could not save this answer: the disk holding paddock&#39;s data is full. Nothing was sent: the agent still waits. Free some disk space"
	if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), said) || !strings.Contains(w.Body.String(), `data-error-status="503"`) {
		t.Fatalf("allow from the page on a full disk: %d\n%s", w.Code, w.Body)
	}
	w = httptestBody(r, h, "/api/v1/approvals/"+it.ID, `{"decision":"deny"}`, withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
		withHeader("Content-Type", "application/json"))
	if w.Code != http.StatusServiceUnavailable || decodeError(t, w.Body.Bytes()) != "not_recorded" {
		t.Fatalf("deny through the API on a full disk: %d %s", w.Code, w.Body)
	}
	select {
	case o := <-out:
		t.Fatalf("the hook heard %s", o.Item.Resolution)
	default:
	}
	health := func() map[string]any {
		var got map[string]any
		if err := json.Unmarshal(r.do(h, http.MethodGet, "/api/v1/health").Body.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := health(); got["status"] != "degraded" || got["reason"] != "paddock cannot save: the disk holding paddock's data is full" {
		t.Fatalf("health on a full disk: %v", got)
	}
	if w := r.do(h, http.MethodGet, "/", withCookie(tok)); !strings.Contains(w.Body.String(), `data-testid="store-banner"`) {
		t.Fatalf("the board has no banner on a full disk:\n%s", w.Body)
	}

	free()
	if err := r.store.Probe(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := health(); got["status"] != "ok" || got["reason"] != nil {
		t.Fatalf("health once there is room: %v", got)
	}
	if w := r.do(h, http.MethodGet, "/", withCookie(tok)); strings.Contains(w.Body.String(), `data-testid="store-banner"`) {
		t.Fatal("the banner stays once there is room")
	}
	w = r.do(h, http.MethodPost, "/approvals/"+it.ID, withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
		withHeader("HX-Request", "true"), withForm(url.Values{"verb": {"allow"}}))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Approved") {
		t.Fatalf("allow once there is room: %d\n%s", w.Code, w.Body)
	}
	if o := <-out; o.Item.Resolution != decisions.Allowed {
		t.Fatalf("the hook heard %s", o.Item.Resolution)
	}
}
