package pi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
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
// are exactly Conversation's and every event has the fields of its kind.
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
	for i, e := range evs {
		switch e.Kind {
		case session.EventMessage:
		case session.EventThinking:
			if strings.TrimSpace(e.Text) == "" {
				t.Errorf("%s: event %d: blank thinking", id, i)
			}
		case session.EventToolCall:
			if e.Tool == "" || (e.Input != "" && !json.Valid([]byte(e.Input))) {
				t.Errorf("%s: event %d: call %+v", id, i, e)
			}
		case session.EventToolResult:
			if len(e.Text) > history.MaxOutput || !utf8.ValidString(e.Text) {
				t.Errorf("%s: event %d: result of %d bytes", id, i, len(e.Text))
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

// TestEventsRecorded reads the events of each recorded session: in the
// `tools` session the command that ran with its output, and the one
// paddock's extension blocked as an error result, each right after its
// call (Pi has no question tool: that turn was skipped); for every session
// the messages among the events are Conversation's.
func TestEventsRecorded(t *testing.T) {
	for _, dir := range piRecordings(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			rec := readRecording(t, dir)
			s := newTestScanner(filepath.Join(dir, "pi"))
			for _, rs := range rec.Sessions {
				id, err := IDOf(filepath.Join(dir, rs.Files[0]))
				if err != nil {
					t.Fatal(err)
				}
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
					if i+1 >= len(evs) || evs[i+1].Kind != session.EventToolResult || evs[i+1].ToolID != e.ToolID || e.ToolID == "" {
						t.Fatalf("call %+v is not followed by its result: %+v", e, evs[i+1:])
					}
					pairs = append(pairs, pair{e, evs[i+1]})
				}
				var kinds []string
				for _, tn := range rs.Turns {
					if !strings.HasPrefix(tn.Outcome, "skipped") {
						kinds = append(kinds, tn.Kind)
					}
				}
				if len(pairs) != len(kinds) {
					t.Fatalf("%d tool calls for the turns %q: %+v", len(pairs), kinds, pairs)
				}
				for i, k := range kinds {
					c, r := pairs[i].call, pairs[i].result
					var input struct{ Command string }
					if err := json.Unmarshal([]byte(c.Input), &input); err != nil || c.Tool != "bash" {
						t.Errorf("%s call %+v: %v", k, c, err)
					}
					switch k {
					case "approved":
						if !strings.Contains(input.Command, "hello-from-mock-1") || r.IsError || !strings.Contains(r.Text, "hello-from-mock-1") {
							t.Errorf("command that ran: %+v → %+v", c, r)
						}
					case "denied":
						if !strings.Contains(input.Command, "hello-from-mock-2") || !r.IsError || r.Text != "denied by make fixtures" {
							t.Errorf("blocked command: %+v → %+v", c, r)
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

// TestEventsFixtures reads every session of the proving ground's agent dir
// and the public fixtures: the events' messages are Conversation's, a file
// with thinking has thinking events and one with a `!` command has it as
// a bash call.
func TestEventsFixtures(t *testing.T) {
	agent := t.TempDir()
	copyTree(t, sharedtest.Fixtures(t, "real", "pi-0.73.1", "pi-agent-dir"), agent)
	pub := sharedtest.Fixtures(t, "public", "pi")
	for i, src := range []string{
		"pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
		"pi-mono/packages/coding-agent/test/fixtures/before-compaction.jsonl",
		"agentsview/internal/parser/testdata/pi/session.jsonl",
		"deja-vu/fixtures/registry/pi/session.jsonl",
	} {
		if err := copyFile(filepath.Join(pub, src), filepath.Join(agent, "sessions", "--public--", fmt.Sprintf("p%d.jsonl", i))); err != nil {
			t.Fatal(err)
		}
	}
	s := newTestScanner(agent)
	infos := scanAll(t, s)
	if len(infos) < 11 {
		t.Fatalf("listed %d sessions", len(infos))
	}
	thinking, bash := 0, 0
	for id, info := range infos {
		evs := checkEvents(t, s, id)
		raw, err := os.ReadFile(info.Path)
		if err != nil {
			t.Fatal(err)
		}
		has := func(kind, tool string) bool {
			return slices.ContainsFunc(evs, func(e session.Event) bool { return e.Kind == kind && (tool == "" || e.Tool == tool) })
		}
		if bytes.Contains(raw, []byte(`"type":"thinking","thinking":"L`)) { // a non-blank one
			thinking++
			if !has(session.EventThinking, "") {
				t.Errorf("%s: the file has thinking, the events none", info.Path)
			}
		}
		if bytes.Contains(raw, []byte(`"role":"bashExecution"`)) {
			bash++
			if !has(session.EventToolCall, "bash") {
				t.Errorf("%s: the file has a ! command, the events no bash call", info.Path)
			}
		}
		if bytes.Contains(raw, []byte(`"toolCall"`)) && !has(session.EventToolCall, "") {
			t.Errorf("%s: the file has tool calls, the events none", info.Path)
		}
	}
	if thinking == 0 || bash == 0 {
		t.Errorf("%d files with thinking, %d with a ! command: the checks ran on nothing", thinking, bash)
	}
}

// TestEventsSynthetic pins the rules the recordings do not exercise: an
// assistant entry's thinking, text, tool call and more text give thinking,
// one message (where its first text was) and the call; redacted and blank
// thinking are skipped; a result's text parts are joined and an over-long
// output clipped; a `!` command is a bash call and its output; an
// abandoned branch is left out; a v1 file reads in file order.
func TestEventsSynthetic(t *testing.T) {
	agent := t.TempDir()
	cwd := "/home/u/proj"
	long := strings.Repeat("é", history.MaxOutput) // 2 bytes a rune: twice the cap
	line := func(id, parent string, min int, msg map[string]any) string {
		msg["timestamp"] = t0.Add(time.Duration(min) * time.Minute).UnixMilli()
		return jsonLine(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": ts(min), "message": msg})
	}
	parts := func(p ...map[string]any) []any {
		out := make([]any, len(p))
		for i := range p {
			out[i] = p[i]
		}
		return out
	}
	file := headerLine("s1", cwd, 0) +
		msgLine("u1", "", "user", "first prompt", 1) +
		line("a1", "u1", 2, map[string]any{"role": "assistant", "content": parts(
			map[string]any{"type": "thinking", "thinking": "let me think"},
			map[string]any{"type": "thinking", "thinking": "", "thinkingSignature": "x", "redacted": true},
			map[string]any{"type": "thinking", "thinking": "  "},
			map[string]any{"type": "text", "text": "I will look."},
			map[string]any{"type": "toolCall", "id": "c1", "name": "read", "arguments": map[string]any{"path": "/x"}},
			map[string]any{"type": "text", "text": "And then."})}) +
		line("r1", "a1", 3, map[string]any{"role": "toolResult", "toolCallId": "c1", "toolName": "read", "isError": false,
			"content": parts(map[string]any{"type": "text", "text": "line one"}, map[string]any{"type": "image", "data": "x"},
				map[string]any{"type": "text", "text": "line two"})}) +
		// An abandoned branch off r1.
		msgLine("x1", "r1", "assistant", "abandoned answer", 4) +
		line("x2", "x1", 4, map[string]any{"role": "toolResult", "toolCallId": "cx", "content": "abandoned output", "isError": false}) +
		// The current branch, also off r1.
		msgLine("a2", "r1", "assistant", "Done reading.", 5) +
		line("b1", "a2", 6, map[string]any{"role": "bashExecution", "command": "make", "output": long, "exitCode": 2,
			"cancelled": false, "truncated": false}) +
		msgLine("u2", "b1", "user", "why did make fail?", 7)
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "s1.jsonl"), file)
	// A v1 file: no ids, file order.
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "v1.jsonl"),
		jsonLine(map[string]any{"type": "session", "id": "v1", "timestamp": ts(0), "cwd": cwd})+
			jsonLine(map[string]any{"type": "message", "timestamp": ts(1), "message": map[string]any{"role": "user", "content": "old prompt"}})+
			jsonLine(map[string]any{"type": "message", "timestamp": ts(2), "message": map[string]any{"role": "assistant",
				"content": parts(map[string]any{"type": "toolCall", "id": "c9", "name": "bash", "arguments": map[string]any{"command": "ls"}})}})+
			jsonLine(map[string]any{"type": "message", "timestamp": ts(3), "message": map[string]any{"role": "toolResult",
				"toolCallId": "c9", "content": parts(map[string]any{"type": "text", "text": "a b"}), "isError": true}})+
			jsonLine(map[string]any{"type": "message", "timestamp": ts(4), "message": map[string]any{"role": "assistant", "content": "old answer"}}))

	s := newTestScanner(agent)
	type ev struct {
		Kind, Role, Text, Tool, ToolID, Input string
		IsError                               bool
	}
	events := func(id string) []ev {
		var out []ev
		for _, e := range checkEvents(t, s, id) {
			if len(e.Text) > 100 {
				if !strings.HasSuffix(e.Text, "…") || len(e.Text) > history.MaxOutput || len(e.Text) < history.MaxOutput-4 {
					t.Errorf("long output clipped to %d bytes", len(e.Text))
				}
				e.Text = "<clipped>"
			}
			out = append(out, ev{e.Kind, e.Role, e.Text, e.Tool, e.ToolID, e.Input, e.IsError})
		}
		return out
	}
	want := []ev{
		{Kind: session.EventMessage, Role: session.RoleUser, Text: "first prompt"},
		{Kind: session.EventThinking, Text: "let me think"},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "I will look.\n\nAnd then."},
		{Kind: session.EventToolCall, Tool: "read", ToolID: "c1", Input: `{"path":"/x"}`},
		{Kind: session.EventToolResult, ToolID: "c1", Text: "line one\nline two"},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "Done reading."},
		{Kind: session.EventToolCall, Tool: "bash", Input: `{"command":"make"}`},
		{Kind: session.EventToolResult, Text: "<clipped>", IsError: true},
		{Kind: session.EventMessage, Role: session.RoleUser, Text: "why did make fail?"},
	}
	if got := events("s1"); !slices.Equal(got, want) {
		t.Errorf("events:\n got  %+v\n want %+v", got, want)
	}
	wantV1 := []ev{
		{Kind: session.EventMessage, Role: session.RoleUser, Text: "old prompt"},
		{Kind: session.EventToolCall, Tool: "bash", ToolID: "c9", Input: `{"command":"ls"}`},
		{Kind: session.EventToolResult, ToolID: "c9", Text: "a b", IsError: true},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "old answer"},
	}
	if got := events("v1"); !slices.Equal(got, wantV1) {
		t.Errorf("v1 events:\n got  %+v\n want %+v", got, wantV1)
	}
}

func TestEventsNotFound(t *testing.T) {
	agent := t.TempDir()
	writeChat(t, agent, "s1", "/home/u/proj", 0, "hi")
	s := newTestScanner(agent)
	for _, id := range []string{"nope", "", "../s1", "s1/x"} {
		if _, err := s.Events(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// TestEachEventBranchAgainstFileOrder: a branch that runs against the
// file's order (an id written twice, the later entry a root) is streamed
// in the branch's order all the same, as Events gives it.
func TestEachEventBranchAgainstFileOrder(t *testing.T) {
	agent := t.TempDir()
	file := headerLine("s1", proj, 0) +
		msgLine("a", "", "user", "one", 1) +
		msgLine("b", "a", "assistant", "two", 2) +
		msgLine("a", "", "user", "three", 3) +
		msgLine("c", "b", "user", "four", 4)
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "s1.jsonl"), file)
	var got []string
	for _, e := range checkEvents(t, newTestScanner(agent), "s1") {
		got = append(got, e.Text)
	}
	if want := []string{"three", "two", "four"}; !slices.Equal(got, want) {
		t.Errorf("events %q, want %q", got, want)
	}
}
