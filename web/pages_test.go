package web

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func parseHTML(t *testing.T, body string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestBoardShowsSessions(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("board: %d", w.Code)
	}
	doc := parseHTML(t, w.Body.String())
	cards := doc.Find(`[data-testid="card"]`)
	if cards.Length() != 1 {
		t.Fatalf("%d cards, want 1", cards.Length())
	}
	if href, _ := cards.Find("a.card-link").Attr("href"); href != "/s/claude/"+sessionA {
		t.Fatalf("card link %q", href)
	}
	if title := strings.TrimSpace(cards.Find(".title").Text()); title != "first question about the build" {
		t.Fatalf("card title %q", title)
	}
	if p := cards.Find(".agent").Text(); p != "Claude" {
		t.Fatalf("agent %q", p)
	}
	// The filters offer what is on the board, and only that.
	if got := doc.Find(`[data-testid="filter-agent"] option[value="claude"]`).Text(); got != "Claude" {
		t.Fatalf("agent filter option %q", got)
	}
	if n := doc.Find(`[data-testid="filter-agent"] option`).Length(); n != 2 {
		t.Fatalf("%d agent filter options, want All and Claude", n)
	}
	project, _ := cards.Attr("data-project")
	if v, _ := doc.Find(`[data-testid="filter-project"] option`).Last().Attr("value"); project == "" || v != project {
		t.Fatalf("project filter option %q, card project %q", v, project)
	}
	if doc.Find(`[ws-connect]`).Length() != 1 {
		t.Fatal("board does not connect its websocket")
	}
	if v, _ := doc.Find("body").Attr("hx-headers"); !strings.Contains(v, r.csrf(tok)) {
		t.Fatalf("body hx-headers %q lacks the CSRF token", v)
	}
}

func TestSessionPage(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("session page: %d", w.Code)
	}
	doc := parseHTML(t, w.Body.String())
	msgs := doc.Find(`[data-testid="message"]`)
	if msgs.Length() != 4 {
		t.Fatalf("%d messages, want 4", msgs.Length())
	}
	roles := msgs.Map(func(_ int, s *goquery.Selection) string { r, _ := s.Attr("data-role"); return r })
	if strings.Join(roles, ",") != "user,assistant,user,assistant" {
		t.Fatalf("roles %v", roles)
	}
	if got := msgs.Eq(1).Find("strong").Text(); got != "Bold" {
		t.Fatalf("assistant Markdown not rendered: %q", got)
	}
	if msgs.Eq(2).Find("script").Length() != 0 || !strings.Contains(msgs.Eq(2).Text(), "<script>alert(1)</script>") {
		t.Fatal("user text was not escaped")
	}
	if cwd := doc.Find(`[data-testid="cwd"]`).Text(); cwd != projectPath {
		t.Fatalf("cwd %q", cwd)
	}
}

func TestSessionPageErrors(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	tests := []struct {
		path string
		want int
	}{
		{"/s/claude/00000000-0000-4000-8000-000000000000", http.StatusNotFound},
		{"/s/nosuchagent/" + sessionA, http.StatusNotFound},
		{"/s/claude/bad%20id%2F..", http.StatusBadRequest},
		{"/s/claude/" + sessionA + "/messages?before=-1", http.StatusBadRequest},
		{"/s/claude/" + sessionA + "/messages?before=x", http.StatusBadRequest},
		{"/nowhere", http.StatusNotFound},
	}
	for _, tt := range tests {
		w := r.do(r.srv.Handler(), http.MethodGet, tt.path, withCookie(tok))
		if w.Code != tt.want {
			t.Errorf("GET %s: %d, want %d", tt.path, w.Code, tt.want)
		}
		if strings.Contains(w.Body.String(), "goroutine") || strings.Contains(w.Body.String(), ".go:") {
			t.Errorf("GET %s leaks internals: %s", tt.path, w.Body.String())
		}
	}
}

