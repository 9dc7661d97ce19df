package web

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"paddock/internal/decisions"
)

func withJSON(body string) reqOpt {
	return func(q *http.Request) {
		q.Body = io.NopCloser(strings.NewReader(body))
		q.ContentLength = int64(len(body))
		q.Header.Set("Content-Type", "application/json")
	}
}

func subscriptionJSON(t *testing.T, endpoint, prefs string) string {
	t.Helper()
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	a := make([]byte, 16)
	_, _ = rand.Read(a)
	return `{"endpoint":"` + endpoint + `","keys":{"p256dh":"` + base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes()) +
		`","auth":"` + base64.RawURLEncoding.EncodeToString(a) + `"},"prefs":` + prefs + `}`
}

// A subscription is stored only when it is a browser push service's, well
// formed, from a paired device; bad ones are 400 with the reason and
// store nothing.
func TestPushSubscriptionsChecked(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	post := func(body string) *http.Response {
		return r.do(r.srv.Handler(), http.MethodPost, "/api/v1/push/subscriptions", withCookie(tok),
			withHeader(csrfHeader, r.csrf(tok)), withJSON(body)).Result()
	}
	prefs := `{"approvals":true,"questions":true,"delay_seconds":0,"hide_details":false}`
	for name, body := range map[string]string{
		"http endpoint":  subscriptionJSON(t, "http://fcm.googleapis.com/fcm/send/x", prefs),
		"unknown host":   subscriptionJSON(t, "https://attacker.example/collect", prefs),
		"not JSON":       `endpoint=x`,
		"unknown field":  strings.Replace(subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/x", prefs), `"prefs"`, `"extra":1,"prefs"`, 1),
		"negative delay": subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/x", `{"approvals":true,"delay_seconds":-5}`),
		"bad keys":       `{"endpoint":"https://fcm.googleapis.com/fcm/send/x","keys":{"p256dh":"AA","auth":"BB"},"prefs":{}}`,
		"unknown agent":  subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/x", `{"approvals":true,"agents":["claude","hal9000"]}`),
		"half quiet":     subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/x", `{"approvals":true,"quiet_from":"22:00"}`),
		"quiet, no zone": subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/x", `{"approvals":true,"quiet_from":"22:00","quiet_to":"07:00"}`),
	} {
		if resp := post(body); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", name, resp.StatusCode)
		}
	}
	if subs, _ := r.store.PushSubscriptions(t.Context()); len(subs) != 0 {
		t.Fatalf("bad subscriptions stored: %+v", subs)
	}
	full := `{"approvals":true,"questions":false,"turns":true,"errors":true,"agents":["codex","pi"],"mute_projects":["scratch"],` +
		`"quiet_from":"22:00","quiet_to":"07:00","tz":"Europe/Paris"}`
	if resp := post(subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/good", full)); resp.StatusCode != http.StatusCreated {
		t.Fatalf("a good subscription: %d", resp.StatusCode)
	}
	// The settings page shows the device's choices back.
	page := r.do(r.srv.Handler(), http.MethodGet, "/settings", withCookie(tok)).Body.String()
	for _, want := range []string{`name="turns" checked`, `name="errors" checked`, `value="codex" checked`, `value="scratch"`, `name="quiet_from" value="22:00"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the settings page lacks %q", want)
		}
	}
	if strings.Contains(page, `value="claude" checked`) {
		t.Error("an agent the device left out is shown checked")
	}
	// Without the CSRF token: refused.
	if w := r.do(r.srv.Handler(), http.MethodPost, "/api/v1/push/subscriptions", withCookie(tok),
		withJSON(subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/other", prefs))); w.Code != http.StatusForbidden {
		t.Fatalf("without CSRF: %d", w.Code)
	}
	if subs, _ := r.store.PushSubscriptions(t.Context()); len(subs) != 1 {
		t.Fatalf("%d subscriptions, want the good one", len(subs))
	}
}

// A notification's Approve decides its item once, by its capability
// alone: replayed, used for another item, or for a revoked device it is
// 403 and decides nothing.
func TestPushActionDecidesOnce(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	dev, err := r.auth.Device(t.Context(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if w := r.do(r.srv.Handler(), http.MethodPost, "/api/v1/push/subscriptions", withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
		withJSON(subscriptionJSON(t, "https://fcm.googleapis.com/fcm/send/phone", `{"approvals":true}`))); w.Code != http.StatusCreated {
		t.Fatalf("subscribe: %d %s", w.Code, w.Body)
	}
	a, outA := r.openItem(decisions.Item{Kind: decisions.KindApproval, Tool: "Bash", Input: json.RawMessage(`{"command":"make"}`), Can: []string{"allow", "deny"}})
	b, _ := r.openItem(decisions.Item{Kind: decisions.KindApproval, Tool: "Bash", Input: json.RawMessage(`{"command":"rm"}`), Can: []string{"allow", "deny"},
		ToolUseID: "other"})
	act := func(item, device, verb, cap string) int {
		body, _ := json.Marshal(map[string]string{"item": item, "device": device, "verb": verb, "cap": cap})
		return r.do(r.srv.Handler(), http.MethodPost, "/push/act", withJSON(string(body)), withHeader("Sec-Fetch-Site", "same-origin")).Code
	}
	capA := r.push.Capability(dev.ID, a.ID)
	if code := act(b.ID, dev.ID, "allow", capA); code != http.StatusForbidden {
		t.Fatalf("A's capability used for B: %d", code)
	}
	if code := act(a.ID, "another-device", "allow", capA); code != http.StatusForbidden {
		t.Fatalf("A's capability for another device: %d", code)
	}
	if code := act(a.ID, dev.ID, "allow", capA); code != http.StatusOK {
		t.Fatalf("approve from the notification: %d", code)
	}
	if out := <-outA; out.Item.Resolution != decisions.Allowed || out.Item.ResolvedBy != "device:"+dev.ID {
		t.Fatalf("the hook got %+v", out.Item)
	}
	if code := act(a.ID, dev.ID, "deny", capA); code != http.StatusForbidden {
		t.Fatalf("replayed: %d", code)
	}
	if err := r.auth.RevokeDevice(t.Context(), dev.ID); err != nil {
		t.Fatal(err)
	}
	if code := act(b.ID, dev.ID, "allow", r.push.Capability(dev.ID, b.ID)); code != http.StatusForbidden {
		t.Fatalf("a revoked device's capability: %d", code)
	}
	if it, _ := r.items.Get(b.ID); it.Resolution != "" {
		t.Fatalf("B was decided: %+v", it)
	}
}
