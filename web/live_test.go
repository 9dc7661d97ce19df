package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

func relay() hookstate.RelayInfo {
	return hookstate.RelayInfo{PID: 4242, PPID: 4000, TTY: "/dev/pts/3", TermProgram: "iTerm.app", SentAt: time.Now()}
}

// waitCard waits until the live service has applied what the test sent.
func waitCard(t *testing.T, l *live.Service, k session.Key, ok func(live.Card) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if c, found := l.Card(k); found && ok(c) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("live card %v never reached the expected state", k)
}

func TestBoardShowsLiveStateAndNeedsYou(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	board, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer board.Close()
	readUntil(t, board, `id="board"`)

	ctx := context.Background()
	a := session.Key{Runtime: "claude", ID: sessionA}
	r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "PreToolUse", Kind: hookstate.KindToolStart,
		ToolName: "Bash", ToolUseID: "t1", ToolSummary: "rm -rf build", Cwd: projectPath, Relay: relay()})
	r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "PermissionRequest", Kind: hookstate.KindPermission,
		ToolName: "Bash", ToolUseID: "t1", ToolSummary: "rm -rf build", Cwd: projectPath, Relay: relay()})
	frame := readUntil(t, board, `data-testid="needs-you"`)
	for _, want := range []string{`id="need-card-claude-` + sessionA, `data-state="approval"`, "rm -rf build", "needs approval", "iTerm"} {
		if !strings.Contains(frame, want) {
			t.Errorf("board frame lacks %q", want)
		}
	}

	// A session known only from its hooks (a runtime without a scanner
	// yet) has a card, a page and an API entry.
	codex := session.Key{Runtime: "codex", ID: "019a-thread"}
	r.live.HookEvent(ctx, hookstate.Event{Runtime: "codex", SessionID: codex.ID, Name: "UserPromptSubmit", Kind: hookstate.KindPrompt,
		Prompt: "add a changelog entry", Cwd: "/work/other", Relay: relay()})
	frame = readUntil(t, board, "add a changelog entry")
	if !strings.Contains(frame, `data-key="codex:019a-thread"`) || !strings.Contains(frame, `data-state="prompting"`) {
		t.Fatalf("codex card missing or not prompting: %q", frame)
	}
	waitCard(t, r.live, codex, func(c live.Card) bool { return c.State == hookstate.StatePrompting })
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/codex/019a-thread", withCookie(tok))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "prompting") {
		t.Fatalf("live-only session page: %d %q", w.Code, w.Body.String())
	}

	// The JSON API carries the live fields, and filters by state.
	waitCard(t, r.live, a, func(c live.Card) bool { return c.State == hookstate.StateApproval })
	w = r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions?state=approval", withCookie(tok))
	var list struct {
		Sessions []sessionJSON `json:"sessions"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].ID != sessionA || list.Sessions[0].Attention != "answer" ||
		list.Sessions[0].Dialog == nil || list.Sessions[0].Dialog.Summary != "rm -rf build" || list.Sessions[0].Terminal != "iTerm" || !list.Sessions[0].External {
		t.Fatalf("state=approval list %+v", list.Sessions)
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/api/v1/sessions?state=bogus", withCookie(tok)); w.Code != http.StatusBadRequest {
		t.Fatalf("bad state filter: %d", w.Code)
	}

	// The approval answered at the desk: the strip empties.
	r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: "PostToolUse", Kind: hookstate.KindToolEnd,
		ToolName: "Bash", ToolUseID: "t1", Cwd: projectPath, Relay: relay()})
	waitCard(t, r.live, a, func(c live.Card) bool { return c.State == hookstate.StateWorking })
	// The change arrives as the strip, now empty and hidden, and the one
	// card, not as a whole board.
	stripHidden, working := false, false
	deadline := time.Now().Add(5 * time.Second)
	for !stripHidden || !working {
		_ = board.SetReadDeadline(deadline)
		_, b, err := board.ReadMessage()
		if err != nil {
			t.Fatalf("strip hidden %v, card working %v: %v", stripHidden, working, err)
		}
		frame := string(b)
		if strings.Contains(frame, `id="board"`) || strings.Count(frame, `data-testid="card"`) > 1 {
			t.Fatalf("a change sent more than its card and strip: %q", frame)
		}
		stripHidden = stripHidden || strings.Contains(frame, `data-testid="needs-you" aria-label="Needs you" hidden`)
		working = working || strings.Contains(frame, `data-key="claude:`+sessionA+`" data-runtime="claude"`) && strings.Contains(frame, `data-state="working"`)
	}
}

func TestSessionPageShowsSubagentsAndMetrics(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	ctx := context.Background()
	at := time.Now().Add(-20 * time.Millisecond)
	for _, ev := range []hookstate.Event{
		{Name: "PreToolUse", Kind: hookstate.KindToolStart, ToolName: "Task", ToolSummary: "Audit the API docs"},
		{Name: "SubagentStart", Kind: hookstate.KindSubagentStart, AgentID: "agent-1", AgentType: "Explore"},
		{Name: "PreToolUse", Kind: hookstate.KindToolStart, ToolName: "Grep", AgentID: "agent-1", AgentType: "Explore"},
	} {
		ev.Runtime, ev.SessionID, ev.Cwd, ev.Relay, ev.Time = "claude", sessionA, projectPath, relay(), at
		r.live.HookEvent(ctx, ev)
	}
	waitCard(t, r.live, session.Key{Runtime: "claude", ID: sessionA}, func(c live.Card) bool {
		return len(c.Subagents) == 1 && c.Subagents[0].ToolCalls == 1
	})
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
	body := w.Body.String()
	for _, want := range []string{`data-testid="agents"`, "Explore", "Audit the API docs", "1 tool call", `data-testid="hook-latency"`} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
}

func TestCoalesceMergesWaitingChanges(t *testing.T) {
	a, b := make(chan session.Change, 4), make(chan session.Change, 4)
	k := func(id string) session.Key { return session.Key{Runtime: "claude", ID: id} }
	a <- session.Change{Updated: []session.Key{k("2")}}
	b <- session.Change{Removed: []session.Key{k("3")}}
	b <- session.Change{Full: true}
	close(a) // a closed source must not spin
	got := coalesce(session.Change{Updated: []session.Key{k("1")}}, a, b)
	if len(got.Updated) != 2 || len(got.Removed) != 1 || !got.Full {
		t.Fatalf("coalesced %+v", got)
	}
	if len(b) != 0 {
		t.Fatal("changes left waiting")
	}
}

func TestOpeningASessionReadsItsResult(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	ctx := context.Background()
	k := session.Key{Runtime: "claude", ID: sessionA}
	for _, kind := range []hookstate.Kind{hookstate.KindPrompt, hookstate.KindStop} {
		r.live.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: sessionA, Name: string(kind), Kind: kind, Cwd: projectPath, Relay: relay()})
	}
	waitCard(t, r.live, k, func(c live.Card) bool { return c.Attention == hookstate.AttentionUnread })
	// The GET changes nothing (a cross-site link could send it); the page
	// it serves posts that it was read.
	w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `hx-post="/s/claude/`+sessionA+`/read"`) {
		t.Fatalf("session page %d, or no read mark in it", w.Code)
	}
	time.Sleep(50 * time.Millisecond)
	if c, ok := r.live.Card(k); !ok || c.Attention != hookstate.AttentionUnread {
		t.Fatalf("a GET marked the session read: %+v", c)
	}
	if w := r.do(r.srv.Handler(), http.MethodPost, "/s/claude/"+sessionA+"/read", withCookie(tok)); w.Code != http.StatusForbidden {
		t.Errorf("a read mark without CSRF: %d, want 403", w.Code)
	}
	if w := r.do(r.srv.Handler(), http.MethodPost, "/s/claude/"+sessionA+"/read", withCookie(tok), withHeader(csrfHeader, r.csrf(tok))); w.Code != http.StatusNoContent {
		t.Fatalf("read mark: %d", w.Code)
	}
	waitCard(t, r.live, k, func(c live.Card) bool { return c.Attention == hookstate.AttentionNone })
}

func TestHostingEndpointsWithoutTmuxOrToken(t *testing.T) {
	r := newRig(t) // no Hosting: this paddock has no tmux
	tok := r.pair()
	body := withForm(map[string][]string{"runtime": {"claude"}, "workdir": {"/tmp"}})
	// A cookie session without its CSRF token changes nothing.
	if w := r.do(r.srv.Handler(), http.MethodPost, "/new", withCookie(tok), body); w.Code != http.StatusForbidden {
		t.Fatalf("POST /new without CSRF token: %d", w.Code)
	}
	w := r.do(r.srv.Handler(), http.MethodPost, "/api/v1/sessions", withCookie(tok), withHeader("X-CSRF-Token", r.csrf(tok)),
		withHeader("Content-Type", "application/json"))
	if w.Code != http.StatusNotImplemented || decodeError(t, w.Body.Bytes()) != "hosting_unavailable" {
		t.Fatalf("create without tmux: %d %s", w.Code, w.Body.String())
	}
	if w := r.do(r.srv.Handler(), http.MethodGet, "/", withCookie(tok)); strings.Contains(w.Body.String(), `data-testid="new-link"`) {
		t.Fatal("the board offers New session without tmux")
	}
}
