package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"paddock/internal/search"
	"paddock/views"
	"strings"
	"testing"
)

// TestSearch: GET /api/v1/search finds words inside conversations, not
// only titles, with the match marked and a link that opens the session
// on that message; the search page shows the same hits grouped by
// session; bad parameters are refused with the reason.
func TestSearch(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	writeClaudeSession(t, r.claudeDir, sessionB, "how do we rotate the kiwi credentials", "Rotate them with the vault CLI", "and the staging ones?", "The same way, on staging")
	type hit struct {
		Runtime, ID, Role, URL string
		Seq                    int
		Snippet                []struct {
			Text  string
			Match bool
		}
	}
	var out struct {
		Hits  []hit
		Index struct{ Ready bool }
	}
	get := func(q url.Values) int {
		w := r.do(h, http.MethodGet, "/api/v1/search?"+q.Encode(), withCookie(tok))
		out.Hits = nil
		if w.Code == http.StatusOK {
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
		}
		return w.Code
	}
	waitFor(t, func() bool { return get(url.Values{"q": {"vault"}}) == http.StatusOK && len(out.Hits) == 1 })
	got := out.Hits[0]
	if got.ID != sessionB || got.Runtime != "claude" || got.Seq != 1 || got.Role != "assistant" ||
		got.URL != "/s/claude/"+sessionB+"?at=1#m-1" || !out.Index.Ready {
		t.Errorf("hit %+v (index ready %v)", got, out.Index.Ready)
	}
	var marked []string
	for _, p := range got.Snippet {
		if p.Match {
			marked = append(marked, p.Text)
		}
	}
	if strings.Join(marked, ",") != "vault" {
		t.Errorf("snippet %+v", got.Snippet)
	}
	for _, tc := range []struct {
		q    url.Values
		hits int
	}{
		{url.Values{"q": {"staging"}}, 2},
		{url.Values{"q": {`"staging ones"`}}, 1},
		{url.Values{"q": {"staging"}, "runtime": {"codex"}}, 0},
		{url.Values{"q": {"staging"}, "runtime": {"claude"}, "session_id": {sessionA}}, 0},
		{url.Values{"q": {"staging"}, "since": {"2999-01-01"}}, 0},
		{url.Values{"q": {"staging"}, "until": {"2999-01-01T00:00:00Z"}}, 2},
		{url.Values{"q": {"staging"}, "live": {"1"}}, 0},
		{url.Values{"q": {"staging AND (NOT"}}, 0},
	} {
		if code := get(tc.q); code != http.StatusOK || len(out.Hits) != tc.hits {
			t.Errorf("%v: %d, %d hits; want %d", tc.q, code, len(out.Hits), tc.hits)
		}
	}
	for _, tc := range []struct {
		q    url.Values
		code string
	}{
		{url.Values{"q": {"  "}}, "empty_query"},
		{url.Values{"q": {"x"}, "since": {"yesterday"}}, "bad_since"},
		{url.Values{"q": {"x"}, "limit": {"0"}}, "bad_limit"},
		{url.Values{"q": {"x"}, "session_id": {sessionA}}, "bad_session"},
	} {
		w := r.do(h, http.MethodGet, "/api/v1/search?"+tc.q.Encode(), withCookie(tok))
		if w.Code != http.StatusBadRequest || decodeError(t, w.Body.Bytes()) != tc.code {
			t.Errorf("%v: %d %s, want 400 %s", tc.q, w.Code, w.Body, tc.code)
		}
	}
	if w := r.do(h, http.MethodGet, "/api/v1/search?q=vault"); w.Code == http.StatusOK {
		t.Error("search answers without a device session")
	}

	// The page: grouped by session, the match marked, linked to the message.
	w := r.do(h, http.MethodGet, "/search?q=staging", withCookie(tok))
	page := w.Body.String()
	for _, want := range []string{`data-testid="search-group"`, `<mark>staging</mark>`, `href="/s/claude/` + sessionB + `?at=2#m-2"`} {
		if w.Code != http.StatusOK || !strings.Contains(page, want) {
			t.Errorf("search page lacks %q: %d %s", want, w.Code, page)
		}
	}
	if n := strings.Count(page, `data-testid="search-group"`); n != 1 {
		t.Errorf("%d groups, want the one session", n)
	}
	if w := r.do(h, http.MethodGet, "/search?q=%20", withCookie(tok)); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "Type a word to search for.") {
		t.Errorf("empty query: %d", w.Code)
	}

	// The hit's link opens the session on that message.
	w = r.do(h, http.MethodGet, "/s/claude/"+sessionB+"?at=2", withCookie(tok))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `id="m-2"`) {
		t.Errorf("session at a message: %d", w.Code)
	}
	if w := r.do(h, http.MethodGet, "/s/claude/"+sessionB+"?at=-1", withCookie(tok)); w.Code != http.StatusBadRequest {
		t.Errorf("at=-1: %d, want 400", w.Code)
	}
}

