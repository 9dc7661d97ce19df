package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"paddock/internal/hookstate"
	"paddock/internal/hosted"
	"paddock/internal/live"
	"paddock/internal/session"
)

// sendingHosting takes what the session page sends, for tests.
type sendingHosting struct {
	Hosting
	sent []string
}

func (h *sendingHosting) Send(_ context.Context, _ live.Card, text string) (hosted.Delivery, error) {
	h.sent = append(h.sent, text)
	return hosted.Delivery{Delivered: true}, nil
}

func TestReviewIsOneMessage(t *testing.T) {
	r := newRig(t)
	h := &sendingHosting{}
	r.srv.opts.Hosting = h
	tok := r.pair()
	k := session.Key{Runtime: "claude", ID: sessionA}
	r.live.HookEvent(context.Background(), hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt, Prompt: "go", Cwd: projectPath, Relay: relay()})
	waitCard(t, r.live, k, func(live.Card) bool { return true })
	review := func(form url.Values) (int, string) {
		w := r.do(r.srv.Handler(), http.MethodPost, "/s/claude/"+sessionA+"/review", withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
			withHeader("Accept", "application/json"), withForm(form))
		return w.Code, w.Body.String()
	}
	for _, bad := range []struct {
		form url.Values
		code string
	}{
		{url.Values{}, "empty_review"},
		{url.Values{"ref": {"a.go:1"}, "quote": {"x"}, "comment": {"  "}}, "empty_review"},
		{url.Values{"ref": {"a.go:1", "b.go"}, "quote": {"x"}, "comment": {"one"}}, "bad_review"},
		{url.Values{"ref": {"a.go:1\nb"}, "quote": {"x"}, "comment": {"one"}}, "bad_review"},
		{url.Values{"ref": {"a.go:1"}, "quote": {"two\nlines"}, "comment": {"one"}}, "bad_review"},
		{url.Values{"ref": {"a.go:1"}, "quote": {"x"}, "comment": {strings.Repeat("é", 2001)}}, "bad_review"},
	} {
		if code, body := review(bad.form); code != http.StatusBadRequest || decodeError(t, []byte(body)) != bad.code {
			t.Errorf("%v: %d %s, want 400 %s", bad.form, code, body, bad.code)
		}
	}
	if len(h.sent) != 0 {
		t.Fatalf("a refused review was sent: %q", h.sent)
	}
	// htmx gets the reason as a fragment the page shows in its flash.
	w := r.do(r.srv.Handler(), http.MethodPost, "/s/claude/"+sessionA+"/review", withCookie(tok), withHeader(csrfHeader, r.csrf(tok)),
		withHeader("HX-Request", "true"), withForm(url.Values{}))
	if w.Code != http.StatusBadRequest || !strings.HasPrefix(w.Body.String(), `<p class="error" data-error-status="400">A review needs at least one comment`) {
		t.Fatalf("htmx's refusal: %d %s", w.Code, w.Body.String())
	}
	if w := r.do(r.srv.Handler(), http.MethodPost, "/s/claude/"+sessionA+"/review", withCookie(tok),
		withForm(url.Values{"ref": {"a.go:1"}, "quote": {"x"}, "comment": {"one"}})); w.Code != http.StatusForbidden {
		t.Fatalf("a review without CSRF: %d", w.Code)
	}
	code, body := review(url.Values{
		"ref":     {"/w/cart.go:42", "/w/README.md"},
		"quote":   {"total := price * qty", "teh build"},
		"comment": {"Use a decimal here,\nnot a float.", "typo"},
	})
	if code != http.StatusOK || !strings.Contains(body, "Review sent: 2 comments.") {
		t.Fatalf("review: %d %s", code, body)
	}
	want := "Review of your changes (2 comments, from paddock):\n\n" +
		"1. /w/cart.go:42\n   > total := price * qty\n   Use a decimal here,\n   not a float.\n\n" +
		"2. /w/README.md\n   > teh build\n   typo\n\nPlease address each comment."
	if len(h.sent) != 1 || h.sent[0] != want {
		t.Fatalf("sent %q\nwant %q", h.sent, want)
	}
}

// Diff lines carry the file and line they stand for: a whole-file write
// and a numbered patch count the file's lines; a replacement, whose
// numbers would count the replaced text, gives none.
func TestDiffLinesKnowTheirPlace(t *testing.T) {
	write := diffLines("--- a/p/n.md\n+++ b/p/n.md\n@@ -0,0 +1,2 @@\n+one\n+two\n", "/p/n.md", true)
	if write[3].Line != 1 || write[4].Line != 2 || write[4].File != "/p/n.md" || write[0].Kind != "hunk" {
		t.Fatalf("a write: %+v", write)
	}
	patch := diffLines("@@ -10,3 +10,3 @@\n a\n-b\n+B\n c\n", "x.go", true)
	if patch[1].Line != 10 || patch[2].Line != 11 || patch[3].Line != 11 || patch[4].Line != 12 {
		t.Fatalf("a patch: %+v", patch)
	}
	codex := diffLines("*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch", "", true)
	if codex[3].File != "src/a.go" || codex[3].Line != 0 || codex[4].Kind != "add" {
		t.Fatalf("an apply_patch: %+v", codex)
	}
	repl := diffLines("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n", "/x", false)
	if repl[3].Line != 0 || repl[4].Line != 0 {
		t.Fatalf("a replacement's numbers: %+v", repl)
	}
}
