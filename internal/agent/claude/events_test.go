package claude

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// messagesOf is the EventMessage subsequence of evs, as Messages.
func messagesOf(evs []session.Event) []session.Message {
	var out []session.Message
	for _, e := range evs {
		if e.Kind == session.EventMessage {
			out = append(out, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
		}
	}
	return out
}

// checkEvents checks what holds for every session's events: its messages
// are exactly Conversation's, every event has the fields of its kind, and
// every result follows the call it answers.
func checkEvents(t *testing.T, s *Scanner, id string) []session.Event {
	t.Helper()
	evs, err := s.Events(t.Context(), id)
	if err != nil {
		t.Fatalf("Events(%s): %v", id, err)
	}
	historytest.CheckStream(t, id, evs, func(fn func(session.Event) error) error { return s.EachEvent(t.Context(), id, fn) })
	msgs, err := s.Conversation(t.Context(), id)
	if err != nil {
		t.Fatalf("Conversation(%s): %v", id, err)
	}
	if got := messagesOf(evs); !slices.Equal(got, msgs) {
		t.Errorf("%s: the events' messages differ from Conversation:\n events %q\n conv   %q", id, got, msgs)
	}
	calls := map[string]bool{}
	for i, e := range evs {
		switch e.Kind {
		case session.EventMessage:
		case session.EventThinking:
			if strings.TrimSpace(e.Text) == "" {
				t.Errorf("%s: event %d: blank thinking", id, i)
			}
		case session.EventToolCall:
			if e.Tool == "" || e.ToolID == "" || (e.Input != "" && !json.Valid([]byte(e.Input))) {
				t.Errorf("%s: event %d: call %+v", id, i, e)
			}
			calls[e.ToolID] = true
		case session.EventToolResult:
			if e.ToolID == "" || len(e.Text) > history.MaxOutput || !utf8.ValidString(e.Text) {
				t.Errorf("%s: event %d: result %+v", id, i, e)
			}
		case session.EventImage:
			if !strings.HasPrefix(e.MediaType, "image/") || e.Size == 0 || (e.Data != "" && len(e.Data) != e.Size) {
				t.Errorf("%s: event %d: image %s of %d bytes (%d held)", id, i, e.MediaType, e.Size, len(e.Data))
			}
		default:
			t.Errorf("%s: event %d: kind %q", id, i, e.Kind)
		}
	}
	return evs
}

// TestEventsRecorded reads the events of each recorded session: the
// `tools` session holds the approved command with its output, the denied
// one with Claude's rejection as an error result, and the question with
// the chosen answer, each result right after its call; and for every
// session the messages among the events are Conversation's.
func TestEventsRecorded(t *testing.T) {
	for _, dir := range claudeRecordings(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rec := readRecording(t, dir)
			s := New(Options{Dir: filepath.Join(dir, "claude")})
			for _, rs := range rec.Sessions {
				id := strings.TrimSuffix(filepath.Base(rs.Files[0]), ".jsonl")
				evs := checkEvents(t, s, id)
				if rs.Name != "tools" {
					continue
				}
				type pair struct{ call, result session.Event }
				var pairs []pair
				for i, e := range evs {
					if e.Kind != session.EventToolCall {
						continue
					}
					if i+1 >= len(evs) || evs[i+1].Kind != session.EventToolResult || evs[i+1].ToolID != e.ToolID {
						t.Fatalf("call %+v is not followed by its result: %+v", e, evs[i+1:])
					}
					pairs = append(pairs, pair{e, evs[i+1]})
				}
				var kinds []string
				for _, tn := range rs.Turns {
					kinds = append(kinds, tn.Kind)
				}
				if len(pairs) != len(kinds) {
					t.Fatalf("%d tool calls for the turns %q: %+v", len(pairs), kinds, pairs)
				}
				for i, k := range kinds {
					c, r := pairs[i].call, pairs[i].result
					var input map[string]any
					if err := json.Unmarshal([]byte(c.Input), &input); err != nil {
						t.Errorf("%s call input %q: %v", k, c.Input, err)
					}
					switch k {
					case "approved":
						if c.Tool != "Bash" || !strings.Contains(input["command"].(string), "hello-from-mock-1") ||
							r.IsError || !strings.Contains(r.Text, "hello-from-mock-1") {
							t.Errorf("approved command: %+v → %+v", c, r)
						}
					case "denied":
						if c.Tool != "Bash" || !strings.Contains(input["command"].(string), "hello-from-mock-2") ||
							!r.IsError || !strings.Contains(r.Text, "rejected") {
							t.Errorf("denied command: %+v → %+v", c, r)
						}
					case "answered":
						if c.Tool != "AskUserQuestion" || !strings.Contains(c.Input, "Which color do you prefer?") ||
							r.IsError || !strings.Contains(r.Text, `="Red"`) {
							t.Errorf("question: %+v → %+v", c, r)
						}
					default:
						t.Errorf("unexpected turn kind %q", k)
					}
				}
				for i := 1; i < len(evs); i++ {
					if evs[i].Time.Before(evs[i-1].Time) {
						t.Errorf("event %d (%s) is older than the one before it", i, evs[i].Kind)
					}
				}
			}
		})
	}
}

// TestEventsFixtures checks every fixture transcript: the events' messages
// are Conversation's, and a transcript whose assistant wrote thinking on
// its main thread has thinking events.
func TestEventsFixtures(t *testing.T) {
	dir, files := claudeDirFromFixtures(t)
	s := New(Options{Dir: dir})
	thinking := 0
	for _, f := range files {
		if !f.top || !validID(f.id) {
			continue
		}
		if _, err := s.Session(t.Context(), f.id); err != nil {
			continue // not a listable session
		}
		evs := checkEvents(t, s, f.id)
		raw, err := os.ReadFile(f.dst)
		if err != nil {
			t.Fatal(err)
		}
		if hasMainThinking(raw) {
			if !slices.ContainsFunc(evs, func(e session.Event) bool { return e.Kind == session.EventThinking }) {
				t.Errorf("%s: the transcript has thinking, the events none", f.src)
			}
			thinking++
		}
	}
	if thinking == 0 {
		t.Error("no fixture with thinking: the thinking check ran on nothing")
	}
}