// TestBoardSaysTheIndexIsBuilding: while the first build runs, the board
// says how far it is, beside the search link; once done, nothing.
func TestBoardSaysTheIndexIsBuilding(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	waitFor(t, func() bool { return r.index.Progress().Ready })
	if w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok)); !strings.Contains(w.Body.String(), `data-testid="search-link"`) ||
		strings.Contains(w.Body.String(), `data-testid="indexing"`) {
		t.Errorf("a ready index: %s", w.Body)
	}
	note := indexingNote(search.Progress{Indexed: 3, Total: 10})
	if note != "(indexing: 3 of 10 sessions)" {
		t.Errorf("building: %q", note)
	}
	var b strings.Builder
	if err := views.BoardPage(views.Page{}, views.Board{Loaded: true, Indexing: note}).Render(context.Background(), &b); err != nil ||
		!strings.Contains(b.String(), `<span class="hint" data-testid="indexing">(indexing: 3 of 10 sessions)</span>`) {
		t.Errorf("the board does not show the build (%v): %s", err, b.String())
	}
}

// TestTaskSearch: a category without words lists that kind of session,
// newest first; with words it narrows the hits to them; an unknown one
// is refused.
func TestTaskSearch(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	writeClaudeSession(t, r.claudeDir, sessionB, "please review PR #305 for the kiwi team", "Reviewed: two comments")
	var out struct {
		Sessions []struct {
			ID, URL string
			Live    bool
		}
		Total int
		Hits  []struct{ ID string }
	}
	get := func(q string) int {
		out.Sessions, out.Hits = nil, nil
		w := r.do(h, http.MethodGet, "/api/v1/search?"+q, withCookie(tok))
		if w.Code == http.StatusOK {
			if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
				t.Fatal(err)
			}
		}
		return w.Code
	}
	waitFor(t, func() bool { return get("category=github") == http.StatusOK && len(out.Sessions) == 1 })
	if out.Sessions[0].ID != sessionB || out.Sessions[0].URL != "/s/claude/"+sessionB || out.Total != 1 {
		t.Errorf("github: %+v", out)
	}
	if get("category=all&limit=1") != http.StatusOK || len(out.Sessions) != 1 || out.Total != 2 {
		t.Errorf("all, limit 1: %+v", out)
	}
	if get("category=live") != http.StatusOK || len(out.Sessions) != 0 {
		t.Errorf("live: %+v", out)
	}
	waitFor(t, func() bool { return get("q=comments&category=github") == http.StatusOK && len(out.Hits) == 1 })
	if get("q=answer&category=github") != http.StatusOK || len(out.Hits) != 0 {
		t.Errorf("words in another kind of session: %+v", out.Hits)
	}
	w := r.do(h, http.MethodGet, "/api/v1/search?category=gateway", withCookie(tok))
	if w.Code != http.StatusBadRequest || decodeError(t, w.Body.Bytes()) != "bad_category" {
		t.Errorf("gateway: %d %s", w.Code, w.Body)
	}
	page := r.do(h, http.MethodGet, "/search?category=github", withCookie(tok)).Body.String()
	if !strings.Contains(page, `data-testid="search-session"`) || !strings.Contains(page, "/s/claude/"+sessionB) || strings.Contains(page, "/s/claude/"+sessionA+`"`) {
		t.Errorf("the page's github sessions: %s", page)
	}
}

// TestBoardSearchBoxFindsConversations: the board's search box also finds
// a session whose words are only inside its conversation, and that card
// shows the matching line, linked to its message; a card whose own lines
// match shows none; the agent filter still applies.
func TestBoardSearchBoxFindsConversations(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	writeClaudeSession(t, r.claudeDir, sessionB, "rotate the credentials", "Rotate them with the vault CLI, then restart")
	waitFor(t, func() bool {
		hits, err := r.index.Search(context.Background(), search.Query{Text: "vault"})
		return err == nil && len(hits) == 1
	})
	page := r.do(h, http.MethodGet, "/?q=vault", withCookie(tok)).Body.String()
	if n := strings.Count(page, `data-testid="card"`); n != 1 || !strings.Contains(page, `data-key="claude:`+sessionB+`"`) {
		t.Fatalf("board searched for a word of the answer shows %d cards: %s", n, page)
	}
	for _, want := range []string{`data-testid="card-found"`, `<mark>vault</mark>`, `href="/s/claude/` + sessionB + `?at=1#m-1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the found card lacks %q", want)
		}
	}
	// Found by its own first prompt: no conversation line needed.
	page = r.do(h, http.MethodGet, "/?q=credentials", withCookie(tok)).Body.String()
	if !strings.Contains(page, `data-key="claude:`+sessionB+`"`) || strings.Contains(page, `data-testid="card-found"`) {
		t.Errorf("a card matching by its prompt: %s", page)
	}
	page = r.do(h, http.MethodGet, "/?q=vault&agent=codex", withCookie(tok)).Body.String()
	if strings.Contains(page, `data-testid="card"`) {
		t.Errorf("the agent filter let a Claude session through")
	}
}
