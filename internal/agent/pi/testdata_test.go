package pi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

// The recordings in the repository's testdata/ (make fixtures) were written
// by the real, pinned Pi driven against the mock model; they are in every
// clone, so these tests never skip.

// recording is the part of testdata/<cli>-<version>/manifest.json these
// tests read.
type recording struct {
	Cwd      string
	Sessions []struct {
		Name  string
		Argv  []string
		Turns []struct{ Prompt, Kind, Outcome, Reply string }
		Files []string
	}
}

func piRecordings(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "pi-*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no testdata/pi-*/ recordings (make fixtures): %v", err)
	}
	return dirs
}

func readRecording(t *testing.T, dir string) recording {
	t.Helper()
	var m recording
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// turn is one typed prompt and the reply the mock gave.
type turn struct{ prompt, reply string }

// TestRecordedSessions lists each recording's Pi agent dir and checks
// every session file against what the recording says was typed and
// answered: id from the header, cwd, title and prompts, and a conversation
// holding exactly the typed prompts as user messages, each followed by the
// mock's reply. A resumed session (--continue) appends to the same file.
func TestRecordedSessions(t *testing.T) {
	for _, dir := range piRecordings(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			m := readRecording(t, dir)
			s := newTestScanner(filepath.Join(dir, "pi"))
			listed := scanAll(t, s)

			// Turns per file, in the order they were typed.
			byFile := map[string][]turn{}
			var order []string
			for _, sess := range m.Sessions {
				for _, f := range sess.Files {
					if _, ok := byFile[f]; !ok {
						order = append(order, f)
					}
					for _, tr := range sess.Turns {
						if strings.HasPrefix(tr.Outcome, "skipped") {
							continue // never reached Pi (no question tool)
						}
						byFile[f] = append(byFile[f], turn{tr.Prompt, tr.Reply})
					}
				}
			}
			if len(listed) != len(order) {
				t.Errorf("listed %d sessions, the recording has %d files", len(listed), len(order))
			}
			for _, f := range order {
				path := filepath.Join(dir, f)
				id, err := IDOf(path)
				if err != nil {
					t.Fatal(err)
				}
				// The file name carries the id too, but the header is the identity.
				if !strings.HasSuffix(f, "_"+id+".jsonl") {
					t.Errorf("%s: header id %s not in the file name", f, id)
				}
				checkRecordedSession(t, s, listed[id], byFile[f], m.Cwd, path)
			}
		})
	}
}

func checkRecordedSession(t *testing.T, s *Scanner, info session.Info, turns []turn, cwd, path string) {
	t.Helper()
	ctx := context.Background()
	if info.ID == "" {
		t.Errorf("%s not listed", path)
		return
	}
	abs, _ := filepath.Abs(path)
	prompts := make([]string, len(turns))
	for i, tr := range turns {
		prompts[i] = tr.prompt
	}
	want := session.Info{
		Runtime: "pi", ID: info.ID, Cwd: cwd, Project: "proj",
		Title: prompts[0], TitleSource: session.TitlePrompt,
		FirstPrompt: prompts[0], LastPrompt: prompts[len(prompts)-1], PromptCount: len(prompts),
		Model: "mock-model", Path: abs,
		Created: info.Created, Updated: info.Updated, TimeSource: info.TimeSource,
	}
	if info != want {
		t.Errorf("Info:\n got %+v\nwant %+v", info, want)
	}
	if info.Created.IsZero() || !strings.Contains(filepath.Base(path), strings.NewReplacer(":", "-", ".", "-").Replace(info.Created.Format("2006-01-02T15:04:05.000Z"))) {
		t.Errorf("Created %v does not match the file name %s", info.Created, filepath.Base(path))
	}

	msgs, err := s.Conversation(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkConversation(t, msgs)
	if got := userTexts(msgs); !slices.Equal(got, prompts) {
		t.Errorf("user messages %q, want %q", got, prompts)
	}
	// Each prompt is answered by the mock's reply before the next prompt.
	u := -1
	answered := make([]bool, len(turns))
	for _, m := range msgs {
		if m.Role == session.RoleUser {
			u++
			continue
		}
		if u >= 0 && m.Text == turns[u].reply {
			answered[u] = true
		}
	}
	for i, ok := range answered {
		if !ok {
			t.Errorf("turn %q: reply %q not in the conversation %+v", turns[i].prompt, turns[i].reply, msgs)
		}
	}
	last := msgs[len(msgs)-1]
	if last.Role != session.RoleAssistant || last.Text != turns[len(turns)-1].reply {
		t.Errorf("last message %+v, want the last reply", last)
	}
	st, _ := os.Stat(path)
	if u, src := session.EffectiveTime(st.ModTime(), last.Time); !info.Updated.Equal(u) || info.TimeSource != src {
		t.Errorf("Updated %v (%s), want %v (%s)", info.Updated, info.TimeSource, u, src)
	}
}

// TestRecordedChatExact pins the plain two-turn session to the very text
// Pi showed, in order, with the recorded times.
func TestRecordedChatExact(t *testing.T) {
	for _, dir := range piRecordings(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			m := readRecording(t, dir)
			var file string
			for _, sess := range m.Sessions {
				if sess.Name == "chat" {
					file = filepath.Join(dir, sess.Files[0])
				}
			}
			id, err := IDOf(file)
			if err != nil {
				t.Fatal(err)
			}
			s := newTestScanner(filepath.Join(dir, "pi"))
			msgs, err := s.Conversation(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, m.Role+": "+m.Text)
				if m.Time.IsZero() || m.Time.Year() < 2026 || m.Time.Location() != time.UTC {
					t.Errorf("message time %v", m.Time)
				}
			}
			want := []string{
				"user: hello paddock one", "assistant: Mock reply: done (turn 1).",
				"user: second turn please", "assistant: Mock reply: done (turn 2).",
			}
			if !slices.Equal(got, want) {
				t.Errorf("conversation\n got %q\nwant %q", got, want)
			}
		})
	}
}
