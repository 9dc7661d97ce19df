package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"paddock/internal/agent/claude"
	"paddock/internal/catalog"
	"paddock/internal/session"
)

// appendClaudeTurns appends turns to a transcript that writeClaudeSession
// wrote with have turns, as Claude Code does while a session runs: one
// line per turn, each chained to the one before.
func appendClaudeTurns(t *testing.T, path, id string, have int, turns ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	uuid := func(i int) string { return fmt.Sprintf("%08d-0000-4000-8000-%012d", i, i) }
	now := time.Now().UTC()
	// One write, so a rescan never sees half of the turns (tests compare
	// what one push carries).
	var buf []byte
	for j, text := range turns {
		i := have + j
		line := map[string]any{"uuid": uuid(i), "parentUuid": uuid(i - 1), "sessionId": id, "cwd": projectPath,
			"timestamp": now.Add(time.Duration(j) * time.Second).Format(time.RFC3339Nano)}
		if i%2 == 0 {
			line["type"] = "user"
			line["message"] = map[string]any{"role": "user", "content": text}
		} else {
			line["type"] = "assistant"
			line["message"] = map[string]any{"id": "msg_" + uuid(i), "role": "assistant", "model": "claude-test",
				"content": []map[string]any{{"type": "text", "text": text}}}
		}
		b, _ := json.Marshal(line)
		buf = append(append(buf, b...), '\n')
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
}

// sessionPath is where writeClaudeSession wrote session id.
func (r *rig) sessionPath(id string) string {
	return filepath.Join(r.claudeDir, "projects", "-work-demo-project", id+".jsonl")
}

// turnTexts is "turn 000" … for turns from to to (exclusive).
func turnTexts(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("turn %03d", i))
	}
	return out
}

func shownTexts(doc *goquery.Document) []string {
	return doc.Find(`[data-testid="message"]`).Map(func(_ int, s *goquery.Selection) string {
		return strings.TrimSpace(s.Children().Last().Text())
	})
}

// The session page shows the newest page read from the end of the
// history (Claude's scanner is a TailReader), and scrolling up joins the
// older pages to it without skipping or repeating a message, whatever
// the agent appended in between.
func TestSessionPageNewestFromTheTail(t *testing.T) {
	if _, ok := any(claude.New(claude.Options{})).(catalog.TailReader); !ok {
		t.Fatal("the Claude scanner reads no tail: this test would not exercise one")
	}
	const turns = 130
	tests := []struct {
		name     string
		appended int // turns written after the first page, before the older ones
	}{
		{"nothing appended", 0},
		{"one turn appended", 1},
		{"more than a page appended", 2*pageSize + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t)
			tok := r.pair()
			path := writeClaudeSession(t, r.claudeDir, sessionB, turnTexts(0, turns)...)
			r.cat.Rescan(t.Context())

			w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionB, withCookie(tok))
			if w.Code != http.StatusOK {
				t.Fatalf("page: %d", w.Code)
			}
			doc := parseHTML(t, w.Body.String())
			first := shownTexts(doc)
			if !slices.Equal(first, turnTexts(turns-pageSize, turns)) {
				t.Fatalf("first page %v", first)
			}
			// The whole was not counted: it came from the tail.
			if head := doc.Find("#session-head").Text(); !strings.Contains(head, fmt.Sprintf("%d+ messages", pageSize)) {
				t.Fatalf("head %q does not say the count is a lower bound", head)
			}
			older, ok := doc.Find(".older").Attr("hx-get")
			if !ok || !strings.Contains(older, "before=t") {
				t.Fatalf("older link %q is not an anchor", older)
			}

			appendClaudeTurns(t, path, sessionB, turns, turnTexts(turns, turns+tt.appended)...)

			got := first
			for pages := 0; older != ""; pages++ {
				if pages > 10 {
					t.Fatal("older pages never end")
				}
				w := r.do(r.srv.Handler(), http.MethodGet, older, withCookie(tok))
				if w.Code != http.StatusOK {
					t.Fatalf("GET %s: %d %s", older, w.Code, w.Body.String())
				}
				doc := parseHTML(t, w.Body.String())
				got = append(shownTexts(doc), got...)
				older, _ = doc.Find(".older").Attr("hx-get")
			}
			if !slices.Equal(got, turnTexts(0, turns)) {
				t.Fatalf("scrolled up to %d messages:\n%v", len(got), got)
			}

			// The older pages parsed the whole (cached): the page now
			// counts it, and its older link is an index.
			w = r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionB, withCookie(tok))
			doc = parseHTML(t, w.Body.String())
			all := turns + tt.appended
			if !slices.Equal(shownTexts(doc), turnTexts(all-pageSize, all)) {
				t.Fatalf("page after the append %v", shownTexts(doc))
			}
			if head := doc.Find("#session-head").Text(); !strings.Contains(head, fmt.Sprintf("%d messages", all)) {
				t.Fatalf("head %q lacks the count %d", head, all)
			}
			if older, _ := doc.Find(".older").Attr("hx-get"); !strings.HasSuffix(older, fmt.Sprintf("before=%d", all-pageSize)) {
				t.Fatalf("older link %q", older)
			}
		})
	}
}

