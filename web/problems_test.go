package web

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/agent/registry"
	"paddock/internal/session"
)

const (
	sessionPartly  = "0b5d4c2e-3333-4a2b-9c3d-cccccccccccc"
	sessionGarbage = "0b5d4c2e-4444-4a2b-9c3d-dddddddddddd"
	sessionLoop    = "0b5d4c2e-5555-4a2b-9c3d-eeeeeeeeeeee"
)

// Sessions whose history is partly or wholly unreadable carry their
// Error in the API, on their card and on their page; a source that cannot
// be read is named on the board and, without its path, in the health
// check.
func TestHistoryErrorsShown(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	h := r.srv.Handler()
	path := writeClaudeSession(t, r.claudeDir, sessionPartly, "partly question", "partly answer")
	appendFile(t, path, "{not json\nnot json either\n")
	proj := filepath.Dir(path)
	if err := os.WriteFile(filepath.Join(proj, sessionGarbage+".jsonl"), []byte("\x00\x01garbage\n{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link to itself: a file that cannot be read, whoever runs this.
	if err := os.Symlink(sessionLoop+".jsonl", filepath.Join(proj, sessionLoop+".jsonl")); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(r.claudeDir, "projects", "-work-loop")
	if err := os.Symlink("-work-loop", loop); err != nil {
		t.Fatal(err)
	}
	r.cat.Rescan(context.Background())

	wantErr := map[string]string{
		sessionA:       "",
		sessionPartly:  "2 lines could not be read",
		sessionGarbage: "none of its 2 lines could be read",
		sessionLoop:    "the file cannot be read: too many levels of symbolic links",
	}

	// The list, and each session's own endpoint.
	w := r.do(h, http.MethodGet, "/api/v1/sessions", withCookie(tok))
	var list struct {
		Sessions []struct{ ID, Error string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || w.Code != http.StatusOK {
		t.Fatalf("sessions: %d %s", w.Code, w.Body)
	}
	got := map[string]string{}
	for _, s := range list.Sessions {
		got[s.ID] = s.Error
	}
	for id, want := range wantErr {
		if e, ok := got[id]; !ok || e != want {
			t.Errorf("/api/v1/sessions: %s listed %v with error %q, want %q", id, ok, e, want)
		}
		w := r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+id, withCookie(tok))
		var one struct{ Session struct{ Error string } }
		if err := json.Unmarshal(w.Body.Bytes(), &one); err != nil || w.Code != http.StatusOK || one.Session.Error != want {
			t.Errorf("/api/v1/sessions/claude/%s: %d, error %q, want %q", id, w.Code, one.Session.Error, want)
		}
	}
	if !strings.Contains(w.Body.String(), `"error"`) || strings.Contains(w.Body.String(), "{not json") {
		t.Errorf("a session's error shows file content: %s", w.Body)
	}

	// Its messages: what could be read, and why not all; or, for one
	// that cannot be read, why not, as an error.
	w = r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionPartly+"/messages", withCookie(tok))
	var page struct {
		Total        int
		HistoryError string `json:"history_error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &page); err != nil || w.Code != http.StatusOK || page.Total != 2 || page.HistoryError != "2 lines could not be read" {
		t.Errorf("partly read messages: %d %s", w.Code, w.Body)
	}
	w = r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionLoop+"/messages", withCookie(tok))
	if w.Code != http.StatusUnprocessableEntity || decodeError(t, w.Body.Bytes()) != "history_unreadable" ||
		!strings.Contains(w.Body.String(), "too many levels of symbolic links") {
		t.Errorf("unreadable messages: %d %s", w.Code, w.Body)
	}

	// The cards.
	w = r.do(h, http.MethodGet, "/", withCookie(tok))
	doc := parseHTML(t, w.Body.String())
	for id, want := range wantErr {
		card := doc.Find(`[data-testid="card"][data-key="claude:` + id + `"]`)
		if card.Length() != 1 {
			t.Errorf("no card for %s", id)
			continue
		}
		note := strings.TrimSpace(card.Find(`[data-testid="card-error"]`).Text())
		if want == "" && note != "" || want != "" && note != "History not fully read: "+want {
			t.Errorf("card %s: notice %q, want one saying %q", id, note, want)
		}
	}

	// The pages: one partly read shows what it can and says so; one that
	// cannot be read at all still opens, saying why.
	for id, want := range map[string]string{
		sessionPartly: "Part or all of this session's history could not be read (2 lines could not be read); the conversation shows what could be read.",
		sessionLoop:   "This session's history cannot be read (the file cannot be read: too many levels of symbolic links).",
		sessionA:      "",
	} {
		w := r.do(h, http.MethodGet, "/s/claude/"+id, withCookie(tok))
		if w.Code != http.StatusOK {
			t.Errorf("page %s: %d", id, w.Code)
			continue
		}
		if note := strings.TrimSpace(parseHTML(t, w.Body.String()).Find(`[data-testid="history-error"]`).Text()); note != want {
			t.Errorf("page %s: notice %q, want %q", id, note, want)
		}
	}

	// The board names the source it cannot read; health warns of it
	// without its path, and stays "ok".
	want := "Claude: " + loop + " cannot be read: too many levels of symbolic links."
	if home, _ := os.UserHomeDir(); home != "" && home != "/" && strings.HasPrefix(loop, home+"/") {
		want = "Claude: ~" + strings.TrimPrefix(loop, home) + " cannot be read: too many levels of symbolic links."
	}
	if lines := doc.Find(`#board-meta [data-testid="scan-error"]`); lines.Length() != 1 || strings.TrimSpace(lines.Text()) != want {
		t.Errorf("board meta: %q, want %q", lines.Text(), want)
	}
	w = r.do(h, http.MethodGet, "/api/v1/health")
	var health struct {
		Status  string
		Sources []struct{ Agent, Problem string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &health); err != nil || health.Status != "ok" || len(health.Sources) != 1 ||
		health.Sources[0].Agent != "claude" || health.Sources[0].Problem != "cannot be read: too many levels of symbolic links" {
		t.Errorf("health: %s", w.Body)
	}
	if strings.Contains(w.Body.String(), r.claudeDir) {
		t.Errorf("health names a path: %s", w.Body)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func TestProblemLines(t *testing.T) {
	s := &Server{opts: Options{Agents: registry.Default()}}
	probs := []session.SourceProblem{
		{Runtime: "claude", Reason: "its history cannot be read (permission denied); showing the sessions read before"},
		{Runtime: "codex", Source: "/home/u/.codex/sessions/2026", Reason: "cannot be read: permission denied"},
		{Reason: "file watching stopped; the board updates every 5s"},
	}
	for range 4 {
		probs = append(probs, session.SourceProblem{Runtime: "pi", Source: "/elsewhere/x", Reason: "cannot be read: input/output error"})
	}
	want := []string{
		"Claude: its history cannot be read (permission denied); showing the sessions read before.",
		"Codex: ~/.codex/sessions/2026 cannot be read: permission denied.",
		"paddock: file watching stopped; the board updates every 5s.",
		"Pi: /elsewhere/x cannot be read: input/output error.",
		"Pi: /elsewhere/x cannot be read: input/output error.",
		"… and 2 more; paddock's log names them.",
	}
	t.Setenv("HOME", "/home/u")
	got := s.problemLines(probs)
	if !slices.Equal(got, want) {
		t.Errorf("problemLines =\n%q\nwant\n%q", got, want)
	}
	for _, tt := range []struct{ path, home, want string }{
		{"/home/u/.claude", "/home/u", "~/.claude"},
		{"/home/u", "/home/u", "~"},
		{"/home/user2/x", "/home/u", "/home/user2/x"},
		{"/x", "/", "/x"},
		{"/x", "", "/x"},
	} {
		if got := tildePath(tt.path, tt.home); got != tt.want {
			t.Errorf("tildePath(%q, %q) = %q, want %q", tt.path, tt.home, got, tt.want)
		}
	}
}

// A source that becomes unreadable while the board is open is named on
// it at once, with no reload, and the line goes when it is read again.
func TestProblemPushedToBoard(t *testing.T) {
	r := newRig(t)
	ts := r.tlsServer()
	tok := r.pair()
	board, _, err := dialWS(t, ts, "/ws?view=board", ts.URL, tok)
	if err != nil {
		t.Fatal(err)
	}
	defer board.Close()
	readUntil(t, board, `id="board"`)

	loop := filepath.Join(r.claudeDir, "projects", "-work-loop")
	if err := os.Symlink("-work-loop", loop); err != nil {
		t.Fatal(err)
	}
	r.cat.Rescan(context.Background())
	got := readUntil(t, board, `data-testid="scan-error"`)
	if !strings.Contains(got, `id="board-meta"`) || !strings.Contains(got, "cannot be read: too many levels of symbolic links.") {
		t.Errorf("pushed %q", got)
	}

	if err := os.Remove(loop); err != nil {
		t.Fatal(err)
	}
	r.cat.Rescan(context.Background())
	got = readUntil(t, board, `id="board-meta"`)
	if strings.Contains(got, "scan-error") {
		t.Errorf("the line stayed: %q", got)
	}
}
