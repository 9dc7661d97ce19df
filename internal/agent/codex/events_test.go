package codex

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// The recorded sessions' ids (testdata/codex-0.169.0/manifest.json).
const (
	recChat  = "01a22933-9fa0-7061-a419-c6368c8164b9"
	recTools = "01a22933-bf50-7ea3-bf85-2f0c612735bb"
)

// eventsOf returns a session's events, failing the test on an error.
func eventsOf(t *testing.T, s *Scanner, id string) []session.Event {
	t.Helper()
	evs, err := s.Events(context.Background(), id)
	if err != nil {
		t.Fatalf("Events(%s): %v", id, err)
	}
	historytest.CheckStream(t, id, evs, func(fn func(session.Event) error) error { return s.EachEvent(context.Background(), id, fn) })
	return evs
}

// checkEvents asserts what every session's events must satisfy: their
// messages are exactly Conversation's, every call's input is JSON, a
// result follows its call, thinking has text.
func checkEvents(t *testing.T, s *Scanner, id string, evs []session.Event) {
	t.Helper()
	msgs, err := s.Conversation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var got []session.Message
	calls := map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case session.EventMessage:
			got = append(got, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
		case session.EventThinking:
			if strings.TrimSpace(e.Text) == "" {
				t.Errorf("%s: empty thinking", id)
			}
		case session.EventToolCall:
			if e.Tool == "" || e.Input != "" && !json.Valid([]byte(e.Input)) {
				t.Errorf("%s: call %+v", id, e)
			}
			calls[e.ToolID] = true
		case session.EventToolResult:
			if e.ToolID != "" && !calls[e.ToolID] {
				t.Errorf("%s: result %s before (or without) its call", id, e.ToolID)
			}
			if len(e.Text) > history.MaxOutput {
				t.Errorf("%s: result of %d bytes", id, len(e.Text))
			}
		case session.EventImage:
			if !strings.HasPrefix(e.MediaType, "image/") || e.Size == 0 || (e.Data != "" && len(e.Data) != e.Size) {
				t.Errorf("%s: image %s of %d bytes (%d held)", id, e.MediaType, e.Size, len(e.Data))
			}
		default:
			t.Errorf("%s: kind %q", id, e.Kind)
		}
	}
	if !slices.Equal(got, msgs) {
		t.Errorf("%s: event messages\n%q\nConversation\n%q", id, texts(got), texts(msgs))
	}
}

// kinds renders events compactly for comparison.
func kinds(evs []session.Event) []string {
	var out []string
	for _, e := range evs {
		switch e.Kind {
		case session.EventMessage:
			out = append(out, e.Role+": "+e.Text)
		case session.EventThinking:
			out = append(out, "thinking: "+e.Text)
		case session.EventToolCall:
			out = append(out, "call "+e.Tool+" "+e.ToolID)
		case session.EventToolResult:
			s := "result " + e.ToolID
			if e.IsError {
				s += " error"
			}
			out = append(out, s)
		}
	}
	return out
}

func findEvent(evs []session.Event, kind, toolID string) (session.Event, bool) {
	i := slices.IndexFunc(evs, func(e session.Event) bool { return e.Kind == kind && e.ToolID == toolID })
	if i < 0 {
		return session.Event{}, false
	}
	return evs[i], true
}