// An anchor whose message is gone (the conversation was rewound or
// replaced) reloads the page, and the API says the cursor is stale.
func TestOlderMessagesAnchorGone(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	writeClaudeSession(t, r.claudeDir, sessionB, turnTexts(0, 130)...)
	r.cat.Rescan(t.Context())
	doc := parseHTML(t, r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionB, withCookie(tok)).Body.String())
	older, _ := doc.Find(".older").Attr("hx-get")
	var page struct{ Next string }
	w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionB+"/messages?limit=10", withCookie(tok))
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || !strings.HasPrefix(page.Next, "t") {
		t.Fatalf("API first page: %s", w.Body.String())
	}

	var texts []string
	for i := range 130 {
		texts = append(texts, fmt.Sprintf("rewritten %03d", i))
	}
	writeClaudeSession(t, r.claudeDir, sessionB, texts...)

	w = r.do(r.srv.Handler(), http.MethodGet, older, withCookie(tok))
	if w.Code != http.StatusOK || w.Header().Get("HX-Refresh") != "true" || !strings.Contains(w.Body.String(), `data-testid="older-gone"`) {
		t.Fatalf("stale anchor: %d %q %s", w.Code, w.Header().Get("HX-Refresh"), w.Body.String())
	}
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionB+"/messages?limit=10&before="+page.Next, withCookie(tok))
	if w.Code != http.StatusConflict || decodeError(t, w.Body.Bytes()) != "stale_cursor" {
		t.Fatalf("API stale anchor: %d %s", w.Code, w.Body.String())
	}
}

// apiPage is the messages endpoint's answer, with index and total as
// pointers to tell absent from zero.
type apiPage struct {
	Total    *int `json:"total"`
	Messages []struct {
		Index *int   `json:"index"`
		Role  string `json:"role"`
		Text  string `json:"text"`
	} `json:"messages"`
	Next       string `json:"next"`
	NextBefore *int   `json:"next_before"`
}

// The API's first page comes from the tail (no total, no indices, an
// anchor as next); following next pages back to the first message
// without a gap or a repeat while the agent appends, and ?before=N still
// pages by index.
func TestAPIMessagesCursor(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	const turns = 25
	path := writeClaudeSession(t, r.claudeDir, sessionB, turnTexts(0, turns)...)
	r.cat.Rescan(t.Context())
	get := func(query string) apiPage {
		t.Helper()
		w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionB+"/messages?"+query, withCookie(tok))
		var p apiPage
		if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &p) != nil {
			t.Fatalf("GET ?%s: %d %s", query, w.Code, w.Body.String())
		}
		return p
	}
	texts := func(p apiPage) []string {
		var out []string
		for _, m := range p.Messages {
			out = append(out, m.Text)
		}
		return out
	}

	p := get("limit=4")
	if p.Total != nil || p.NextBefore != nil || p.Messages[0].Index != nil || !strings.HasPrefix(p.Next, "t4-") {
		t.Fatalf("first page is not a tail page: %+v", p)
	}
	got := texts(p)
	if !slices.Equal(got, turnTexts(turns-4, turns)) {
		t.Fatalf("first page %v", got)
	}
	appendClaudeTurns(t, path, sessionB, turns, turnTexts(turns, turns+6)...)
	for pages := 0; p.Next != ""; pages++ {
		if pages > 10 {
			t.Fatal("pages never end")
		}
		next := p.Next
		p = get("limit=4&before=" + next)
		if p.Total == nil || *p.Total != turns+6 {
			t.Fatalf("before=%s: total %v, want %d", next, p.Total, turns+6)
		}
		for i, m := range p.Messages {
			if m.Index == nil || *m.Index != *p.Messages[0].Index+i || m.Text != fmt.Sprintf("turn %03d", *m.Index) {
				t.Fatalf("before=%s: message %d is %+v", next, i, m)
			}
		}
		if p.Next != "" && (p.NextBefore == nil || p.Next != fmt.Sprint(*p.NextBefore) || *p.NextBefore != *p.Messages[0].Index) {
			t.Fatalf("before=%s: next %q, next_before %v", next, p.Next, p.NextBefore)
		}
		got = append(texts(p), got...)
	}
	if !slices.Equal(got, turnTexts(0, turns)) {
		t.Fatalf("paged %v", got)
	}

	// Index cursors, as before anchors existed.
	p = get("limit=3&before=10")
	if !slices.Equal(texts(p), turnTexts(7, 10)) || p.NextBefore == nil || *p.NextBefore != 7 || p.Next != "7" {
		t.Fatalf("before=10: %+v", p)
	}
	for _, bad := range []string{"x", "-1", "t0-ab", "tq-1", "t5-zz", "5-ab", "t5", "t5-ab-0", "t5-ab-", "t5-ab-!"} {
		w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionB+"/messages?before="+bad, withCookie(tok))
		if w.Code != http.StatusBadRequest || decodeError(t, w.Body.Bytes()) != "bad_before" {
			t.Errorf("before=%s: %d %s", bad, w.Code, w.Body.String())
		}
	}
}

