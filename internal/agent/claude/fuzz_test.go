package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// FuzzParseLine feeds arbitrary lines to the Claude line parser and to
// everything that consumes its records. Nothing may panic, everything it
// returns must be valid UTF-8, and what encoding/json accepts it must accept.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		user("u1", "", "hello", 0),
		answer("a1", "u1", "hi", 1),
		`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"x"}]}]}}`,
		`{"type":"custom-title","customTitle":"name"}`,
		`{"type":"summary","summary":"s","leafUuid":"u1"}`,
		`{"type":"agent-name","agentName":"alice"}`,
		`{"type":"user","origin":{"kind":"human"},"isMeta":null,"message":{"content":"<command-name>/x</command-name>"}}`,
		`{"type":"user","message":{"content":"\ud800 \"q\" \\"}}`,
		"{\"type\":\"user\",\"message\":{\"content\":\"\xff\xfe\"}}",
		`{"a":[{"b":[{"c":[]}]}]`,
		`"massive error"`, `42`, `[1]`, `{`, `}`, ``, `{"type":`, `{"":""}`,
	} {
		f.Add([]byte(s))
	}
	for _, l := range fixtureSeedLines(f) {
		f.Add(l)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := parseLine(data)
		if err == nil {
			checkRecord(t, &r)
		}
		if wantValid(data) && err != nil {
			t.Errorf("valid JSON object rejected: %v", err)
		}
		// Field by field agreement, where the two may legitimately differ
		// in nothing: no escapes, no invalid UTF-8 (replaced per byte by
		// encoding/json, per run by strings.ToValidUTF8).
		if wantValid(data) && !bytes.Contains(data, []byte(`\`)) && utf8.Valid(data) {
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				if typ, ok := m["type"].(string); ok && typ != r.Type {
					t.Errorf("type %q, encoding/json says %q", r.Type, typ)
				}
				if cwd, ok := m["cwd"].(string); ok && cwd != r.Cwd {
					t.Errorf("cwd %q, encoding/json says %q", r.Cwd, cwd)
				}
			}
		}

		var b summaryBuilder
		b.line(data)
		b.line(data)
		sum := b.finish()
		for _, s := range []string{sum.title, sum.firstPrompt, sum.lastPrompt, sum.cwd, sum.model} {
			if !utf8.ValidString(s) {
				t.Errorf("invalid UTF-8 in summary: %q", s)
			}
		}
		var tr transcript
		if err == nil {
			tr.add(&r)
			tr.add(&r)
		}
		for _, m := range tr.messages() {
			if m.Text == "" || !utf8.ValidString(m.Text) {
				t.Errorf("bad message text %q", m.Text)
			}
		}
		full := transcript{withEvents: true}
		if err == nil {
			full.add(&r)
			full.add(&r)
		}
		evs := full.events()
		var fromEvents []session.Message
		for _, e := range evs {
			for _, s := range []string{e.Text, e.Tool, e.ToolID, e.Input} {
				if !utf8.ValidString(s) {
					t.Errorf("invalid UTF-8 in event %+v", e)
				}
			}
			if e.Kind == session.EventMessage {
				fromEvents = append(fromEvents, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
			}
		}
		if msgs := full.messages(); !slices.Equal(fromEvents, msgs) {
			t.Errorf("events' messages %q, messages %q", fromEvents, msgs)
		}
	})
}

func checkRecord(t *testing.T, r *record) {
	t.Helper()
	for _, s := range append([]string{r.Type, r.UUID, r.Parent, r.Origin, r.Cwd, r.Model, r.MessageID, r.Value, r.LeafUUID}, r.Texts...) {
		if !utf8.ValidString(s) {
			t.Errorf("invalid UTF-8 %q", s)
		}
	}
	for _, get := range []func() (string, bool){r.prompt, r.answer} {
		if text, ok := get(); ok && (text == "" || text != strings.TrimSpace(text) || injected(text)) {
			t.Errorf("shown text %q", text)
		}
	}
}

// wantValid reports whether data is a JSON object that the scanner must
// accept: valid per encoding/json and nested no deeper than maxDepth.
func wantValid(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' || !json.Valid(data) {
		return false
	}
	return bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) < maxDepth
}

// fixtureSeedLines returns the lines of the Claude fixtures (up to 64 KiB
// each) when ../shared is there; the fuzz target runs on its inline seeds
// alone otherwise.
func fixtureSeedLines(f *testing.F) [][]byte {
	if !sharedPresent() && os.Getenv("SHARED_REQUIRED") != "1" {
		return nil
	}
	base := sharedtest.Fixtures(f)
	var out [][]byte
	for _, root := range fixtureRoots {
		_ = filepath.WalkDir(filepath.Join(base, root), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
				return err
			}
			file, err := os.Open(path)
			if err != nil {
				return err
			}
			defer file.Close()
			sc := bufio.NewScanner(file)
			sc.Buffer(nil, 64<<10)
			for sc.Scan() {
				out = append(out, bytes.Clone(sc.Bytes()))
			}
			return nil // a longer line just ends this file's seeds
		})
	}
	return out
}