func TestOlderMessagesPaging(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	turns := make([]string, 0, 130)
	for i := range 130 {
		turns = append(turns, "turn "+strings.Repeat("x", i%3)+string(rune('A'+i%26)))
	}
	writeClaudeSession(t, r.claudeDir, sessionB, turns...)
	r.cat.Rescan(t.Context())
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionB, withCookie(tok))
	doc := parseHTML(t, w.Body.String())
	if n := doc.Find(`[data-testid="message"]`).Length(); n != pageSize {
		t.Fatalf("first page has %d messages, want %d", n, pageSize)
	}
	// The cursor's form (an anchor on a page read from the tail) and the
	// seam are TestSessionPageNewestFromTheTail's.
	older, ok := doc.Find(".older").Attr("hx-get")
	if !ok {
		t.Fatal("no older link")
	}
	w = r.do(r.srv.Handler(), http.MethodGet, older, withCookie(tok))
	doc = parseHTML(t, w.Body.String())
	if n := doc.Find(`[data-testid="message"]`).Length(); n != pageSize {
		t.Fatalf("second page has %d", n)
	}
	next, _ := doc.Find(".older").Attr("hx-get")
	w = r.do(r.srv.Handler(), http.MethodGet, next, withCookie(tok))
	doc = parseHTML(t, w.Body.String())
	if n := doc.Find(`[data-testid="message"]`).Length(); n != 30 || doc.Find(".older").Length() != 0 {
		t.Fatalf("last page: %d messages, sentinel %d", n, doc.Find(".older").Length())
	}
}

func TestAPIWithBearerToken(t *testing.T) {
	r := newRig(t)
	tok, _, err := r.auth.CreateToken(t.Context(), "script")
	if err != nil {
		t.Fatal(err)
	}
	bearer := withHeader("Authorization", "Bearer "+tok)
	w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", bearer)
	if w.Code != http.StatusOK {
		t.Fatalf("list: %d %s", w.Code, w.Body.String())
	}
	var list struct {
		Loaded   bool
		Sessions []sessionJSON
	}
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if !list.Loaded || len(list.Sessions) != 1 || list.Sessions[0].ID != sessionA || list.Sessions[0].Cwd != projectPath || list.Sessions[0].Live {
		t.Fatalf("list %+v", list)
	}

	// The newest page is read from the tail (TestAPIMessagesCursor has the
	// details); its next cursor leads to the first message.
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/messages?limit=3", bearer)
	var page apiPage
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	if len(page.Messages) != 3 || page.Next == "" || page.Messages[2].Text != "second answer" {
		t.Fatalf("page %+v", page)
	}
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/messages?limit=3&before="+page.Next, bearer)
	page = apiPage{}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil {
		t.Fatal(err)
	}
	if page.Total == nil || *page.Total != 4 || len(page.Messages) != 1 || *page.Messages[0].Index != 0 || page.Next != "" ||
		page.Messages[0].Text != "first question about the build" {
		t.Fatalf("page before %+v", page)
	}

	for _, tt := range []struct {
		path string
		want int
		code string
	}{
		{"/api/v1/sessions?limit=0", 400, "bad_limit"},
		{"/api/v1/sessions?live=maybe", 400, "bad_live"},
		{"/api/v1/sessions/claude/nope", 404, "not_found"},
		{"/api/v1/sessions/claude/" + sessionA + "/messages?before=abc", 400, "bad_before"},
	} {
		w := r.do(r.srv.Handler(), http.MethodGet, tt.path, bearer)
		if w.Code != tt.want || decodeError(t, w.Body.Bytes()) != tt.code {
			t.Errorf("GET %s: %d %s", tt.path, w.Code, w.Body.String())
		}
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions", withHeader("Authorization", "Bearer pdk_wrong")); w.Code != 401 {
		t.Fatalf("wrong bearer: %d", w.Code)
	}
}

func TestHealthHasNoSecrets(t *testing.T) {
	r := newRig(t)
	w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/health")
	var h map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &h); err != nil || h["status"] != "ok" {
		t.Fatalf("health %s", w.Body.String())
	}
	for k := range h {
		if k != "status" && k != "version" && k != "loaded" && k != "uptime_s" {
			t.Errorf("health exposes %q", k)
		}
	}
}

