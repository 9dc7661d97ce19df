package pi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

// newTestScanner is a Scanner over dir for which every cwd exists: the
// recordings' cwds (/tmp/paddock-fixtures-home/proj, /Users/alice/…) are
// only on the machines that wrote them. Tests of the cwd rule set
// dirExists themselves.
func newTestScanner(dir string, opts ...func(*Options)) *Scanner {
	o := Options{Dir: dir}
	for _, f := range opts {
		f(&o)
	}
	s := New(o)
	s.dirExists = func(string) bool { return true }
	return s
}

func scanAll(t *testing.T, s *Scanner) map[string]session.Info {
	t.Helper()
	infos, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]session.Info, len(infos))
	for _, in := range infos {
		if _, dup := out[in.ID]; dup {
			t.Errorf("Scan listed %s twice", in.ID)
		}
		out[in.ID] = in
	}
	return out
}

func ids(infos []session.Info) []string {
	out := make([]string, len(infos))
	for i, in := range infos {
		out[i] = in.ID
	}
	return out
}

// copyTree copies the directory src into dst (created), files only.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		return copyFile(p, target)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func writeFile(t *testing.T, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func setMtime(t *testing.T, path string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

// A synthetic session file in Pi 0.73.1's format (the recordings' shapes).
// Lines are built with encoding/json so texts are escaped as Pi escapes
// them.

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func ts(min int) string {
	return t0.Add(time.Duration(min) * time.Minute).Format("2006-01-02T15:04:05.000Z")
}

// jsonLine writes v the way Pi does (JSON.stringify of objects built in
// this order): type, version, id, parentId and timestamp first, a
// message's role first, the other keys after them.
func jsonLine(v map[string]any) string {
	return string(ordered(v, "type", "version", "id", "parentId", "timestamp")) + "\n"
}

func ordered(v map[string]any, first ...string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	keys := slices.Sorted(maps.Keys(v))
	slices.SortStableFunc(keys, func(x, y string) int {
		ix, iy := slices.Index(first, x), slices.Index(first, y)
		if ix < 0 {
			ix = len(first)
		}
		if iy < 0 {
			iy = len(first)
		}
		return ix - iy
	})
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		var vb []byte
		if m, ok := v[k].(map[string]any); ok && k == "message" {
			vb = ordered(m, "role")
		} else {
			var err error
			if vb, err = json.Marshal(v[k]); err != nil {
				panic(err)
			}
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func headerLine(id, cwd string, min int) string {
	return jsonLine(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": ts(min), "cwd": cwd})
}

// msgLine is a v3 message entry; parent "" writes parentId null.
func msgLine(id, parent, role, text string, min int) string {
	var p any
	if parent != "" {
		p = parent
	}
	content := []any{map[string]any{"type": "text", "text": text}}
	m := map[string]any{"role": role, "content": content, "timestamp": t0.Add(time.Duration(min) * time.Minute).UnixMilli()}
	if role == "assistant" {
		m["model"], m["provider"], m["stopReason"] = "mock-model", "mock", "stop"
	}
	return jsonLine(map[string]any{"type": "message", "id": id, "parentId": p, "timestamp": ts(min), "message": m})
}

func nameLine(id, parent, name string, min int) string {
	return jsonLine(map[string]any{"type": "session_info", "id": id, "parentId": parent, "timestamp": ts(min), "name": name})
}

// chat writes a linear v3 session with the given prompts, each answered
// "reply to <prompt>", one minute apart from minute start.
func chat(id, cwd string, start int, prompts ...string) string {
	var b strings.Builder
	b.WriteString(headerLine(id, cwd, start))
	parent := ""
	for i, p := range prompts {
		u, a := fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i)
		b.WriteString(msgLine(u, parent, "user", p, start+2*i))
		b.WriteString(msgLine(a, u, "assistant", "reply to "+p, start+2*i+1))
		parent = a
	}
	return b.String()
}

// sessionFile is where Pi 0.73.1 puts a session of cwd created at minute.
func sessionFile(agentDir, cwd, id string, min int) string {
	folder := "--" + strings.ReplaceAll(strings.TrimPrefix(cwd, "/"), "/", "-") + "--"
	name := strings.NewReplacer(":", "-", ".", "-").Replace(ts(min)) + "_" + id + ".jsonl"
	return filepath.Join(agentDir, "sessions", folder, name)
}

// writeChat writes chat(...) at its Pi path with its mtime at the last
// answer, and returns the path.
func writeChat(t *testing.T, agentDir, id, cwd string, start int, prompts ...string) string {
	t.Helper()
	p := sessionFile(agentDir, cwd, id, start)
	writeFile(t, p, chat(id, cwd, start, prompts...))
	setMtime(t, p, t0.Add(time.Duration(start+2*len(prompts)-1)*time.Minute))
	return p
}

func userTexts(msgs []session.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == session.RoleUser {
			out = append(out, m.Text)
		}
	}
	return out
}

// checkConversation applies the preview rules to any conversation: only
// user and assistant roles, no blank text, no "None", times ascending.
func checkConversation(t *testing.T, msgs []session.Message) {
	t.Helper()
	var last time.Time
	for i, m := range msgs {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant {
			t.Errorf("message %d has role %q", i, m.Role)
		}
		if strings.TrimSpace(m.Text) == "" || m.Text == "None" || m.Text == "null" {
			t.Errorf("message %d has text %q", i, m.Text)
		}
		if !m.Time.IsZero() {
			if m.Time.Before(last) {
				t.Errorf("message %d at %v is before the one before it (%v)", i, m.Time, last)
			}
			last = m.Time
		}
	}
}
