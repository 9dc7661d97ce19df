package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// writeClaudeSubagent writes a subagent transcript the way Claude Code 2.1
// does: <project>/<session>/subagents/agent-<id>.jsonl, every line a
// sidechain, the first user turn the task. Each turn after the task is an
// assistant text answer preceded by a tool call and its result, which the
// conversation leaves out.
func writeClaudeSubagent(t *testing.T, root, sessionID, agentID, task string, answers ...string) {
	t.Helper()
	dir := filepath.Join(root, "projects", "-work-demo-project", sessionID, "subagents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ts := time.Now().Add(-30 * time.Minute).UTC()
	var b strings.Builder
	n := 0
	parent := any(nil)
	add := func(typ string, message map[string]any) {
		uuid := fmt.Sprintf("%08d-5ub0-4000-8000-%012d", n, n)
		line := map[string]any{"type": typ, "uuid": uuid, "parentUuid": parent, "isSidechain": true,
			"agentId": agentID, "sessionId": sessionID, "cwd": projectPath,
			"timestamp": ts.Add(time.Duration(n) * time.Second).Format(time.RFC3339Nano), "message": message}
		j, _ := json.Marshal(line)
		b.Write(j)
		b.WriteByte('\n')
		parent = uuid
		n++
	}
	add("user", map[string]any{"role": "user", "content": task})
	for i, text := range answers {
		tool := fmt.Sprintf("toolu_%d", i)
		add("assistant", map[string]any{"id": "msg_tool_" + tool, "role": "assistant", "model": "claude-test",
			"content": []map[string]any{{"type": "tool_use", "id": tool, "name": "Grep", "input": map[string]any{"pattern": "x"}}}})
		add("user", map[string]any{"role": "user",
			"content": []map[string]any{{"type": "tool_result", "tool_use_id": tool, "content": "docs/a.md:3: x"}}})
		add("assistant", map[string]any{"id": fmt.Sprintf("msg_text_%d", i), "role": "assistant", "model": "claude-test",
			"content": []map[string]any{{"type": "text", "text": text}}})
	}
	if err := os.WriteFile(filepath.Join(dir, "agent-"+agentID+".jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startSubagent feeds the hooks Claude sends when the main agent starts a
// subagent, and waits until the session's live card lists it.
func startSubagent(t *testing.T, r *rig, agentID, agentType, task string) {
	t.Helper()
	ctx := context.Background()
	for _, ev := range []hookstate.Event{
		{Name: "PreToolUse", Kind: hookstate.KindToolStart, ToolName: "Agent", ToolSummary: task},
		{Name: "SubagentStart", Kind: hookstate.KindSubagentStart, AgentID: agentID, AgentType: agentType},
		{Name: "PreToolUse", Kind: hookstate.KindToolStart, ToolName: "Grep", AgentID: agentID, AgentType: agentType},
	} {
		ev.Runtime, ev.SessionID, ev.Cwd, ev.Relay, ev.Time = "claude", sessionA, projectPath, relay(), time.Now()
		r.live.HookEvent(ctx, ev)
	}
	waitCard(t, r.live, session.Key{Runtime: "claude", ID: sessionA}, func(c live.Card) bool {
		for _, a := range c.Subagents {
			if a.ID == agentID {
				return true
			}
		}
		return false
	})
}

const agentA = "a1b2c3d4e5f6a7b8c"

func TestSubagentPage(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	writeClaudeSubagent(t, r.claudeDir, sessionA, agentA, "Audit the API docs <b>now</b> and list broken links.", "**Two** broken links: a.md and b.md.")
	startSubagent(t, r, agentA, "Explore", "Audit the API docs")

	// The AGENTS row on the session page opens the subagent.
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("session page: %d", w.Code)
	}
	row := parseHTML(t, w.Body.String()).Find(`[data-testid="subagent"]`)
	if row.Length() != 1 {
		t.Fatalf("%d subagent rows, want 1", row.Length())
	}
	href, _ := row.Attr("href")
	if want := "/s/claude/" + sessionA + "/agents/" + agentA; href != want {
		t.Fatalf("subagent row links to %q, want %q", href, want)
	}

	w = r.do(r.srv.Handler(), http.MethodGet, href, withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("subagent page: %d %s", w.Code, w.Body.String())
	}
	doc := parseHTML(t, w.Body.String())
	if title := doc.Find("header.top h1").Text(); strings.TrimSpace(title) != "Explore subagent · Audit the API docs" {
		t.Errorf("page title %q", title)
	}
	if cwd := doc.Find(`[data-testid="cwd"]`).Text(); cwd != projectPath {
		t.Errorf("cwd %q", cwd)
	}
	if st := doc.Find(`[data-testid="state"]`).Text(); st != "running" {
		t.Errorf("state %q, want running", st)
	}
	msgs := doc.Find(`[data-testid="message"]`)
	if msgs.Length() != 2 {
		t.Fatalf("%d messages, want the task and the answer: %s", msgs.Length(), w.Body.String())
	}
	if role, _ := msgs.Eq(0).Attr("data-role"); role != "user" || !strings.Contains(msgs.Eq(0).Text(), "Audit the API docs <b>now</b>") ||
		msgs.Eq(0).Find("b").Length() != 0 {
		t.Errorf("first message (%s) is not the escaped task: %q", role, msgs.Eq(0).Text())
	}
	if role, _ := msgs.Eq(1).Attr("data-role"); role != "assistant" || msgs.Eq(1).Find("strong").Text() != "Two" {
		t.Errorf("second message (%s) is not the rendered answer: %q", role, msgs.Eq(1).Text())
	}
	if strings.Contains(w.Body.String(), "docs/a.md:3") || strings.Contains(w.Body.String(), "first question about the build") {
		t.Error("the subagent page shows a tool result or the parent's conversation")
	}

	// The same conversation over the API.
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/agents/"+agentA+"/messages", withCookie(tok))
	var got struct {
		Total      int           `json:"total"`
		Messages   []messageJSON `json:"messages"`
		NextBefore *int          `json:"next_before"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &got) != nil {
		t.Fatalf("API: %d %s", w.Code, w.Body.String())
	}
	if got.Total != 2 || len(got.Messages) != 2 || got.NextBefore != nil ||
		got.Messages[0].Index != 0 || got.Messages[0].Role != "user" || got.Messages[0].Time == nil ||
		got.Messages[1].Index != 1 || got.Messages[1].Role != "assistant" || got.Messages[1].Text != "**Two** broken links: a.md and b.md." {
		t.Fatalf("API messages %+v", got)
	}
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/agents/"+agentA+"/messages?limit=1", withCookie(tok))
	got.NextBefore = nil
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || len(got.Messages) != 1 || got.Messages[0].Index != 1 ||
		got.NextBefore == nil || *got.NextBefore != 1 {
		t.Fatalf("API limit=1: %s", w.Body.String())
	}
}

// A subagent no live card knows (paddock restarted since) still opens,
// titled after its task; long conversations page like a session's.
func TestSubagentPagePaging(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	answers := make([]string, 120)
	for i := range answers {
		answers[i] = fmt.Sprintf("answer %03d", i)
	}
	writeClaudeSubagent(t, r.claudeDir, sessionA, "old1", "Refactor the parser\nin three steps.", answers...)
	base := "/s/claude/" + sessionA + "/agents/old1"

	w := r.do(r.srv.Handler(), http.MethodGet, base, withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("subagent page: %d", w.Code)
	}
	doc := parseHTML(t, w.Body.String())
	if title := strings.TrimSpace(doc.Find("header.top h1").Text()); title != "subagent · Refactor the parser" {
		t.Errorf("title %q", title)
	}
	if doc.Find(`[data-testid="state"]`).Length() != 0 {
		t.Error("a state shown for a subagent no hook reported")
	}
	msgs := doc.Find(`[data-testid="message"]`)
	if msgs.Length() != pageSize || !strings.Contains(msgs.Last().Text(), "answer 119") {
		t.Fatalf("%d messages, last %q", msgs.Length(), msgs.Last().Text())
	}
	older, _ := doc.Find(".older").Attr("hx-get")
	if want := base + "?before=71"; older != want {
		t.Fatalf("older messages from %q, want %q", older, want)
	}
	w = r.do(r.srv.Handler(), http.MethodGet, older, withCookie(tok))
	frag := parseHTML(t, w.Body.String())
	msgs = frag.Find(`[data-testid="message"]`)
	if w.Code != http.StatusOK || msgs.Length() != pageSize || !strings.Contains(msgs.First().Text(), "answer 020") {
		t.Fatalf("older page: %d, %d messages, first %q", w.Code, msgs.Length(), msgs.First().Text())
	}
	if next, _ := frag.Find(".older").Attr("hx-get"); next != base+"?before=21" {
		t.Fatalf("next older page %q", next)
	}
}

func TestSubagentPageErrors(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	writeClaudeSubagent(t, r.claudeDir, sessionA, agentA, "Audit the docs.", "Done.")
	page := "/s/claude/" + sessionA + "/agents/"
	api := "/api/v1/sessions/claude/" + sessionA + "/agents/"
	tests := []struct {
		path string
		want int
		code string // for the API
	}{
		{page + "a.b", http.StatusBadRequest, ""},
		{page + "..", http.StatusBadRequest, ""},
		{page + "..%2F..%2Fsecret", http.StatusBadRequest, ""},
		{page + "a%2Fb", http.StatusBadRequest, ""},
		{page + "a%00b", http.StatusBadRequest, ""},
		{page + strings.Repeat("a", 129), http.StatusBadRequest, ""},
		{page + "ffffffff", http.StatusNotFound, ""},
		{page + agentA + "?before=x", http.StatusBadRequest, ""},
		{"/s/claude/00000000-0000-4000-8000-000000000000/agents/" + agentA, http.StatusNotFound, ""},
		{"/s/claude/bad%20id/agents/" + agentA, http.StatusBadRequest, ""},
		{"/s/codex/" + sessionA + "/agents/" + agentA, http.StatusNotFound, ""},
		{api + "a.b/messages", http.StatusBadRequest, "bad_agent_id"},
		{api + "..%2Fx/messages", http.StatusBadRequest, "bad_agent_id"},
		{api + "ffffffff/messages", http.StatusNotFound, "not_found"},
		{api + agentA + "/messages?limit=0", http.StatusBadRequest, "bad_limit"},
		{"/api/v1/sessions/codex/" + sessionA + "/agents/" + agentA + "/messages", http.StatusNotFound, "subagents_unsupported"},
	}
	for _, tt := range tests {
		w := r.do(r.srv.Handler(), http.MethodGet, tt.path, withCookie(tok))
		if w.Code != tt.want {
			t.Errorf("GET %s: %d, want %d", tt.path, w.Code, tt.want)
		}
		if tt.code != "" {
			if c := decodeError(t, w.Body.Bytes()); c != tt.code {
				t.Errorf("GET %s: error %q, want %q", tt.path, c, tt.code)
			}
		}
		if b := w.Body.String(); strings.Contains(b, r.claudeDir) || strings.Contains(b, ".go:") || strings.Contains(b, "goroutine") {
			t.Errorf("GET %s leaks internals: %s", tt.path, b)
		}
	}
	// An agent whose subagents keep no conversations of their own (its
	// scanner reads none): a clear 404, on the page and in the API.
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/codex/"+sessionA+"/agents/"+agentA, withCookie(tok))
	if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "subagents keep no conversations of their own") {
		t.Errorf("other runtime: %d %q lacks the explanation", w.Code, w.Body.String())
	}
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions/codex/"+sessionA+"/agents/"+agentA+"/messages", withCookie(tok))
	if w.Code != http.StatusNotFound || decodeError(t, w.Body.Bytes()) != "subagents_unsupported" {
		t.Errorf("other runtime's API: %d %s", w.Code, w.Body.String())
	}

	// Not paired: the page sends to pairing, the API refuses.
	if w := r.do(r.srv.Handler(), http.MethodGet, page+agentA); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/pair" {
		t.Errorf("unpaired page: %d %q", w.Code, w.Header().Get("Location"))
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, api+agentA+"/messages"); w.Code != http.StatusUnauthorized || decodeError(t, w.Body.Bytes()) != "unauthenticated" {
		t.Errorf("unpaired API: %d", w.Code)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, page+agentA, withCookie("not-a-session")); w.Code != http.StatusSeeOther {
		t.Errorf("unknown cookie: %d", w.Code)
	}
}

func TestSubagentURL(t *testing.T) {
	r := newRig(t) // its catalog has Claude's scanner, which reads subagents
	claude := session.Key{Runtime: "claude", ID: sessionA}
	tests := []struct {
		k     session.Key
		agent string
		want  string
	}{
		{claude, agentA, "/s/claude/" + sessionA + "/agents/" + agentA},
		{claude, "agent-1", "/s/claude/" + sessionA + "/agents/agent-1"},
		{claude, "a.b", ""},
		{claude, "", ""},
		{claude, "a/b", ""},
		{session.Key{Runtime: "codex", ID: "019a"}, agentA, ""},
	}
	for _, tt := range tests {
		if got := r.srv.subagentURL(tt.k, tt.agent); got != tt.want {
			t.Errorf("subagentURL(%v, %q) = %q, want %q", tt.k, tt.agent, got, tt.want)
		}
	}
}
