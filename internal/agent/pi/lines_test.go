package pi

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// TestLongLineClipped: a message on a line far over the line limit
// (generated here, 12 MB) is read clipped wherever the session file is
// read — the list, the whole conversation, its newest page from the end
// and the full record — and the person sees its start and a note with
// its size, never nothing.
func TestLongLineClipped(t *testing.T) {
	long := historytest.LongText(12 << 20)
	for _, c := range []struct {
		name string
		file string
		at   int // the long message's place
	}{
		{"in the middle", headerLine("s1", proj, 0) + msgLine("u0", "", "user", "before", 1) + msgLine("a0", "u0", "assistant", long, 2) +
			msgLine("u1", "a0", "user", "after", 3) + msgLine("a1", "u1", "assistant", "done", 4), 1},
		{"last", headerLine("s1", proj, 0) + msgLine("u0", "", "user", "before", 1) + msgLine("u1", "u0", "user", long, 2), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			agent := t.TempDir()
			writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "s1.jsonl"), c.file)
			s := newTestScanner(agent)
			if info, ok := scanAll(t, s)["s1"]; !ok || info.FirstPrompt != "before" {
				t.Fatalf("listed %v: %+v", ok, info)
			}
			msgs, err := s.Conversation(context.Background(), "s1")
			if err != nil || len(msgs) <= c.at {
				t.Fatalf("conversation: %q, %v", historytest.Texts(msgs), err)
			}
			historytest.Clipped(t, msgs[c.at].Text, long[:100], "12.0 MB")
			historytest.CheckTailConversation(t, s.TailConversation, "s1", msgs, []int{1, 2, 3, 4, 10})
			evs, err := s.Events(context.Background(), "s1")
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
		})
	}
}
