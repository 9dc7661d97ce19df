package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/app"
)

// TestSessionsSearch: `paddock index rebuild` builds the index from the
// histories (and refuses while paddock serve runs); `paddock sessions
// search` finds words inside the conversations, as text or JSON;
// `paddock sessions export` writes one session's record, never over a
// file without --force nor into an agent's or paddock's own directories.
// Bad input is refused with the reason.
func TestSessionsSearch(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "CODEX_HOME", "KIMI_CODE_HOME", "XDG_DATA_HOME", "OPENCODE_DATA_DIR", "PI_CODING_AGENT_DIR", "CURSOR_CONFIG_DIR", "KIMI_SHARE_DIR", "OPENCODE_DB", "CODEX_SQLITE_HOME"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	data := filepath.Join(home, "data")
	e := env{"HOME": home, "PADDOCK_HOME": data}
	cwd := filepath.Join(home, "proj")
	if err := os.MkdirAll(filepath.Join(home, ".claude", "projects", "-proj"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(cwd, 0o755)
	const id = "0b5d4c2e-7777-4a2b-9c3d-aaaaaaaaaaaa"
	var lines []string
	at := time.Now().Add(-time.Hour).UTC()
	for i, text := range []string{"where do the kiwi tests live", "In internal/kiwi, next to the fixtures"} {
		typ, role := "user", "user"
		if i == 1 {
			typ, role = "assistant", "assistant"
		}
		m := map[string]any{"type": typ, "uuid": fmt.Sprintf("%08d-0000-4000-8000-000000000000", i), "sessionId": id, "cwd": cwd,
			"timestamp": at.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano), "message": map[string]any{"role": role, "content": text}}
		if i > 0 {
			m["parentUuid"] = fmt.Sprintf("%08d-0000-4000-8000-000000000000", i-1)
		}
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "projects", "-proj", id+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	if code, _, errs := runCmd(t, e, "sessions", "search", "kiwi"); code != 1 || !strings.Contains(errs, "no index yet") {
		t.Errorf("before any index: %d %q", code, errs)
	}
	code, out, errs := runCmd(t, e, "index", "rebuild")
	if code != 0 || !strings.HasPrefix(out, "indexed 1 sessions, 2 messages") {
		t.Fatalf("index rebuild: %d %q %q", code, out, errs)
	}
	code, out, errs = runCmd(t, e, "sessions", "search", "kiwi", "tests")
	if code != 0 || !strings.Contains(out, "claude:"+id+"  #0 user") || !strings.Contains(out, "[kiwi] [tests]") ||
		!strings.Contains(errs, "paddock serve is not running") {
		t.Errorf("search: %d %q %q", code, out, errs)
	}
	code, out, _ = runCmd(t, e, "sessions", "search", "--json", "--runtime", "claude", "fixtures")
	var hits []struct {
		Runtime, ID, Role string
		Seq               int
	}
	if err := json.Unmarshal([]byte(out), &hits); code != 0 || err != nil || len(hits) != 1 || hits[0].ID != id || hits[0].Seq != 1 || hits[0].Role != "assistant" {
		t.Errorf("search --json: %d %v %q", code, err, out)
	}
	if code, out, _ := runCmd(t, e, "sessions", "search", "--runtime", "codex", "kiwi"); code != 0 || !strings.Contains(out, "no message matches") {
		t.Errorf("another agent: %d %q", code, out)
	}
	for _, args := range [][]string{
		{"sessions", "search"},
		{"sessions", "search", "--since", "yesterday", "kiwi"},
		{"sessions", "search", "--session", id, "kiwi"},
		{"sessions", "search", "--limit", "0", "kiwi"},
		{"sessions"},
		{"index"},
	} {
		if code, _, errs := runCmd(t, e, args...); code == 0 || errs == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
	// Export, from the history itself.
	outFile := filepath.Join(home, "out", "kiwi.md")
	os.MkdirAll(filepath.Dir(outFile), 0o755)
	code, out, errs = runCmd(t, e, "sessions", "export", "--runtime", "claude", "-o", outFile, id)
	if code != 0 || out != "wrote 2 messages to "+outFile+" (markdown)\n" {
		t.Fatalf("export: %d %q %q", code, out, errs)
	}
	if b, err := os.ReadFile(outFile); err != nil || string(b) != "### User\n\nwhere do the kiwi tests live\n\n### Assistant\n\nIn internal/kiwi, next to the fixtures\n" {
		t.Errorf("exported %q %v", b, err)
	}
	if code, _, errs := runCmd(t, e, "sessions", "export", "--runtime", "claude", "-o", outFile, id); code != 1 || !strings.Contains(errs, "exists; --force replaces it") {
		t.Errorf("over an existing file: %d %q", code, errs)
	}
	if code, _, errs := runCmd(t, e, "sessions", "export", "--runtime", "claude", "--format", "jsonl", "--force", "-o", outFile, id); code != 0 {
		t.Errorf("--force: %d %q", code, errs)
	}
	if code, out, _ := runCmd(t, e, "sessions", "export", "--runtime", "claude", "--format", "text", "-o", "-", id); code != 0 || !strings.HasPrefix(out, "User:\nwhere do the kiwi tests live") {
		t.Errorf("to stdout: %d %q", code, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runtime", "claude", "-o", filepath.Join(home, ".claude", "export.md"), id}, "which paddock never writes"},
		{[]string{"--runtime", "claude", "-o", filepath.Join(home, ".claude", "projects", "-proj", "x.md"), id}, "which paddock never writes"},
		{[]string{"--runtime", "claude", "-o", filepath.Join(data, "x.md"), id}, "which paddock never writes"},
		{[]string{"--runtime", "claude", "-o", outFile + "2", "0b5d4c2e-7777-4a2b-9c3d-000000000000"}, "has no session"},
		{[]string{"--runtime", "nosuch", "-o", outFile + "2", id}, `no agent "nosuch"`},
		{[]string{"--runtime", "claude", "--format", "pdf", "-o", outFile + "2", id}, "no format"},
		{[]string{"--runtime", "claude", id}, "usage"},
	} {
		code, _, errs := runCmd(t, e, append([]string{"sessions", "export"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("export %q: %d %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".claude", "export.md")); err == nil {
		t.Error("an export was written into the agent's directory")
	}

	// List, show and status, from the history.
	if code, out, errs := runCmd(t, e, "sessions", "list"); code != 0 || !strings.Contains(out, "claude:"+id) || !strings.Contains(errs, "paddock serve is not running") {
		t.Errorf("list: %d %q %q", code, out, errs)
	}
	if code, out, _ := runCmd(t, e, "sessions", "list", "--live"); code != 0 || strings.Contains(out, id) {
		t.Errorf("list --live: %d %q", code, out)
	}
	code, out, _ = runCmd(t, e, "sessions", "show", "--runtime", "claude", "--limit", "1", "--json", id)
	var shown struct {
		ID       string
		Running  bool
		Messages []struct{ Role, Text string }
	}
	if err := json.Unmarshal([]byte(out), &shown); code != 0 || err != nil || shown.ID != id || shown.Running || len(shown.Messages) != 1 || shown.Messages[0].Text != "In internal/kiwi, next to the fixtures" {
		t.Errorf("show --json: %d %v %q", code, err, out)
	}
	if code, out, _ := runCmd(t, e, "sessions", "status", "--runtime", "claude", id); code != 0 || !strings.Contains(out, "running: false") || strings.Contains(out, "Assistant:") {
		t.Errorf("status: %d %q", code, out)
	}
	if code, _, errs := runCmd(t, e, "sessions", "status", "--runtime", "claude", "nope"); code != 1 || !strings.Contains(errs, "has no session") {
		t.Errorf("status of nothing: %d %q", code, errs)
	}

	// A running paddock serve keeps the index itself: rebuild refuses.
	if err := app.WriteState(data, app.State{PID: os.Getpid()}); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCmd(t, e, "index", "rebuild"); code != 1 || !strings.Contains(errs, "paddock serve is running") {
		t.Errorf("rebuild beside a running serve: %d %q", code, errs)
	}
}