func TestPlainHTTPServesOnlyTheCA(t *testing.T) {
	r := newRig(t)
	h := r.srv.PlainHandler()
	plain := func(q *http.Request) { q.TLS = nil; q.Host = "127.0.0.1:7080" }
	w := r.do(h, http.MethodGet, "/", plain)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), r.certs.CAFingerprint()) {
		t.Fatalf("CA page: %d", w.Code)
	}
	w = r.do(h, http.MethodGet, "/ca.crt", plain)
	if _, err := x509.ParseCertificate(w.Body.Bytes()); err != nil || w.Header().Get("Content-Type") != "application/x-x509-ca-cert" {
		t.Fatalf("DER download: %v %q", err, w.Header().Get("Content-Type"))
	}
	w = r.do(h, http.MethodGet, "/ca.mobileconfig", plain)
	if w.Header().Get("Content-Type") != "application/x-apple-aspen-config" || !strings.Contains(w.Body.String(), "com.apple.security.root") {
		t.Fatalf("profile: %q", w.Header().Get("Content-Type"))
	}
	for _, p := range []string{"/s/claude/x?y=1", "/api/v1/sessions", "/board"} {
		w = r.do(h, http.MethodGet, p, plain)
		if w.Code != http.StatusPermanentRedirect || w.Header().Get("Location") != "https://127.0.0.1:7443"+p {
			t.Errorf("GET %s: %d → %q", p, w.Code, w.Header().Get("Location"))
		}
	}
}

// Every asset a page links to is served, with a long cache lifetime, and
// the logout form carries the CSRF token.
func TestPageAssetsAndLogoutForm(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok))
	doc := parseHTML(t, w.Body.String())
	var urls []string
	doc.Find("link[href], script[src]").Each(func(_ int, s *goquery.Selection) {
		if v, ok := s.Attr("href"); ok {
			urls = append(urls, v)
		}
		if v, ok := s.Attr("src"); ok {
			urls = append(urls, v)
		}
	})
	if len(urls) < 6 {
		t.Fatalf("only %d assets linked: %v", len(urls), urls)
	}
	for _, u := range urls {
		w := r.do(r.srv.Handler(), http.MethodGet, u)
		if w.Code != http.StatusOK || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") {
			t.Errorf("GET %s: %d %q", u, w.Code, w.Header().Get("Cache-Control"))
		}
	}
	if v, _ := doc.Find(`form[action="/logout"] input[name="csrf"]`).Attr("value"); v != r.csrf(tok) {
		t.Fatalf("logout form csrf %q", v)
	}
}

// The session list comes a page at a time: each page's next_cursor leads
// to the next, the last has none, and every session is on one page.
func TestAPISessionsPages(t *testing.T) {
	r := newRig(t)
	tok, _, err := r.auth.CreateToken(t.Context(), "script")
	if err != nil {
		t.Fatal(err)
	}
	bearer := withHeader("Authorization", "Bearer "+tok)
	// Two sessions known from their hooks only, beside the one history.
	for i, id := range []string{"hooked-1", "hooked-2"} {
		rel := relay() // each in a process and terminal of its own
		rel.PID, rel.TTY = 5000+i, fmt.Sprintf("/dev/pts/%d", 10+i)
		r.live.HookEvent(t.Context(), hookstate.Event{Runtime: "claude", SessionID: id, Name: "SessionStart", Kind: hookstate.KindSessionStart, Cwd: projectPath, Relay: rel})
		waitCard(t, r.live, session.Key{Runtime: "claude", ID: id}, func(live.Card) bool { return true })
	}
	var seen []string
	cursor := ""
	for range 4 {
		w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions?limit=1&cursor="+url.QueryEscape(cursor), bearer)
		var page struct {
			Sessions []sessionJSON
			Next     string `json:"next_cursor"`
		}
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &page) != nil || len(page.Sessions) != 1 {
			t.Fatalf("page after %q: %d %s", cursor, w.Code, w.Body.String())
		}
		seen = append(seen, page.Sessions[0].ID)
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	slices.Sort(seen)
	if want := []string{sessionA, "hooked-1", "hooked-2"}; !slices.Equal(seen, slices.Sorted(slices.Values(want))) {
		t.Fatalf("pages held %v, want each of %v once", seen, want)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions?cursor=nonsense", bearer); w.Code != http.StatusBadRequest || decodeError(t, w.Body.Bytes()) != "bad_cursor" {
		t.Fatalf("bad cursor: %d %s", w.Code, w.Body.String())
	}
}