// The recorded tools session (Codex 0.169.0, testdata): the approved
// command and its output, the denied one (Esc interrupts the turn: Codex
// writes "aborted by user" as its output), and the question with the
// answer chosen, between the messages Conversation shows.
func TestEventsRecording(t *testing.T) {
	s := newTestScanner(filepath.Join(repoRecording, "codex"))
	evs := eventsOf(t, s, recTools)
	checkEvents(t, s, recTools, evs)
	want := []string{
		"user: please RUN the thing", "assistant: I'll run a command.",
		"call exec_command call_mock_4", "result call_mock_4", "assistant: Mock reply: tool finished.",
		"user: RUN it again please", "assistant: I'll run a command.",
		"call exec_command call_mock_7", "result call_mock_7 error",
		"user: ASK me which color", "assistant: I'll ask you a question.",
		"call request_user_input call_mock_8", "result call_mock_8", "assistant: Mock reply: tool finished.",
		"user: one more turn after resume", "assistant: Mock reply: done (turn 4).",
	}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}

	approved, _ := findEvent(evs, session.EventToolCall, "call_mock_4")
	var args struct{ Cmd string }
	if err := json.Unmarshal([]byte(approved.Input), &args); err != nil || !strings.Contains(args.Cmd, "echo hello-from-mock-1") {
		t.Errorf("approved call input %q (%v)", approved.Input, err)
	}
	if r, _ := findEvent(evs, session.EventToolResult, "call_mock_4"); !strings.Contains(r.Text, "hello-from-mock-1") || r.IsError {
		t.Errorf("approved result %+v", r)
	}
	if r, _ := findEvent(evs, session.EventToolResult, "call_mock_7"); !strings.Contains(r.Text, "aborted by user") {
		t.Errorf("denied result %+v", r)
	}
	question, _ := findEvent(evs, session.EventToolCall, "call_mock_8")
	if !strings.Contains(question.Input, "Which color do you prefer?") {
		t.Errorf("question input %q", question.Input)
	}
	if r, _ := findEvent(evs, session.EventToolResult, "call_mock_8"); !strings.Contains(r.Text, `"Red"`) || r.IsError {
		t.Errorf("answer %+v", r)
	}
	for _, e := range evs {
		if e.Time.IsZero() {
			t.Errorf("event without time: %+v", e)
		}
	}

	chat := eventsOf(t, s, recChat)
	checkEvents(t, s, recChat, chat)
	for _, e := range chat {
		if e.Kind != session.EventMessage {
			t.Errorf("chat session: unexpected %+v", e)
		}
	}
}

// Every session of the shared real home and the public fixtures: the
// event messages are Conversation's; the synthetic rollout with reasoning
// shows its summary (never the encrypted content), a custom apply_patch
// call with its free-text input as a JSON string, and an MCP call.
func TestEventsFixtures(t *testing.T) {
	real := newTestScanner(copyTree(t, sharedtest.Fixtures(t, "real", "codex-0.169.0", "codex-home")))
	for _, info := range scanAll(t, real) {
		checkEvents(t, real, info.ID, eventsOf(t, real, info.ID))
	}

	s := newTestScanner(copyTree(t, sharedtest.Fixtures(t, "public", "codex", "claude-code-log", "test", "test_data", "codex")))
	infos := scanAll(t, s)
	if len(infos) == 0 {
		t.Fatal("no public sessions")
	}
	for _, info := range infos {
		checkEvents(t, s, info.ID, eventsOf(t, s, info.ID))
	}
	evs := eventsOf(t, s, "11111111-1111-4111-8111-111111111111")
	want := []string{
		"user: List the synthetic files.",
		"thinking: I will inspect the synthetic directory.",
		"call exec_command call-structured-001", "result call-structured-001",
		"call apply_patch call-custom-001", "result call-custom-001",
		"call mcp__synthetic__lookup call-mcp-001", "result call-mcp-001",
		"assistant: The synthetic files are alpha.txt and beta.txt.",
	}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
	for _, e := range evs {
		if strings.Contains(e.Text+e.Input, "SYNTHETIC_ENCRYPTED") {
			t.Errorf("encrypted reasoning shown: %+v", e)
		}
	}
	patch, _ := findEvent(evs, session.EventToolCall, "call-custom-001")
	var body string
	if err := json.Unmarshal([]byte(patch.Input), &body); err != nil || !strings.HasPrefix(body, "*** Begin Patch") {
		t.Errorf("apply_patch input %q (%v)", patch.Input, err)
	}
	if r, _ := findEvent(evs, session.EventToolResult, "call-custom-001"); r.Text != "Done!" {
		t.Errorf("apply_patch output %q", r.Text)
	}
	if r, _ := findEvent(evs, session.EventToolResult, "call-structured-001"); r.Text != "./alpha.txt\n./beta.txt" {
		t.Errorf("exec output %q", r.Text)
	}
}

