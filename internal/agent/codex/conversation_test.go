package codex

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// conversationOf writes lines as one rollout and returns its conversation.
func conversationOf(t *testing.T, ls ...any) []session.Message {
	t.Helper()
	h := newHome(t)
	path := h.rollout("c0ffee00-0000-4000-8000-000000000001", time.Time{}, lines(ls...)...)
	s := newTestScanner(h.dir)
	msgs, err := s.Conversation(context.Background(), "c0ffee00-0000-4000-8000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, "c0ffee00", msgs)
	// Every synthetic rollout is also a case of the tail property.
	checkTail(t, path)
	checkTailConversation(t, s, "c0ffee00-0000-4000-8000-000000000001", msgs)
	return msgs
}

// Regression (regression test_codex_conversation_dedupes_response_item_and_event_msg_user): // Codex writes each prompt as a response item and as an event, each answer
// as an event and as a response item. Adjacent copies are one message with
// the first copy's time; the same words in another turn are another
// message, also when a turn was interrupted and the prompt typed again.
func TestConversationAdjacentDuplicates(t *testing.T) {
	cases := []struct {
		name  string
		lines []any
		want  []string
	}{
		{
			name:  "0.169: response item, then item_completed; answer as item, then response item",
			lines: lines(turn(1, "fix the bug", "Fixed it.")),
			want:  []string{"user: fix the bug", "assistant: Fixed it."},
		},
		{
			name:  "older: event_msg user_message and agent_message",
			lines: lines(userEvent(1, "fix the bug"), respMsg(1, "user", "fix the bug"), agentEvent(2, "Fixed it."), respMsg(2, "assistant", "Fixed it.")),
			want:  []string{"user: fix the bug", "assistant: Fixed it."},
		},
		{
			name: "a transition build writing all three copies",
			lines: lines(respMsg(1, "user", "go"), userEvent(1, "go"), userItem(1, "go"),
				agentItem(2, "ok"), agentEvent(2, "ok"), respMsg(2, "assistant", "ok")),
			want: []string{"user: go", "assistant: ok"},
		},
		{
			name:  "the same prompt and answer in two turns",
			lines: lines(turn(1, "again", "done"), turn(3, "again", "done")),
			want:  []string{"user: again", "assistant: done", "user: again", "assistant: done"},
		},
		{
			name: "an interrupted turn, the prompt typed again",
			lines: lines(respMsg(1, "user", "run it"), userItem(1, "run it"),
				env(2, "event_msg", map[string]any{"type": "turn_aborted", "reason": "interrupted"}),
				respMsg(2, "user", "<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>"),
				respMsg(3, "user", "run it"), userItem(3, "run it"), agentItem(4, "ran"), respMsg(4, "assistant", "ran")),
			want: []string{"user: run it", "user: run it", "assistant: ran"},
		},
		{
			name: "tool calls and reasoning between the copies do not separate them",
			lines: lines(respMsg(1, "user", "list"), userItem(1, "list"),
				agentItem(2, "Listing."), env(2, "response_item", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": "thinking"}}}),
				respMsg(2, "assistant", "Listing."),
				env(3, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": "c1"}),
				env(4, "response_item", map[string]any{"type": "function_call_output", "call_id": "c1", "output": "a b"}),
				agentItem(5, "Two files."), respMsg(5, "assistant", "Two files.")),
			want: []string{"user: list", "assistant: Listing.", "assistant: Two files."},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msgs := conversationOf(t, c.lines...)
			if got := texts(msgs); !slices.Equal(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
			if msgs[0].Time != t0.Add(time.Second) {
				t.Errorf("first message at %v, want the first copy's time", msgs[0].Time)
			}
		})
	}
}

// Only what the person typed is a user message: the
// instructions, environment, permissions, mode and skill texts Codex sends
// as role user, its notes about interrupted turns and shell commands, and
// developer and system messages are not; a wrapped IDE request keeps only
// the request.
func TestConversationSkipsInjectedText(t *testing.T) {
	injected := []string{
		"<environment_context>\n  <cwd>/home/u/p</cwd>\n</environment_context>",
		"<user_instructions>\nBe brief.\n</user_instructions>",
		"# AGENTS.md instructions for /home/u/p\n\n<INSTRUCTIONS>x</INSTRUCTIONS>",
		"<permissions instructions>\nsandboxed\n</permissions instructions>",
		"<collaboration_mode># Plan Mode</collaboration_mode>",
		"<skills_instructions>\n## Skills\n</skills_instructions>",
		"<plugins_instructions>p</plugins_instructions>",
		"<environment>e</environment>",
		"<environment-change>c</environment-change>",
		"<app-context>a</app-context>",
		"<turn_aborted>\nThe user interrupted the previous turn on purpose.\n</turn_aborted>",
		"<user_shell_command>\nls\n</user_shell_command>",
		"<subagent_notification>{}</subagent_notification>",
		"<some_future_note>\nanything\n</some_future_note>",
		"   \n\t",
	}
	var ls []any
	for i, text := range injected {
		ls = append(ls, respMsg(i, "user", text), userEvent(i, text))
	}
	ls = append(ls,
		respMsg(20, "developer", "You are in plan mode."),
		respMsg(20, "system", "system text"),
		respMsg(21, "user", "# Context from my IDE setup:\n\n## Open tabs:\n- main.go\n\n## My request for Codex:\nrename the handler\n"),
		respMsg(22, "user", "<div>markup</div> is what I typed"),
		respMsg(23, "user", "<b>bold</b>"),
	)
	want := []string{"user: rename the handler", "user: <div>markup</div> is what I typed", "user: <b>bold</b>"}
	if got := texts(conversationOf(t, ls...)); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A field may be present and null, or of another type. No
// line may fail because of it, and nothing may show "None" or "null".
func TestConversationNullFields(t *testing.T) {
	msgs := conversationOf(t,
		`{"timestamp":null,"type":"session_meta","payload":{"id":null,"cwd":null,"timestamp":null,"source":null,"thread_source":null}}`,
		`{"timestamp":"2026-01-02T10:00:01Z","type":"turn_context","payload":{"cwd":null,"model":null}}`,
		`{"timestamp":"2026-01-02T10:00:02Z","type":"response_item","payload":{"type":"message","role":"user","content":null}}`,
		`{"timestamp":"2026-01-02T10:00:02Z","type":"response_item","payload":{"type":"message","role":null,"content":[null,{"type":null,"text":null},{"type":"input_text","text":"hello"}]}}`,
		`{"timestamp":"2026-01-02T10:00:03Z","type":"event_msg","payload":{"type":"user_message","message":null}}`,
		`{"timestamp":"2026-01-02T10:00:03Z","type":"event_msg","payload":{"type":"item_completed","item":null}}`,
		`{"timestamp":"2026-01-02T10:00:04Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":null}}}`,
		`{"timestamp":"2026-01-02T10:00:05Z","type":"event_msg","payload":{"type":"user_message","message":"typed prompt","images":null}}`,
		`{"timestamp":"2026-01-02T10:00:06Z","type":"event_msg","payload":{"type":"agent_message","message":{"unexpected":"object"}}}`,
		`{"timestamp":"2026-01-02T10:00:07Z","type":"response_item","payload":{"type":"message","role":"assistant","content":"a plain string answer"}}`,
		`{"timestamp":"2026-01-02T10:00:08Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":"two"}}`,
		`{"timestamp":12,"type":"event_msg","payload":{"type":"agent_message","message":"answer with a numeric timestamp","item":"not an object"}}`,
		`{"type":"response_item","payload":null}`,
		`{"type":null,"payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"no envelope type"}]}}`,
	)
	want := []string{"user: typed prompt", "assistant: a plain string answer", "assistant: answer with a numeric timestamp"}
	if got := texts(msgs); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// Listing reads the same lines: nulls leave fields empty, never "None".
func TestListingNullFields(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Now(),
		`{"timestamp":null,"type":"session_meta","payload":{"id":null,"cwd":null,"timestamp":null,"source":null,"thread_source":null,"parent_thread_id":null}}`,
		`{"timestamp":"2026-01-02T10:00:01Z","type":"turn_context","payload":{"cwd":null,"model":null}}`,
		`{"timestamp":"2026-01-02T10:00:05Z","type":"event_msg","payload":{"type":"user_message","message":"typed prompt","images":null}}`,
	)
	h.file(indexFile, time.Time{}, `{"id":"`+id(1)+`","thread_name":null}`)
	got := scanAll(t, newTestScanner(h.dir))
	if len(got) != 1 {
		t.Fatalf("%+v", got)
	}
	checkInfo(t, got[0])
	if got[0].Title != "typed prompt" || got[0].Cwd != "" || got[0].Model != "" || got[0].Created.IsZero() {
		t.Errorf("%+v", got[0])
	}
}

// A preview is never cached by session key here; a session
// still being written shows its new turns at once.
func TestConversationRereads(t *testing.T) {
	h := newHome(t)
	path := h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "one", "1"))...)
	s := newTestScanner(h.dir)
	if msgs, _ := s.Conversation(context.Background(), id(1)); len(msgs) != 2 {
		t.Fatal(texts(msgs))
	}
	appendLines(t, path, lines(turn(3, "two", "2"))...)
	if msgs, _ := s.Conversation(context.Background(), id(1)); len(msgs) != 4 {
		t.Fatal(texts(msgs))
	}
}

// Broken input degrades per line: bad JSON, non-objects and a half-written
// last line are skipped; an over-long line is read clipped; invalid UTF-8
// is repaired.
func TestConversationBadLines(t *testing.T) {
	msgs := conversationOf(t,
		meta(0, "c0ffee00-0000-4000-8000-000000000001", "/p"),
		`{"timestamp":"2026-01-02T10:00:01Z","type":"response_item","payload":{broken`,
		`42`, `"a string"`, `[1,2]`, `null`, ``, `   `,
		respMsg(2, "user", "first \xff\xfe prompt"),
		`{"timestamp":"2026-01-02T10:00:03Z","type":"event_msg","payload":{"type":"agent_message","message":"`+strings.Repeat("x", maxLineBytes)+`"}}`,
		agentEvent(4, "short answer"),
		`{"timestamp":"2026-01-02T10:00:05Z","type":"event_msg","payload":{"type":"user_mess`,
	)
	want := []string{"user: first \ufffd\ufffd prompt", "assistant: clipped", "assistant: short answer"}
	got := texts(msgs)
	if len(got) == 3 && strings.HasPrefix(got[1], "assistant: xxxx") {
		historytest.Clipped(t, msgs[1].Text, "xxxx", "4.0 MB")
		got[1] = "assistant: clipped"
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %.80q, want %q", got, want)
	}
}

// Going back to edit an earlier prompt (thread_rolled_back) removes the
// undone turns from the thread; the conversation shows what Codex kept.
func TestConversationRollback(t *testing.T) {
	msgs := conversationOf(t,
		turn(1, "one", "1"), turn(3, "two", "2"), turn(5, "three", "3"),
		env(7, "event_msg", map[string]any{"type": "thread_rolled_back", "num_turns": 2}),
		turn(8, "two, rephrased", "2b"),
		env(10, "event_msg", map[string]any{"type": "thread_rolled_back", "num_turns": 9}),
		turn(11, "from scratch", "0"),
	)
	want := []string{"user: from scratch", "assistant: 0"}
	if got := texts(msgs); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestConversationNotFound(t *testing.T) {
	h := newHome(t)
	h.rollout("c0ffee00-0000-4000-8000-000000000001", time.Time{}, meta(0, "c0ffee00-0000-4000-8000-000000000001", "/p"))
	s := newTestScanner(h.dir)
	for _, id := range []string{"", "nope", "../../etc/passwd", "*", "c0ffee00-0000-4000-8000-00000000000?", "000000000001", strings.Repeat("a", 200)} {
		if _, err := s.Conversation(context.Background(), id); err != session.ErrNotFound {
			t.Errorf("Conversation(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if msgs, err := s.Conversation(context.Background(), "c0ffee00-0000-4000-8000-000000000001"); err != nil || len(msgs) != 0 {
		t.Errorf("empty rollout: %v, %v", msgs, err)
	}
}
