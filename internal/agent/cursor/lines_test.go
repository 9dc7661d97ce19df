package cursor

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// TestLongLineClipped: a message on a transcript line far over the line
// limit (generated here, 12 MB) is read clipped — in the list, the
// conversation and the full record — and the person sees its start and a
// note with its size, never nothing.
func TestLongLineClipped(t *testing.T) {
	root := t.TempDir()
	long := historytest.LongText(12 << 20)
	lines := strings.Join([]string{
		`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nbefore\n</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"text","text":"` + long + `"}]}}`,
		`{"role":"user","message":{"content":"after"}}`,
	}, "\n")
	writeFile(t, filepath.Join(root, "projects", "p", "agent-transcripts", "long-id.jsonl"), []byte(lines))
	s := New(Options{Dir: root})
	if info, ok := scanAll(t, s)["long-id"]; !ok || info.FirstPrompt != "before" || info.LastPrompt != "after" {
		t.Fatalf("listed %v: %+v", ok, info)
	}
	msgs, err := s.Conversation(context.Background(), "long-id")
	if err != nil || len(msgs) != 3 {
		t.Fatalf("conversation: %q, %v", historytest.Texts(msgs), err)
	}
	historytest.Clipped(t, msgs[1].Text, long[:100], "12.0 MB")
	evs, err := s.Events(context.Background(), "long-id")
	if err != nil {
		t.Fatal(err)
	}
	var shown []session.Message
	for _, e := range evs {
		if e.Kind == session.EventMessage {
			shown = append(shown, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
		}
	}
	if !slices.Equal(shown, msgs) {
		t.Errorf("events: %q, want the conversation's", historytest.Texts(shown))
	}
}
