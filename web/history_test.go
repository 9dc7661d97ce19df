package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

func TestEventsAndDeleteAPI(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	w := r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/events", withCookie(tok))
	var ev struct {
		Events []struct{ Kind, Role, Text string }
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &ev) != nil || len(ev.Events) != 4 ||
		ev.Events[0].Kind != "message" || ev.Events[0].Text != "first question about the build" {
		t.Fatalf("events %d %s", w.Code, w.Body)
	}
	file := filepath.Join(r.claudeDir, "projects", "-work-demo-project", sessionA+".jsonl")
	// Without the CSRF header a cookie session deletes nothing.
	if w := r.do(h, http.MethodDelete, "/api/v1/sessions/claude/"+sessionA, withCookie(tok)); w.Code != http.StatusForbidden {
		t.Fatalf("delete without CSRF: %d", w.Code)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatal("the transcript went without a valid request")
	}
	w = r.do(h, http.MethodDelete, "/api/v1/sessions/claude/"+sessionA, withCookie(tok), withHeader(csrfHeader, r.csrf(tok)))
	if w.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", w.Code, w.Body)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the transcript is still there: %v", err)
	}
	if w := r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionA, withCookie(tok)); w.Code != http.StatusNotFound {
		t.Fatalf("the deleted session answers %d", w.Code)
	}
	w = r.do(h, http.MethodGet, "/audit", withCookie(tok))
	if !strings.Contains(w.Body.String(), "session.delete") || !strings.Contains(w.Body.String(), "claude:"+sessionA) {
		t.Fatalf("audit:\n%s", w.Body)
	}
}

// Delete follows the page's rule (ended): refused while the hooks say the
// agent is at work even though no process holds the transcript, allowed
// once they report the end.
func TestDeleteWaitsForTheHooksEnd(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	ctx := context.Background()
	k := session.Key{Runtime: "claude", ID: sessionA}
	del := func() int {
		return r.do(h, http.MethodDelete, "/api/v1/sessions/claude/"+sessionA, withCookie(tok), withHeader(csrfHeader, r.csrf(tok))).Code
	}
	r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt,
		Prompt: "go on", Cwd: projectPath, Relay: relay()})
	waitCard(t, r.live, k, func(c live.Card) bool { return !c.State.Over() })
	if code := del(); code != http.StatusConflict {
		t.Fatalf("delete while the hooks say running: %d, want 409", code)
	}
	file := filepath.Join(r.claudeDir, "projects", "-work-demo-project", sessionA+".jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Fatal("the transcript went while its session ran")
	}
	r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "SessionEnd", Kind: hookstate.KindSessionEnd,
		Cwd: projectPath, Relay: relay()})
	waitCard(t, r.live, k, func(c live.Card) bool { return c.State.Over() })
	if code := del(); code != http.StatusNoContent {
		t.Fatalf("delete after SessionEnd: %d, want 204", code)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Fatalf("the transcript is still there: %v", err)
	}
}
