package web

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The session page's activity panel shows each tool call with its output
// (a failed one marked), an Edit as a unified diff of its replacement, and
// the visible thinking — read from the agent's own history.
func TestSessionActivity(t *testing.T) {
	r := newRig(t)
	tok := r.pair()
	const id = "0b5d4c2e-3333-4a2b-9c3d-aaaaaaaaaaaa"
	at := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	line := func(typ, uuid, parent string, msg map[string]any) string {
		m := map[string]any{"type": typ, "uuid": uuid, "sessionId": id, "cwd": projectPath, "timestamp": at, "message": msg}
		if parent != "" {
			m["parentUuid"] = parent
		} else {
			m["parentUuid"] = nil
		}
		b, _ := json.Marshal(m)
		return string(b) + "\n"
	}
	body := line("user", "u1", "", map[string]any{"role": "user", "content": "fix the typo and run the tests"}) +
		line("assistant", "a1", "u1", map[string]any{"id": "msg_1", "role": "assistant", "model": "claude-test", "content": []map[string]any{
			{"type": "thinking", "thinking": "The typo is in README; then the tests."},
			{"type": "tool_use", "id": "toolu_edit", "name": "Edit", "input": map[string]any{"file_path": "/work/demo/README.md", "old_string": "teh build\nstays", "new_string": "the build\nstays"}},
		}}) +
		line("user", "u2", "a1", map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_edit", "content": "edited"}}}) +
		line("assistant", "a2", "u2", map[string]any{"id": "msg_2", "role": "assistant", "model": "claude-test", "content": []map[string]any{
			{"type": "tool_use", "id": "toolu_bash", "name": "Bash", "input": map[string]any{"command": "go test ./... > out.txt"}},
		}}) +
		line("user", "u3", "a2", map[string]any{"role": "user", "content": []map[string]any{{"type": "tool_result", "tool_use_id": "toolu_bash", "content": "FAIL: TestTypo", "is_error": true}}}) +
		line("assistant", "a3", "u3", map[string]any{"id": "msg_3", "role": "assistant", "model": "claude-test", "content": []map[string]any{{"type": "text", "text": "Fixed; one test still fails."}}})
	dir := filepath.Join(r.claudeDir, "projects", "-work-demo-project")
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var page string
	waitFor(t, func() bool {
		w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+id+"/activity", withCookie(tok))
		page = w.Body.String()
		return w.Code == http.StatusOK && strings.Contains(page, "activity-list")
	})
	for _, want := range []string{
		`<span class="dl del">-teh build`, `<span class="dl add">+the build`, `+++ b/work/demo/README.md`,
		"go test ./...", "FAIL: TestTypo", `activity-item error`, "The typo is in README; then the tests.",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("activity lacks %q in %s", want, page)
		}
	}
	if strings.Contains(page, `\u003e`) {
		t.Error("the input shows > as \\u003e")
	}
	if strings.Count(page, `data-testid="activity-item"`) != 3 {
		t.Errorf("%d entries, want thinking, the edit and the command: %s", strings.Count(page, `data-testid="activity-item"`), page)
	}
	// The session page offers the panel.
	if w := r.do(r.srv.Handler(), http.MethodGet, "/s/claude/"+id, withCookie(tok)); !strings.Contains(w.Body.String(), `hx-get="/s/claude/`+id+`/activity"`) {
		t.Fatal("the session page has no activity panel")
	}
}