// The websocket sends a viewer only the messages after the ones it has,
// matched by content (the page may come from the tail, whose indices are
// unknown), or the whole page when those are gone.
func TestAfter(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	m := func(i int, text string) session.Message {
		role := session.RoleUser
		if i%2 == 1 {
			role = session.RoleAssistant
		}
		return session.Message{Role: role, Text: text, Time: t0.Add(time.Duration(i) * time.Minute)}
	}
	page := func(from, to int) []session.Message {
		var out []session.Message
		for i := from; i < to; i++ {
			out = append(out, m(i, fmt.Sprint("text ", i)))
		}
		return out
	}
	noTime := func(texts ...string) []session.Message {
		var out []session.Message
		for _, s := range texts {
			out = append(out, session.Message{Role: session.RoleUser, Text: s})
		}
		return out
	}
	grown := page(0, 5)
	grown[4].Text += " and more"
	tests := []struct {
		name   string
		shown  []session.Message
		page   []session.Message
		want   []session.Message
		wantOK bool
	}{
		{"nothing new", page(7, 10), page(0, 10), nil, true},
		{"two appended", page(7, 10), page(2, 12), page(10, 12), true},
		{"page slid past what was shown", page(7, 10), page(11, 20), nil, false},
		{"rewound", page(7, 10), page(0, 8), nil, false},
		{"the newest shown message grew: the whole block again", page(2, 5), grown, nil, false},
		{"an earlier shown message changed", page(2, 5), append(page(0, 3), m(3, "edited"), m(4, "text 4")), nil, false},
		{"viewer had nothing, still nothing", nil, nil, nil, true},
		{"viewer had nothing, now has some: whole", nil, page(0, 1), nil, false},
		{"emptied", page(0, 2), nil, nil, false},
		{"repeats without times: the latest run", noTime("ok", "ok"), noTime("go", "ok", "ok", "ok", "done"), noTime("done"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := after(tt.shown, tt.page)
			if ok != tt.wantOK || len(got) != len(tt.want) {
				t.Fatalf("after = %v, %v; want %v, %v", got, ok, tt.want, tt.wantOK)
			}
			for i := range got {
				if got[i].Text != tt.want[i].Text {
					t.Fatalf("after = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// A viewer of a long session gets the newest page (from the tail) and then
// only what the agent appends.
func TestWebsocketLongSessionAppends(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	const turns = 130
	path := writeClaudeSession(t, r.claudeDir, sessionB, turnTexts(0, turns)...)
	r.cat.Rescan(t.Context())
	sess, _, err := dialWS(t, ts, "/ws?view=session&runtime=claude&id="+sessionB, ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	snap := readUntil(t, sess, `id="messages"`)
	doc := parseHTML(t, snap)
	if got := shownTexts(doc); !slices.Equal(got, turnTexts(turns-pageSize, turns)) {
		t.Fatalf("snapshot %v", got)
	}
	if older, _ := doc.Find(".older").Attr("hx-get"); !strings.Contains(older, "before=t") {
		t.Fatalf("snapshot's older link %q", older)
	}

	appendClaudeTurns(t, path, sessionB, turns, turnTexts(turns, turns+2)...)
	got := readUntil(t, sess, "turn 131")
	doc = parseHTML(t, got)
	if !strings.Contains(got, `hx-swap-oob="beforeend"`) || !slices.Equal(shownTexts(doc), turnTexts(turns, turns+2)) {
		t.Fatalf("append fragment %q", got)
	}
}
