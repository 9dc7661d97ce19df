package codex

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// repoRecording is the real Codex 0.169.0 recording in the repository
// (testdata/README.md): a usable Codex home.
const repoRecording = "../../../testdata/codex-0.169.0"

// copyTree copies the directory src into a fresh temporary directory and
// returns it. Fixture trees are read-only and shared; anything that opens
// a SQLite file or changes files works on a copy.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return copyFile(path, target)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, st.ModTime(), st.ModTime())
}

// newTestScanner returns a Scanner over dir that keeps sessions whose
// recorded working directory does not exist on this machine.
func newTestScanner(dir string) *Scanner {
	return New(Options{Dir: dir, KeepMissingCwd: true})
}

func scanAll(t testing.TB, s *Scanner) []session.Info {
	t.Helper()
	infos, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

func ids(infos []session.Info) []string {
	var out []string
	for _, i := range infos {
		out = append(out, i.ID)
	}
	return out
}

func byID(infos []session.Info) map[string]session.Info {
	m := make(map[string]session.Info, len(infos))
	for _, i := range infos {
		m[i.ID] = i
	}
	return m
}

// checkInfo asserts what every listed session must satisfy.
func checkInfo(t testing.TB, i session.Info) {
	t.Helper()
	if i.Runtime != "codex" || !validID(i.ID) || i.Updated.IsZero() || i.Title == "" {
		t.Errorf("incomplete entry: %+v", i)
	}
	for _, s := range []string{i.Title, i.FirstPrompt, i.LastPrompt, i.Cwd, i.Model} {
		if !utf8.ValidString(s) || s == "None" || s == "null" || s == "<nil>" {
			t.Errorf("%s: bad text %q", i.ID, s)
		}
	}
	if strings.ContainsAny(i.Title, "\n\r\t") || utf8.RuneCountInString(i.Title) > maxTitleRunes {
		t.Errorf("%s: title %q is not one short line", i.ID, i.Title)
	}
	if i.Live != (i.PID > 0) {
		t.Errorf("%s: live %v with pid %d", i.ID, i.Live, i.PID)
	}
	if i.Error != "" { // recordings and well-formed rollouts read whole
		t.Errorf("%s: Error %q", i.ID, i.Error)
	}
}

// checkMessages asserts the preview rules on a conversation: roles only user
// and assistant, no empty or "None" text, valid UTF-8, times ascending.
func checkMessages(t testing.TB, id string, msgs []session.Message) {
	t.Helper()
	var last time.Time
	for _, m := range msgs {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant {
			t.Errorf("%s: role %q", id, m.Role)
		}
		if strings.TrimSpace(m.Text) == "" || m.Text == "None" || !utf8.ValidString(m.Text) {
			t.Errorf("%s: bad text %q", id, m.Text)
		}
		if !m.Time.IsZero() {
			if m.Time.Before(last) {
				t.Errorf("%s: time goes back at %q", id, m.Text)
			}
			last = m.Time
		}
	}
}

// texts renders a conversation as "role: text" lines.
func texts(msgs []session.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

// home is a synthetic Codex home under construction.
type home struct {
	t   testing.TB
	dir string
}

func newHome(t testing.TB) *home {
	return &home{t: t, dir: t.TempDir()}
}

// rollout writes sessions/2026/01/02/rollout-2026-01-02T10-00-00-<id>.jsonl
// with the given lines (each marshalled if not a string) and mtime.
func (h *home) rollout(id string, mtime time.Time, lines ...any) string {
	h.t.Helper()
	return h.file(filepath.Join("sessions", "2026", "01", "02", "rollout-2026-01-02T10-00-00-"+id+".jsonl"), mtime, lines...)
}

// file writes a JSONL file under the home.
func (h *home) file(rel string, mtime time.Time, lines ...any) string {
	h.t.Helper()
	var b strings.Builder
	for _, l := range lines {
		data, err := jsonLine(l)
		if err != nil {
			h.t.Fatal(err)
		}
		b.Write(data)
	}
	path := filepath.Join(h.dir, rel)
	writeFile(h.t, path, b.String())
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			h.t.Fatal(err)
		}
	}
	return path
}

// jsonLine renders one line: a string as is, anything else as JSON.
func jsonLine(l any) ([]byte, error) {
	if s, ok := l.(string); ok {
		return []byte(s + "\n"), nil
	}
	data, err := json.Marshal(l)
	return append(data, '\n'), err
}

// Rollout line builders, shaped like Codex 0.169's.

var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

func at(sec int) string { return t0.Add(time.Duration(sec) * time.Second).Format(time.RFC3339Nano) }

func env(sec int, typ string, payload map[string]any) map[string]any {
	return map[string]any{"timestamp": at(sec), "type": typ, "payload": payload}
}

func meta(sec int, id, cwd string, extra ...any) map[string]any {
	p := map[string]any{"id": id, "session_id": id, "timestamp": at(sec), "cwd": cwd,
		"originator": "codex-tui", "cli_version": "0.169.0", "source": "cli", "thread_source": "user",
		"base_instructions": map[string]any{"text": strings.Repeat("You are Codex. ", 200)}}
	for i := 0; i+1 < len(extra); i += 2 {
		p[extra[i].(string)] = extra[i+1]
	}
	return env(sec, "session_meta", p)
}

func turnContext(sec int, cwd, model string) map[string]any {
	return env(sec, "turn_context", map[string]any{"cwd": cwd, "model": model})
}

func respMsg(sec int, role, text string) map[string]any {
	kind := "input_text"
	if role == "assistant" {
		kind = "output_text"
	}
	return env(sec, "response_item", map[string]any{"type": "message", "role": role,
		"content": []any{map[string]any{"type": kind, "text": text}}})
}

func userItem(sec int, text string) map[string]any {
	return env(sec, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{
		"type": "UserMessage", "content": []any{map[string]any{"type": "text", "text": text}}}})
}

func agentItem(sec int, text string) map[string]any {
	return env(sec, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{
		"type": "AgentMessage", "content": []any{map[string]any{"type": "Text", "text": text}}}})
}

func userEvent(sec int, text string) map[string]any {
	return env(sec, "event_msg", map[string]any{"type": "user_message", "message": text})
}

func agentEvent(sec int, text string) map[string]any {
	return env(sec, "event_msg", map[string]any{"type": "agent_message", "message": text})
}

// turn is one 0.169-style turn: the prompt as a response item and as an
// item_completed event, the answer as an event and a response item.
func turn(sec int, prompt, answer string) []any {
	return []any{respMsg(sec, "user", prompt), userItem(sec, prompt), agentItem(sec+1, answer), respMsg(sec+1, "assistant", answer)}
}

func lines(parts ...any) []any {
	var out []any
	for _, p := range parts {
		if l, ok := p.([]any); ok {
			out = append(out, l...)
		} else {
			out = append(out, p)
		}
	}
	return out
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sharedtestFixtures(t testing.TB, elem ...string) string {
	t.Helper()
	return sharedtest.Fixtures(t, elem...)
}
