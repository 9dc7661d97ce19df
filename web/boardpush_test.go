package web

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
	"paddock/views"
)

var boardAll = views.BoardFilter{}

// touch sets a history file's times, the session's last activity.
func touch(t testing.TB, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition never held")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestLongestIncreasingKeepsTheCardsThatNeedNotMove(t *testing.T) {
	tests := []struct {
		name     string
		old, new []string
		stay     []string
	}{
		{"unchanged", []string{"a", "b", "c"}, []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"one to the top", []string{"a", "b", "c", "d"}, []string{"d", "a", "b", "c"}, []string{"a", "b", "c"}},
		{"one down", []string{"a", "b", "c", "d"}, []string{"b", "c", "a", "d"}, []string{"b", "c", "d"}},
		{"reversed", []string{"a", "b", "c"}, []string{"c", "b", "a"}, []string{"a"}},
		{"empty", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := map[string]int{}
			for i, id := range tt.old {
				at[id] = i
			}
			got := longestIncreasing(tt.new, at)
			var ids []string
			for _, id := range tt.new {
				if got[id] {
					ids = append(ids, id)
				}
			}
			if len(ids) != len(tt.stay) {
				t.Fatalf("stay %v, want %d of them like %v", ids, len(tt.stay), tt.stay)
			}
			for i := 1; i < len(ids); i++ {
				if at[ids[i]] < at[ids[i-1]] {
					t.Fatalf("stay %v is not in the old order", ids)
				}
			}
		})
	}
}

// The board pages: the first page holds boardPageSize cards and a "Show
// more" link that pages through the rest; and a change sends only what
// changed — a session from the second page that becomes active moves to
// the top as one card, and the card it pushed off the first page goes.
func TestBoardPagesAndPushesOnlyChangedCards(t *testing.T) {
	r := newRig(t)
	base := time.Now().Add(-48 * time.Hour)
	var ids []string
	for i := range 70 {
		id := fmt.Sprintf("0b5d4c2e-2222-4a2b-9c3d-%012d", i)
		ids = append(ids, id)
		p := writeClaudeSession(t, r.claudeDir, id, fmt.Sprintf("prompt of session %d", i), "answer")
		// Older sessions further down: session 0 newest.
		touch(t, p, base.Add(-time.Duration(i)*time.Minute))
	}
	ts := r.tlsServer()
	tok := r.pair()
	waitFor(t, func() bool {
		b, _ := r.srv.board(boardAll, "")
		return len(b.Cards) == boardPageSize && b.More.URL != ""
	})

	w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok))
	page := w.Body.String()
	if n := strings.Count(page, `data-testid="card"`); n != boardPageSize {
		t.Fatalf("first page: %d cards, want %d", n, boardPageSize)
	}
	more := regexp.MustCompile(`hx-get="(/board/more\?[^"]+)"`).FindStringSubmatch(page)
	if more == nil || !strings.Contains(page, "Show more (11)") {
		t.Fatalf("no Show more (11) link on the first page")
	}
	w = r.do(r.srv.Handler(), http.MethodGet, strings.ReplaceAll(more[1], "&amp;", "&"), withCookie(tok))
	if w.Code != http.StatusOK || strings.Count(w.Body.String(), `data-testid="card"`) != 11 || strings.Contains(w.Body.String(), "hx-get=") {
		t.Fatalf("second page: %d, %d cards: %s", w.Code, strings.Count(w.Body.String(), `data-testid="card"`), w.Body.String())
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/board/more?after=card-claude-gone", withCookie(tok)); w.Code != http.StatusConflict {
		t.Fatalf("a page after a card no longer there: %d", w.Code)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/?agent=nobody", withCookie(tok)); w.Code != http.StatusBadRequest {
		t.Fatalf("unknown agent filter: %d", w.Code)
	}

	board, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer board.Close()
	readUntil(t, board, `id="board"`)

	before, _ := r.srv.board(boardAll, "")
	last := before.Cards[len(before.Cards)-1].DOMID
	// Session 65 (on the second page) starts a turn.
	rising := ids[65]
	r.live.HookEvent(context.Background(), hookstate.Event{Runtime: "claude", SessionID: rising, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt,
		Prompt: "wake up, session 65", Cwd: projectPath, Relay: relay()})
	frame := readUntil(t, board, "wake up, session 65")
	if n := strings.Count(frame, `data-testid="card"`); n != 1 {
		t.Fatalf("the change sent %d cards, want 1: %q", n, frame)
	}
	if !strings.Contains(frame, `hx-swap-oob="beforeend:#board-inbox"`) || !strings.Contains(frame, `data-after=""`) {
		t.Fatalf("the rising card is not placed first: %q", frame)
	}
	// The board was cut at 60 cards: the one at the end left the page.
	b, _ := r.srv.board(boardAll, "")
	if b.Cards[0].DOMID != domID(session.Key{Runtime: "claude", ID: rising}) {
		t.Fatalf("the first card is %s, not session 65's", b.Cards[0].DOMID)
	}
	if slices.ContainsFunc(b.Cards, func(c views.Card) bool { return c.DOMID == last }) {
		t.Fatalf("%s still on the first page", last)
	}
	if !strings.Contains(frame, `id="`+last+`" hx-swap-oob="delete"`) {
		t.Fatalf("the card pushed off the page was not removed: %q", frame)
	}
	if len(frame) > 4096 {
		t.Errorf("one state change sent %d bytes, want ≤ 4 KB", len(frame))
	}
}
