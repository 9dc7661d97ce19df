package claude

import (
	"context"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// TestLongLineClipped: a message on a line far over the line limit
// (generated here, 12 MB) is read clipped wherever the transcript is
// read — the list, the whole conversation, its newest page from the end
// and the full record — and the person sees its start and a note with
// its size, never nothing.
func TestLongLineClipped(t *testing.T) {
	long := historytest.LongText(12 << 20)
	for _, c := range []struct {
		name  string
		lines []string
		at    int // the long message's place
	}{
		{"in the middle", []string{user("u1", "", "before", 0), answer("a1", "u1", long, 1), user("u2", "a1", "after", 2), answer("a2", "u2", "done", 3)}, 1},
		{"last", []string{user("u1", "", "before", 0), user("u2", "u1", long, 1)}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSession(t, dir, "p", "s1", c.lines...)
			s := newTestScanner(dir)
			info, ok := scanAll(t, s)["s1"]
			if !ok || info.Title != "before" {
				t.Fatalf("listed %v as %q", ok, info.Title)
			}
			msgs, err := s.Conversation(context.Background(), "s1")
			if err != nil || len(msgs) != len(c.lines) {
				t.Fatalf("conversation: %d messages, %v", len(msgs), err)
			}
			historytest.Clipped(t, msgs[c.at].Text, long[:100], "12.0 MB")
			historytest.CheckTailConversation(t, s.TailConversation, "s1", msgs, []int{1, 2, 3, 4})
			evs, err := s.Events(context.Background(), "s1")
			if err != nil {
				t.Fatal(err)
			}
			var texts []session.Message
			for _, e := range evs {
				if e.Kind == session.EventMessage {
					texts = append(texts, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
				}
			}
			if len(texts) != len(msgs) || texts[c.at] != msgs[c.at] {
				t.Errorf("events: %d messages, want the conversation's %d", len(texts), len(msgs))
			}
		})
	}
}
