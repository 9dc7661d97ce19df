package pi

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/session"
	"paddock/internal/testkit/fuzzseed"
)

// Bad input degrades per line and per file: a broken line is skipped, a
// broken file is left out, nothing crashes, and everything else is listed.
func TestBadLines(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--home-u-proj--")
	huge := `{"type":"message","id":"big","parentId":"u1","message":{"role":"user","content":"` +
		strings.Repeat("x", maxLineBytes+10) + `"}}` + "\n"
	// Raw invalid bytes inside a JSON string (json.Marshal would repair them).
	invalidUTF8 := strings.Replace(msgLine("u2", "a1", "user", "caf@ bad bytes", 4), "caf@", "caf\xe9", 1)
	file := headerLine("bad", proj, 0) +
		msgLine("u1", "", "user", "first", 1) +
		"not json at all\n" +
		"[1,2,3]\n" +
		"\n" +
		`{"type":"message","id":"x","parentId":` + "\n" + // torn
		huge +
		msgLine("a1", "u1", "assistant", "answer one", 3) +
		invalidUTF8 +
		strings.ReplaceAll(msgLine("a2", "u2", "assistant", "crlf answer", 5), "\n", "\r\n") +
		`{"type":"message","id":"u3","parentId":"a2","timestamp":"` + ts(6) + `","message":{"role":"user","content":"torn last` // Pi mid-append
	writeFile(t, filepath.Join(dir, "bad.jsonl"), file)
	writeChat(t, agent, "good", proj, 100, "fine")

	s := newTestScanner(agent)
	listed := scanAll(t, s)
	if len(listed) != 2 {
		t.Fatalf("listed %v", listed)
	}
	info := listed["bad"]
	if info.FirstPrompt != "first" || !utf8.ValidString(info.LastPrompt) || !strings.Contains(info.LastPrompt, "bad bytes") {
		t.Errorf("info %+v", info)
	}
	msgs, err := s.Conversation(context.Background(), "bad")
	if err != nil {
		t.Fatal(err)
	}
	checkConversation(t, msgs)
	var got []string
	for _, m := range msgs {
		if !utf8.ValidString(m.Text) {
			t.Errorf("invalid UTF-8 in %q", m.Text)
		}
		got = append(got, m.Text)
	}
	if want := []string{"first", "answer one", "caf\uFFFD bad bytes", "crlf answer"}; !slices.Equal(got, want) {
		t.Errorf("conversation %q, want %q", got, want)
	}
}

// A file that cannot be read (removed between the stat and the read, or
// unreadable) is left out of the list, alone.
func TestUnreadableFile(t *testing.T) {
	agent := t.TempDir()
	writeChat(t, agent, "good", proj, 0, "x")
	bad := writeChat(t, agent, "dir-not-file", proj, 10, "x")
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(bad, 0o755); err != nil { // a directory named *.jsonl
		t.Fatal(err)
	}
	listed := scanAll(t, newTestScanner(agent))
	if len(listed) != 1 || listed["good"].ID == "" {
		t.Errorf("listed %v", listed)
	}
}

// The parsers never panic, whatever the bytes.
func FuzzParse(f *testing.F) {
	seeds := []string{
		headerLine("x", proj, 0),
		msgLine("a", "b", "user", "hi", 1),
		`{"type":"session","id":"x"}` + "\n" + `{"type":"message","message":{"role":"user","content":[{"type":"text","text":"x"}]}}`,
		`{"type":"message","id":"a","parentId":"a","message":{"role":"assistant","content":"x"}}`,
		`{"type":"session_info","name":{"x":1}}`,
		`{"type":"message","message":{"content":[[[[]]]]}}`,
		"\xff\xfe",
		`{"timestamp":1e400}`,
		`{"timestamp":"2026-13-45T99:99:99Z"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	for _, l := range fuzzseed.Lines(fuzzseed.Files(f, fuzzseed.Of("pi", ".jsonl")), 12, 4<<10) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = parseEntry(data)
		_, _ = parseHeader(data)
		var b summaryBuilder
		b.read(bytes.NewReader(data), int64(len(data)))
		b.finish()
		tr, _ := readTranscript(context.Background(), bytes.NewReader(data))
		if tr != nil {
			for _, m := range tr.messages() {
				if m.Role != "user" && m.Role != "assistant" || strings.TrimSpace(m.Text) == "" {
					t.Fatalf("bad message %+v", m)
				}
			}
		}
		full, _ := readTranscriptWith(context.Background(), bytes.NewReader(data), &transcript{withEvents: true})
		if full != nil {
			var fromEvents []session.Message
			for _, e := range full.events() {
				for _, s := range []string{e.Text, e.Tool, e.ToolID, e.Input} {
					if !utf8.ValidString(s) {
						t.Fatalf("invalid UTF-8 in event %+v", e)
					}
				}
				if e.Kind == session.EventMessage {
					fromEvents = append(fromEvents, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
				}
			}
			if msgs := full.messages(); !slices.Equal(fromEvents, msgs) {
				t.Fatalf("events' messages %q, messages %q", fromEvents, msgs)
			}
		}
	})
}