// What marks a result as an error: a failed or declined command
// (item_completed CommandExecution, before or after the output), an
// output object with success false, Codex's texts for a declined call;
// and a rollback drops the undone turns' events with their messages.
func TestEventsErrorsAndRollback(t *testing.T) {
	const sid = "c0ffee00-0000-4000-8000-0000000000e1"
	call := func(sec int, id, cmd string) map[string]any {
		args, _ := json.Marshal(map[string]string{"cmd": cmd})
		return env(sec, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": id})
	}
	output := func(sec int, id string, out any) map[string]any {
		return env(sec, "response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out})
	}
	exec := func(sec int, id, status string, code any) map[string]any {
		return env(sec, "event_msg", map[string]any{"type": "item_completed", "item": map[string]any{
			"type": "CommandExecution", "id": id, "status": status, "exit_code": code}})
	}
	huge := strings.Repeat("é", history.MaxOutput)
	h := newHome(t)
	h.rollout(sid, t0, lines(
		meta(0, sid, "/p"),
		respMsg(1, "user", "go"),
		call(2, "ok", "true"), exec(3, "ok", "completed", 0), output(3, "ok", "fine"),
		call(4, "exit1", "false"), exec(5, "exit1", "completed", 1), output(5, "exit1", "Process exited with code 1"),
		call(6, "late", "false"), output(7, "late", "x"), exec(7, "late", "failed", nil),
		call(8, "declined", "rm -rf /"), output(9, "declined", "exec command rejected by user"),
		call(10, "obj", "true"), output(11, "obj", map[string]any{"content": "no", "success": false}),
		call(12, "arr", "true"), output(13, "arr", []any{map[string]any{"type": "input_text", "text": "a"}, map[string]any{"type": "input_image", "image_url": "data:"}}),
		call(14, "big", "yes"), output(15, "big", huge),
		respMsg(16, "assistant", "done"),
		turn(20, "second", "answer two"),
		call(22, "undone", "true"), output(23, "undone", "gone"),
		env(24, "event_msg", map[string]any{"type": "thread_rolled_back", "num_turns": 1}),
		turn(25, "third", "answer three"),
	)...)
	s := newTestScanner(h.dir)
	evs := eventsOf(t, s, sid)
	checkEvents(t, s, sid, evs)
	errs := map[string]bool{}
	for _, e := range evs {
		if e.Kind == session.EventToolResult {
			errs[e.ToolID] = e.IsError
		}
	}
	want := map[string]bool{"ok": false, "exit1": true, "late": true, "declined": true, "obj": true, "arr": false, "big": false}
	for id, isErr := range want {
		if got, ok := errs[id]; !ok || got != isErr {
			t.Errorf("result %s: error %v (present %v), want %v", id, got, ok, isErr)
		}
	}
	if _, ok := errs["undone"]; ok {
		t.Error("the rolled-back turn's call is still there")
	}
	if r, _ := findEvent(evs, session.EventToolResult, "arr"); r.Text != "a" {
		t.Errorf("array output %q", r.Text)
	}
	// é is two bytes, so the cut before the "…" steps back one to a rune start.
	if r, _ := findEvent(evs, session.EventToolResult, "big"); r.Text != huge[:history.MaxOutput-4]+"…" {
		t.Errorf("clipped output: %d bytes, ends %q", len(r.Text), r.Text[max(0, len(r.Text)-8):])
	}
	if got := kinds(evs); got[len(got)-2] != "user: third" {
		t.Errorf("after the rollback: %q", got)
	}
}

func TestEventsNotFound(t *testing.T) {
	s := newTestScanner(filepath.Join(repoRecording, "codex"))
	for _, id := range []string{"", "nope", "../../etc/passwd", "*", "01a22933-9fa0-7061-a419-c6368c8164b0"} {
		if _, err := s.Events(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events(%q) = %v, want ErrNotFound", id, err)
		}
	}
	if _, err := New(Options{}).Events(context.Background(), recChat); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("no Codex home: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repoRecording, "codex", "state_5.sqlite-wal")); err == nil {
		t.Error("reading events created a WAL beside the recording")
	}
}
