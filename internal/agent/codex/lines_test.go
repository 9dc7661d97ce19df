package codex

import (
	"context"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// TestLongLineClipped: a message on lines far over the line limit
// (generated here, 12 MB; Codex writes it twice, as a response item and
// as an event) is read clipped wherever the rollout is read — the list,
// the whole conversation, its newest page from the end and the full
// record — and the person sees its start and a note with its size, once.
func TestLongLineClipped(t *testing.T) {
	long := historytest.LongText(12 << 20)
	for _, c := range []struct {
		name  string
		lines []any
		at    int // the long message's place
	}{
		{"a prompt in the middle", lines(meta(0, id(1), "/p"), turn(1, "before", "1"), turn(3, long, "done"), turn(5, "after", "2")), 2},
		{"an answer last", lines(meta(0, id(1), "/p"), turn(1, "before", long)), 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			h.rollout(id(1), time.Time{}, c.lines...)
			s := newTestScanner(h.dir)
			got := scanAll(t, s)
			if len(got) != 1 || got[0].Title != "before" {
				t.Fatalf("listed %+v", got)
			}
			msgs, err := s.Conversation(context.Background(), id(1))
			if err != nil || len(msgs) <= c.at {
				t.Fatalf("conversation: %q, %v", historytest.Texts(msgs), err)
			}
			historytest.Clipped(t, msgs[c.at].Text, long[:100], "12.0 MB")
			historytest.CheckTailConversation(t, s.TailConversation, id(1), msgs, []int{1, 2, 3, 4, 10})
			evs, err := s.Events(context.Background(), id(1))
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
				t.Errorf("events: %q, want the conversation's %q", historytest.Texts(texts), historytest.Texts(msgs))
			}
		})
	}
}
