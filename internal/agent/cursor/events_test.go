package cursor

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// eventLine renders an event compactly for comparisons.
func eventLine(e session.Event) string {
	switch e.Kind {
	case session.EventMessage:
		return e.Role + ": " + e.Text
	case session.EventThinking:
		return "thinking: " + e.Text
	case session.EventToolCall:
		return "call " + e.Tool + " " + e.ToolID + " " + e.Input
	case session.EventToolResult:
		if e.IsError {
			return "error " + e.ToolID + ": " + e.Text
		}
		return "result " + e.ToolID + ": " + e.Text
	}
	return "? " + e.Kind
}

// checkEvents: the EventMessage subsequence is exactly Conversation, and
// the events are what want says.
func checkEvents(t *testing.T, s *Scanner, id string, want []string) {
	t.Helper()
	ctx := context.Background()
	evs, err := s.Events(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	historytest.CheckStream(t, id, evs, func(fn func(session.Event) error) error { return s.EachEvent(ctx, id, fn) })
	conv, err := s.Conversation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []session.Message
	var got []string
	for _, e := range evs {
		if e.Kind == session.EventMessage {
			msgs = append(msgs, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
		}
		got = append(got, eventLine(e))
	}
	if !slices.Equal(msgs, conv) {
		t.Errorf("%s: messages of Events = %q, want Conversation %q", id, msgs, conv)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s events:\n got  %q\n want %q", id, got, want)
	}
}

// SYNTHETIC store.db (AI SDK message blobs; no real
// sample exists) replaying the recorded scenario of the other agents: a
// command approved, one denied, a question answered. Tool calls carry
// args (AI SDK 4) or input (AI SDK 5), results a plain result or a typed
// output; reasoning is thinking; system messages, context-only user
// turns, images and binary blobs are not in the record; a huge output is
// clipped.
func TestEventsFromStore(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	long := strings.Repeat("x", 70<<10)
	tool := func(parts ...map[string]any) map[string]any {
		list := make([]any, len(parts))
		for i, p := range parts {
			list[i] = p
		}
		return map[string]any{"role": "tool", "content": list}
	}
	writeChat(t, root, chatSpec{id: "tools", cwd: proj, meta: map[string]any{"cwd": proj, "hasConversation": true},
		store: &storeSpec{meta: map[string]any{"agentId": "tools"}, messages: []any{
			map[string]any{"role": "system", "content": []any{textPart("You are a coding agent.")}},
			cursorUser("please RUN the thing"),
			assistantMsg(
				map[string]any{"type": "reasoning", "text": " The user wants a command run. ", "signature": "sig"},
				map[string]any{"type": "redacted-reasoning", "data": "xxx"},
				textPart("I'll run a command."),
				map[string]any{"type": "tool-call", "toolCallId": "call_1", "toolName": "Shell", "args": map[string]any{"command": "echo hello"}},
			),
			tool(map[string]any{"type": "tool-result", "toolCallId": "call_1", "toolName": "Shell", "result": "hello\n"}),
			assistantMsg(textPart("Mock reply: tool finished.")),
			cursorUser("RUN it again please"),
			assistantMsg(map[string]any{"type": "tool-call", "toolCallId": "call_2", "toolName": "Shell", "args": `{"command":"rm -rf build"}`}),
			tool(map[string]any{"type": "tool-result", "toolCallId": "call_2", "toolName": "Shell", "result": "The user rejected this command.", "isError": true}),
			cursorUser("ASK me which color"),
			assistantMsg(map[string]any{"type": "tool-call", "toolCallId": "call_3", "toolName": "AskQuestion",
				"input": map[string]any{"question": "Which color do you prefer?", "options": []string{"Red", "Blue"}}}),
			tool(map[string]any{"type": "tool-result", "toolCallId": "call_3", "toolName": "AskQuestion",
				"output": map[string]any{"type": "json", "value": map[string]any{"answer": "Red"}}}),
			assistantMsg(textPart("Red it is."), map[string]any{"type": "tool-call", "toolCallId": "call_4", "toolName": "Read", "input": map[string]any{"path": "big.log"}}),
			tool(map[string]any{"type": "tool-result", "toolCallId": "call_4", "output": map[string]any{"type": "text", "value": long}}),
			assistantMsg(map[string]any{"type": "tool-call", "toolCallId": "call_5", "toolName": "Grep"}),
			tool(map[string]any{"type": "tool-result", "toolCallId": "call_5", "output": map[string]any{"type": "error-text", "value": "no such file"}}),
			assistantMsg(map[string]any{"type": "tool-call", "toolCallId": "call_6", "toolName": "Fetch", "args": map[string]any{}}),
			tool(map[string]any{"type": "tool-result", "toolCallId": "call_6", "output": map[string]any{"type": "content",
				"value": []any{textPart("page one"), map[string]any{"type": "media", "data": "…"}, textPart("page two")}}}),
			[]byte{0x0a, 0x03, 'a', 'b', 'c'},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "image": "data:..."}}},
			map[string]any{"role": "user", "content": "thanks"},
		}}})
	s := New(Options{Dir: root})
	checkEvents(t, s, "tools", []string{
		"user: please RUN the thing",
		"thinking: The user wants a command run.",
		"assistant: I'll run a command.",
		`call Shell call_1 {"command":"echo hello"}`,
		"result call_1: hello\n",
		"assistant: Mock reply: tool finished.",
		"user: RUN it again please",
		`call Shell call_2 {"command":"rm -rf build"}`,
		"error call_2: The user rejected this command.",
		"user: ASK me which color",
		`call AskQuestion call_3 {"options":["Red","Blue"],"question":"Which color do you prefer?"}`,
		`result call_3: {"answer":"Red"}`,
		"assistant: Red it is.",
		`call Read call_4 {"path":"big.log"}`,
		"result call_4: " + long[:history.MaxOutput-len("…")] + "…",
		"call Grep call_5 ",
		"error call_5: no such file",
		"call Fetch call_6 {}",
		"result call_6: page one\npage two",
		"user: thanks",
	})
	ctx := context.Background()
	for _, id := range []string{"nope", "../tools", ""} {
		if _, err := s.Events(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// SYNTHETIC transcript (Anthropic parts) for a chat
// with no chats/ folder: thinking, tool_use and tool_result (is_error,
// string or text-part content), beside Conversation's messages.
func TestEventsFromTranscript(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	lines := strings.Join([]string{
		`{"role":"system","message":{"content":"system text"}}`,
		`{"role":"user","message":{"content":[{"type":"text","text":"<user_info>OS</user_info>\n<user_query>\nplease RUN the thing\n</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"run it"},{"type":"text","text":"Running."},{"type":"tool_use","id":"toolu_1","name":"Shell","input":{"command":"ls"}}]}}`,
		`{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"a.go\nb.go"}]}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","id":"toolu_2","name":"Shell","input":{"command":"rm a.go"}}]}}`,
		`{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"rejected by the user","is_error":true}]}}`,
		`{broken line`,
		`{"role":"assistant","message":{"content":"done"}}`,
		`{"type":"turn_ended","status":"success"}`,
	}, "\n")
	writeFile(t, filepath.Join(root, "projects", enc, "agent-transcripts", "tr-id", "tr-id.jsonl"), []byte(lines))
	s := New(Options{Dir: root})
	checkEvents(t, s, "tr-id", []string{
		"user: please RUN the thing",
		"thinking: run it",
		"assistant: Running.",
		`call Shell toolu_1 {"command":"ls"}`,
		"result toolu_1: a.go\nb.go",
		`call Shell toolu_2 {"command":"rm a.go"}`,
		"error toolu_2: rejected by the user",
		"assistant: done",
	})
}