// hasMainThinking reports whether some assistant line off the sidechain
// has a non-blank thinking part.
func hasMainThinking(raw []byte) bool {
	for l := range strings.SplitSeq(string(raw), "\n") {
		var r struct {
			Type        string
			IsSidechain bool
			Message     struct {
				Content json.RawMessage
			}
		}
		if json.Unmarshal([]byte(l), &r) != nil || r.Type != "assistant" || r.IsSidechain {
			continue
		}
		var parts []struct{ Type, Thinking string }
		if json.Unmarshal(r.Message.Content, &parts) != nil {
			continue
		}
		for _, p := range parts {
			if p.Type == "thinking" && strings.TrimSpace(p.Thinking) != "" {
				return true
			}
		}
	}
	return false
}

// TestEventsSynthetic pins the rules the recordings do not exercise: one
// API message split over lines (thinking, text, tool_use, more text) is
// one message placed at its first text; a result given as a part list;
// an over-long output clipped; an abandoned branch and a sidechain left
// out; redacted and blank thinking skipped.
func TestEventsSynthetic(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", history.MaxOutput) // 2 bytes a rune: twice the cap
	split := func(uuid, parent string, minute int, parts ...any) string {
		return answer(uuid, parent, "", minute, "message", map[string]any{
			"id": "msg_split", "role": "assistant", "model": "m", "content": parts})
	}
	result := func(uuid, parent string, minute int, parts ...any) string {
		return user(uuid, parent, "", minute, "message", map[string]any{"role": "user", "content": parts})
	}
	writeSession(t, dir, "-p", "s1",
		user("u1", "", "first prompt", 0),
		split("a1", "u1", 1, map[string]any{"type": "thinking", "thinking": "let me think", "signature": "x"}),
		split("a2", "a1", 1, map[string]any{"type": "redacted_thinking", "data": "xx"},
			map[string]any{"type": "thinking", "thinking": "  "}),
		split("a3", "a2", 1, map[string]any{"type": "text", "text": "I will look."}),
		split("a4", "a3", 1, map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{"file_path": "/x"}}),
		result("r1", "a4", 2, map[string]any{"type": "tool_result", "tool_use_id": "t1",
			"content": []any{map[string]any{"type": "text", "text": "line one"}, map[string]any{"type": "image"},
				map[string]any{"type": "text", "text": "line two"}}}),
		split("a5", "r1", 3, map[string]any{"type": "text", "text": "Found it."}),
		// An abandoned branch off u1, then the current one.
		answer("x1", "u1", "abandoned answer", 4),
		result("xr", "x1", 4, map[string]any{"type": "tool_result", "tool_use_id": "tx", "content": "abandoned output"}),
		user("u2", "a5", "second prompt", 5),
		answer("s1", "u2", "a sidechain answer", 5, "isSidechain", true),
		answer("b1", "u2", "Running it.", 6, "message", map[string]any{"id": "msg_b", "role": "assistant", "content": []any{
			map[string]any{"type": "text", "text": "Running it."},
			map[string]any{"type": "tool_use", "id": "t2", "name": "Bash", "input": map[string]any{"command": "make"}}}}),
		result("r2", "b1", 7, map[string]any{"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": long}),
		answer("b2", "r2", "It failed.", 8),
	)
	s := New(Options{Dir: dir})
	evs := checkEvents(t, s, "s1")
	type ev struct {
		Kind, Role, Text, Tool, ToolID, Input string
		IsError                               bool
	}
	var got []ev
	for _, e := range evs {
		if len(e.Text) > 100 {
			if !strings.HasSuffix(e.Text, "…") || len(e.Text) > history.MaxOutput || len(e.Text) < history.MaxOutput-4 {
				t.Errorf("long output clipped to %d bytes, ending %q", len(e.Text), e.Text[len(e.Text)-8:])
			}
			e.Text = "<clipped>"
		}
		got = append(got, ev{e.Kind, e.Role, e.Text, e.Tool, e.ToolID, e.Input, e.IsError})
	}
	want := []ev{
		{Kind: session.EventMessage, Role: session.RoleUser, Text: "first prompt"},
		{Kind: session.EventThinking, Text: "let me think"},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "I will look.\n\nFound it."},
		{Kind: session.EventToolCall, Tool: "Read", ToolID: "t1", Input: `{"file_path":"/x"}`},
		{Kind: session.EventToolResult, ToolID: "t1", Text: "line one\nline two"},
		{Kind: session.EventMessage, Role: session.RoleUser, Text: "second prompt"},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "Running it."},
		{Kind: session.EventToolCall, Tool: "Bash", ToolID: "t2", Input: `{"command":"make"}`},
		{Kind: session.EventToolResult, ToolID: "t2", Text: "<clipped>", IsError: true},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "It failed."},
	}
	if !slices.Equal(got, want) {
		t.Errorf("events:\n got  %+v\n want %+v", got, want)
	}
}

func TestEventsNotFound(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "-p", "s1", user("u1", "", "hi", 0))
	s := New(Options{Dir: dir})
	for _, id := range []string{"nope", "", "../s1", "agent-s1"} {
		if _, err := s.Events(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events(%q) = %v, want ErrNotFound", id, err)
		}
	}
}
