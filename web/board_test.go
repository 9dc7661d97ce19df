package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"paddock/internal/board"
	"paddock/views"
)

// TestBoardReachesEverySession lists a 10,000-session machine: the first
// board stays a small page, "Show more" pages on to the very oldest
// session without skipping or repeating one, and the search box finds an
// old session server-side.
func TestBoardReachesEverySession(t *testing.T) {
	const n = 10_000
	r := bigRig(t, n)
	tok := r.pair()

	w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("board: %d", w.Code)
	}
	if size := w.Body.Len(); size > 100<<10 {
		t.Errorf("the first board is %d bytes on a %d-session machine, want ≤ 100 KB", size, n)
	}
	cardKey := regexp.MustCompile(`data-testid="card" data-state="[^"]*" data-key="([^"]+)"`)
	moreURL := regexp.MustCompile(`hx-get="(/board/more\?[^"]+)"`)
	seen := map[string]bool{}
	page, pages := w.Body.String(), 1
	for {
		for _, m := range cardKey.FindAllStringSubmatch(page, -1) {
			if seen[m[1]] {
				t.Fatalf("page %d repeats %s", pages, m[1])
			}
			seen[m[1]] = true
		}
		m := moreURL.FindStringSubmatch(page)
		if m == nil {
			break
		}
		w := r.do(r.srv.Handler(), http.MethodGet, strings.ReplaceAll(m[1], "&amp;", "&"), withCookie(tok))
		if w.Code != http.StatusOK {
			t.Fatalf("page %d: %d %s", pages+1, w.Code, w.Body.String())
		}
		page, pages = w.Body.String(), pages+1
	}

	if len(seen) != n+1 {
		t.Fatalf("%d pages reached %d sessions, want all %d", pages, len(seen), n+1)
	}
	if oldest := "claude:0b5d4c2e-3333-4a2b-9c3d-" + fmt.Sprintf("%012d", n-1); !seen[oldest] {
		t.Errorf("the oldest session %s was never reached", oldest)
	}

	w = r.do(r.srv.Handler(), http.MethodGet, "/?q="+url.QueryEscape("NUMBER 09876"), withCookie(tok))
	found := cardKey.FindAllStringSubmatch(w.Body.String(), -1)
	if w.Code != http.StatusOK || len(found) != 1 || found[0][1] != "claude:0b5d4c2e-3333-4a2b-9c3d-000000009876" {
		t.Fatalf("search for an old session: %d, %v", w.Code, found)
	}
	if !strings.Contains(w.Body.String(), `value="NUMBER 09876"`) {
		t.Error("the search box does not show what was searched")
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/?q="+strings.Repeat("x", 201), withCookie(tok)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "at most 200 bytes") {
		t.Fatalf("a 201-byte search: %d %s", w.Code, w.Body.String())
	}
}

// bigRig is a rig whose Claude history holds n more sessions, one a
// minute apart, the newest a day old.
func bigRig(tb testing.TB, n int) *rig {
	r := newRig(tb)
	base := time.Now().Add(-24 * time.Hour)
	for i := range n {
		id := fmt.Sprintf("0b5d4c2e-3333-4a2b-9c3d-%012d", i)
		p := writeClaudeSession(tb, r.claudeDir, id, fmt.Sprintf("prompt number %05d of the big machine", i), "answer")
		touch(tb, p, base.Add(-time.Duration(i)*time.Minute))
	}
	r.cat.Rescan(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for len(r.board.List(board.Filter{})) != n+1 {
		if time.Now().After(deadline) {
			tb.Fatalf("the board never listed all %d sessions", n+1)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return r
}

// BenchmarkBoard10k is what the hub does at every change a viewer sees,
// on a 10,000-session machine: the board's first page (every entry merged
// and laid out, 60 cards made), then the page rendered.
func BenchmarkBoard10k(b *testing.B) {
	r := bigRig(b, 10_000)
	ctx := context.Background()
	var size int
	for b.Loop() {
		v, err := r.srv.board(boardAll, "")
		if err != nil {
			b.Fatal(err)
		}
		html, err := renderBytes(ctx, views.BoardList(v, false))
		if err != nil {
			b.Fatal(err)
		}
		size = len(html)
	}
	b.ReportMetric(float64(size), "bytes/board")
}
