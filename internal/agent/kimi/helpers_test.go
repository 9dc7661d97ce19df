package kimi

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

	"paddock/internal/session"
)

// copyTree copies the directory src to dst, keeping file mtimes. Tests
// work on copies, never on ../shared or testdata/ themselves.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
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
		copyFile(t, path, target)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(src); err == nil {
		setMtime(t, dst, st.ModTime())
	}
}

func setMtime(t testing.TB, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fake is a synthetic kimi-code session for tests of rules and bad input:
// wire lines are written as given (nil: no wire file), state as given
// ("" : no state.json).
type fake struct {
	bucket, id string
	state      string
	wire       []string
	mtime      time.Time // zero: leave the write time
}

// write places f under home and returns its wire path.
func (f fake) write(t testing.TB, home string) string {
	t.Helper()
	dir := filepath.Join(home, "sessions", f.bucket, f.id)
	if f.state != "" {
		writeFile(t, filepath.Join(dir, "state.json"), f.state)
	}
	wire := filepath.Join(dir, "agents", "main", "wire.jsonl")
	if f.wire != nil {
		writeFile(t, wire, strings.Join(f.wire, "\n")+"\n")
		if !f.mtime.IsZero() {
			setMtime(t, wire, f.mtime)
		}
	}
	return wire
}

// Wire record builders, in kimi-code 2.1.0's shapes.

func recMeta(ms int64) string {
	return `{"type":"metadata","protocol_version":"1.5","created_at":` + itoa(ms) + `}`
}

func recUser(text string, ms int64) string {
	return recMessage("user", text, `{"kind":"user"}`, ms)
}

// recMessage writes a context.append_message; origin is raw JSON ("" for
// none).
func recMessage(role, text, origin string, ms int64) string {
	m := map[string]any{
		"role":      role,
		"content":   []any{map[string]any{"type": "text", "text": text}},
		"toolCalls": []any{},
	}
	if origin != "" {
		m["origin"] = json.RawMessage(origin)
	}
	b, _ := json.Marshal(map[string]any{"type": "context.append_message", "agentId": "main", "message": m, "time": ms})
	return string(b)
}

func recStep(uuid string, ms int64) string {
	return loopRec(map[string]any{"type": "step.begin", "uuid": uuid, "turnId": "0", "step": 1}, ms)
}

func recStepEnd(uuid, reason string, ms int64) string {
	return loopRec(map[string]any{"type": "step.end", "uuid": uuid, "turnId": "0", "step": 1, "finishReason": reason}, ms)
}

func recPart(step, typ, text string, ms int64) string {
	part := map[string]any{"type": typ, "text": text}
	if typ == "think" {
		part = map[string]any{"type": "think", "think": text}
	}
	return loopRec(map[string]any{"type": "content.part", "uuid": step + "-p", "stepUuid": step, "part": part}, ms)
}

func recToolCall(step, id string, ms int64) string {
	return loopRec(map[string]any{"type": "tool.call", "stepUuid": step, "toolCallId": id, "name": "Bash",
		"args": map[string]any{"command": "echo TOOL-CALL-TEXT"}}, ms)
}

func recToolResult(id string, ms int64) string {
	return loopRec(map[string]any{"type": "tool.result", "toolCallId": id,
		"result": map[string]any{"output": "TOOL-RESULT-TEXT"}}, ms)
}

func loopRec(ev map[string]any, ms int64) string {
	b, _ := json.Marshal(map[string]any{"type": "context.append_loop_event", "agentId": "main", "event": ev, "time": ms})
	return string(b)
}

// turn is a complete plain turn: prompt, one step answering it.
func turn(step, prompt, answer string, ms int64) []string {
	return []string{
		recUser(prompt, ms),
		recStep(step, ms+1),
		recPart(step, "text", answer, ms+2),
		recStepEnd(step, "end_turn", ms+3),
		`{"type":"turn.ended","agentId":"main","turnId":0,"reason":"completed","time":` + itoa(ms+4) + `}`,
	}
}

func stateJSON(id, cwd, title string, createdMs int64) string {
	b, _ := json.Marshal(map[string]any{
		"id": id, "version": 2, "cwd": cwd, "title": title, "titleKind": "replaceable",
		"isCustomTitle": false, "createdAt": createdMs, "updatedAt": createdMs + 1000, "archived": false,
		"agents": map[string]any{"main": map[string]any{"type": "main"}},
	})
	return string(b)
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// newTest returns a Scanner over home whose cwd check accepts every
// directory: recorded sessions name directories of another machine.
func newTest(home string, opts ...func(*Options)) *Scanner {
	o := Options{Home: home}
	for _, f := range opts {
		f(&o)
	}
	s := New(o)
	s.dirExists = func(string) bool { return true }
	return s
}

func scanAll(t testing.TB, s *Scanner) []session.Info {
	t.Helper()
	infos, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

func byID(infos []session.Info) map[string]session.Info {
	m := make(map[string]session.Info, len(infos))
	for _, i := range infos {
		m[i.ID] = i
	}
	return m
}

func conversation(t testing.TB, s *Scanner, id string) []session.Message {
	t.Helper()
	msgs, err := s.Conversation(context.Background(), id)
	if err != nil {
		t.Fatalf("Conversation(%s): %v", id, err)
	}
	checkTailConversation(t, s, id, msgs) // every session read here is a case of the tail property
	return msgs
}

// checkMessages applies the preview rules to every conversation:
// roles only user and assistant, no empty or "null"/"None" text,
// timestamps ascending.
func checkMessages(t testing.TB, id string, msgs []session.Message) {
	t.Helper()
	var last time.Time
	for i, m := range msgs {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant {
			t.Errorf("%s message %d: role %q", id, i, m.Role)
		}
		if strings.TrimSpace(m.Text) == "" || m.Text == "null" || m.Text == "None" {
			t.Errorf("%s message %d: text %q", id, i, m.Text)
		}
		if !m.Time.IsZero() {
			if m.Time.Before(last) {
				t.Errorf("%s message %d: time %v before %v", id, i, m.Time, last)
			}
			last = m.Time
		}
	}
}

// texts returns "role: text" of each message.
func texts(msgs []session.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role + ": " + m.Text
	}
	return out
}

func removeAll(path string) error { return os.RemoveAll(path) }
