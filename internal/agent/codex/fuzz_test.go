package codex

import (
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

// rolloutSeeds are runs of lines of every Codex recording: rollouts,
// session indexes and the exec output that holds the same records.
func rolloutSeeds(f *testing.F) [][]byte {
	return fuzzseed.Chunks(fuzzseed.Files(f, func(rel string) bool {
		return fuzzseed.Of("codex", ".jsonl")(rel) && !strings.HasSuffix(rel, "mock-requests.jsonl")
	}), 8, 6, 8<<10)
}

// FuzzRollout feeds arbitrary bytes to the rollout readers as a file:
// reading never fails on content, the record's message events are the
// conversation (rollbacks included), and the listing's summary is valid
// text.
func FuzzRollout(f *testing.F) {
	for _, s := range rolloutSeeds(f) {
		f.Add(s)
	}
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"user_message","message":"a"}}` + "\n" +
		`{"type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}` + "\n" +
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"b"}]}}`))
	path := filepath.Join(f.TempDir(), "rollout.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		conv, err := readConversation(ctx, path)
		if err != nil {
			t.Fatalf("conversation: %v", err)
		}
		full, err := readRollout(ctx, path, &conversation{withEvents: true})
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		var fromEvents []session.Message
		for _, e := range full.events {
			for _, s := range []string{e.Text, e.Tool, e.ToolID, e.Input} {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in event %+v", e)
				}
			}
			if e.Kind == session.EventMessage {
				fromEvents = append(fromEvents, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
			}
		}
		if !slices.Equal(fromEvents, conv.msgs) {
			t.Fatalf("events' messages %q, conversation %q", fromEvents, conv.msgs)
		}
		for _, m := range conv.msgs {
			if m.Role != session.RoleUser && m.Role != session.RoleAssistant || strings.TrimSpace(m.Text) == "" || !utf8.ValidString(m.Text) {
				t.Fatalf("bad message %+v", m)
			}
		}
		sum, err := readSummary(path, int64(len(data)))
		if err != nil {
			t.Fatalf("summary: %v", err)
		}
		for _, s := range []string{sum.parent, sum.cwd, sum.model, sum.firstPrompt, sum.lastPrompt} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in summary %+v", sum)
			}
		}
		if sum.prompts < 0 || (sum.prompts == 0) != (sum.firstPrompt == "") {
			t.Fatalf("%d prompts, first %q", sum.prompts, sum.firstPrompt)
		}
	})
}

// maxTailInput bounds a tail fuzz input: every edge rule shows on a few
// lines, and each input is read whole and from several windows.
const maxTailInput = 8 << 10

// FuzzTail: reading a rollout from its end gives exactly the last n
// messages of reading it whole, whatever the bytes, from windows that
// start inside lines as well as between them.
func FuzzTail(f *testing.F) {
	for _, s := range rolloutSeeds(f) {
		f.Add(s)
	}
	path := filepath.Join(f.TempDir(), "rollout.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxTailInput {
			return // longer inputs only repeat the work of shorter ones
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		c := tailer(t).Check(t, path)
		c.Ns, c.Windows = []int{1, 3}, []int64{7, int64(len(data)/2 + 1)}
		c.Run(t)
	})
}

// FuzzIndex: session_index.jsonl of any bytes reads as names of ids,
// each valid text on one line, however it is cut.
func FuzzIndex(f *testing.F) {
	for _, file := range fuzzseed.Files(f, fuzzseed.Of("codex", "session_index.jsonl")) {
		f.Add(file.Data)
	}
	f.Add([]byte(`{"id":"01a22933-9fa0-7061-a419-c6368c8164b9","thread_name":"fix  the\nbuild","updated_at":"2026-11-29T21:26:26Z"}` + "\n" + `{"id":1}`))
	path := filepath.Join(f.TempDir(), "session_index.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		names, err := readIndex(path, int64(len(data)))
		if err != nil {
			t.Fatalf("index: %v", err)
		}
		for id, name := range names {
			if id == "" || !utf8.ValidString(id) || !utf8.ValidString(name) || strings.ContainsAny(name, "\n\r\t") ||
				utf8.RuneCountInString(name) > maxTitleRunes {
				t.Fatalf("name %q of %q", name, id)
			}
		}
	})
}
