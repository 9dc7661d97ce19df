package opencode

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/imagetest"
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

// checkEvents: the messages are exactly Conversation's, times ascend, and
// every result follows its call.
func checkEvents(t *testing.T, s *Scanner, id string, evs []session.Event) {
	t.Helper()
	historytest.CheckStream(t, id, evs, func(fn func(session.Event) error) error { return s.EachEvent(context.Background(), id, fn) })
	conv, err := s.Conversation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := messagesOf(evs); !slices.Equal(got, conv) {
		t.Errorf("%s: messages of Events = %q, want Conversation %q", id, convText(got), convText(conv))
	}
	var last time.Time
	called := map[string]bool{}
	for i, e := range evs {
		if e.Time.Before(last) {
			t.Errorf("%s event %d (%s): time %v before %v", id, i, e.Kind, e.Time, last)
		}
		last = e.Time
		switch e.Kind {
		case session.EventToolCall:
			called[e.ToolID] = true
		case session.EventToolResult:
			if !called[e.ToolID] {
				t.Errorf("%s event %d: result %q before its call", id, i, e.ToolID)
			}
		}
	}
}

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
	case session.EventImage:
		return "image " + e.Role + " " + e.ToolID + " " + e.MediaType + " " + strconv.Itoa(e.Size)
	}
	return "? " + e.Kind
}

func eventLines(evs []session.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, eventLine(e))
	}
	return out
}

// TestEventsRecording reads the full record of what the real OpenCode
// 1.18.33 wrote under `make fixtures`: in the tools session, the approved
// bash call and its output, the denied one as an error result carrying
// OpenCode's rejection, and the question with the answer (Red); the
// messages are Conversation's. The mock model sends no reasoning, so
// there is no thinking to find here (TestEventsParts has it).
func TestEventsRecording(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "opencode-1.18.33")
	hooks := recordedHooks(t, filepath.Join(dir, "hooks.jsonl"))
	if len(hooks) != 2 {
		t.Fatalf("hooks.jsonl: %d sessions, want 2", len(hooks))
	}
	chat, tools := hooks[0].id, hooks[1].id
	s := New(Options{DataDir: filepath.Join(dir, "opencode"), KeepMissingCwd: true})
	ctx := context.Background()

	evs, err := s.Events(ctx, tools)
	if err != nil {
		t.Fatal(err)
	}
	checkEvents(t, s, tools, evs)
	var calls, results []session.Event
	for _, e := range evs {
		switch e.Kind {
		case session.EventToolCall:
			calls = append(calls, e)
		case session.EventToolResult:
			results = append(results, e)
		case session.EventThinking:
			t.Errorf("thinking %q: the recording has no reasoning part", e.Text)
		}
	}
	if len(calls) != 3 || len(results) != 3 {
		t.Fatalf("tools: %d calls, %d results, want 3 and 3:\n%s", len(calls), len(results), strings.Join(eventLines(evs), "\n"))
	}
	for i, c := range calls {
		if c.ToolID == "" || results[i].ToolID != c.ToolID || !json.Valid([]byte(c.Input)) {
			t.Errorf("call %d = %+v, result %+v", i, c, results[i])
		}
	}
	var approved, denied struct{ Command string }
	json.Unmarshal([]byte(calls[0].Input), &approved)
	json.Unmarshal([]byte(calls[1].Input), &denied)
	if calls[0].Tool != "bash" || !strings.Contains(approved.Command, "echo hello-from-mock-1") ||
		results[0].IsError || results[0].Text != "hello-from-mock-1\n" {
		t.Errorf("approved: call %+v, result %+v", calls[0], results[0])
	}
	if calls[1].Tool != "bash" || !strings.Contains(denied.Command, "echo hello-from-mock-2") ||
		!results[1].IsError || !strings.Contains(results[1].Text, "rejected permission") {
		t.Errorf("denied: call %+v, result %+v", calls[1], results[1])
	}
	if calls[2].Tool != "question" || !strings.Contains(calls[2].Input, "Which color do you prefer?") ||
		results[2].IsError || !strings.Contains(results[2].Text, `="Red"`) {
		t.Errorf("question: call %+v, result %+v", calls[2], results[2])
	}
	// The assistant's words before a call stand before it.
	if i := slices.IndexFunc(evs, func(e session.Event) bool { return e.Kind == session.EventToolCall }); i < 1 ||
		eventLine(evs[i-1]) != "assistant: I'll run a command." {
		t.Errorf("before the first call: %q", eventLines(evs[:max(i, 0)]))
	}

	evs, err = s.Events(ctx, chat)
	if err != nil {
		t.Fatal(err)
	}
	checkEvents(t, s, chat, evs)
	want := []string{"user: hello paddock one", "assistant: Mock reply: done (turn 1).",
		"user: second turn please", "assistant: Mock reply: done (turn 2)."}
	if got := eventLines(evs); !slices.Equal(got, want) {
		t.Errorf("chat events = %q, want %q", got, want)
	}

	for _, id := range []string{"ses_missing", "", "../x"} {
		if _, err := s.Events(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Events(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// TestEventsParts covers the parts the recording lacks: reasoning, a call
// still running (no result), a text split around a tool call (one message,
// where its first text was), synthetic and compaction parts (as
// Conversation drops them), an output over 64 KiB (clipped), a part
// without a time (its message's), and malformed JSON in another part.
func TestEventsParts(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	ms := func(sec int) int64 { return at(sec).UnixMilli() }
	mk := func(v map[string]any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	long := strings.Repeat("é", 40<<10) // 80 KiB
	w.session(sess{id: "ses_p", dir: cwd, created: at(0)})
	w.message("ses_p", 1, "user", at(0),
		text("fix the bug"),
		mk(map[string]any{"type": "text", "text": "<file contents>", "synthetic": true}),
		mk(map[string]any{"type": "file", "mime": "text/plain", "url": "file:///x"}),
		// An image the person attached (`opencode run -f red.png`), kept inline.
		mk(map[string]any{"type": "file", "mime": "image/png", "url": "data:image/png;base64," + imagetest.RedPNG, "synthetic": true, "filename": "red.png"}),
		mk(map[string]any{"type": "file", "mime": "image/png", "url": "file:///p/elsewhere.png"}))
	w.message("ses_p", 2, "assistant", at(1),
		`{"type":"step-start"}`,
		mk(map[string]any{"type": "reasoning", "text": "  Let me look.  ", "time": map[string]any{"start": ms(1)}}),
		mk(map[string]any{"type": "text", "text": "Looking.", "time": map[string]any{"start": ms(2)}}),
		mk(map[string]any{"type": "tool", "tool": "read", "callID": "c1", "state": map[string]any{
			"status": "completed", "input": map[string]any{"filePath": "/x"}, "output": long,
			"title": "x", "metadata": map[string]any{}, "time": map[string]any{"start": ms(3), "end": ms(4)},
			// What read of a PNG returns, as OpenCode 1.18.33 wrote it.
			"attachments": []any{map[string]any{"type": "file", "mime": "image/png", "url": "data:image/png;base64," + imagetest.RedPNG}}}}),
		mk(map[string]any{"type": "text", "text": "Found it."}),
		mk(map[string]any{"type": "tool", "tool": "bash", "callID": "c2", "state": map[string]any{
			"status": "running", "input": map[string]any{"command": "make"}, "time": map[string]any{"start": ms(5)}}}),
		`{"type":"step-finish","reason":"tool-calls"}`)
	w.message("ses_p", 3, "assistant", at(6),
		mk(map[string]any{"type": "tool", "tool": "bash", "callID": "c3", "state": map[string]any{
			"status": "error", "input": map[string]any{"command": "rm -rf /"}, "error": "Tool execution aborted",
			"time": map[string]any{"start": ms(6), "end": ms(7)}}}),
		`{"type":"text","text":`) // malformed: skipped, the rest still read
	w.message("ses_p", 4, "user", at(8), `{"type":"compaction","auto":true}`)
	w.messageData("ses_p", 5, at(9), `{"role":"assistant","summary":true}`, text("Summary of the work so far."))
	w.message("ses_p", 6, "user", at(10), text("thanks"))

	s := New(Options{DataDir: dbDir})
	evs, err := s.Events(context.Background(), "ses_p")
	if err != nil {
		t.Fatal(err)
	}
	checkEvents(t, s, "ses_p", evs)
	want := []string{
		"user: fix the bug",
		"image user  image/png 78",
		"thinking: Let me look.",
		"assistant: Looking.\n\nFound it.",
		`call read c1 {"filePath":"/x"}`,
		"result c1: " + long[:history.MaxOutput-4] + "…", // é is two bytes: the cut steps back to a rune start
		"image  c1 image/png 78",
		`call bash c2 {"command":"make"}`,
		`call bash c3 {"command":"rm -rf /"}`,
		"error c3: Tool execution aborted",
		"user: thanks",
	}
	if got := eventLines(evs); !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", clipLines(got), clipLines(want))
	}
	if !evs[2].Time.Equal(at(1)) || !evs[3].Time.Equal(at(1)) || !evs[4].Time.Equal(at(3)) || !evs[5].Time.Equal(at(4)) {
		t.Errorf("times: thinking %v, message %v, call %v, result %v", evs[2].Time, evs[3].Time, evs[4].Time, evs[5].Time)
	}
	if evs[1].Data != string(imagetest.RedPNGBytes()) || evs[6].Data != evs[1].Data {
		t.Errorf("images of %d and %d bytes, want the PNG", len(evs[1].Data), len(evs[6].Data))
	}
}

func clipLines(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		if len(l) > 80 {
			l = l[:80] + "…"
		}
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// TestEventsSharedRecording: over every session of the larger real
// OpenCode 1.18.33 recording (../shared/fixtures/real), Events holds
// exactly Conversation's messages, each result follows its call, and the
// rejected call (server API reply "reject") is an error result.
func TestEventsSharedRecording(t *testing.T) {
	src := sharedtest.Fixtures(t, "real", "opencode-1.18.33", "data", "opencode.db")
	dir := t.TempDir()
	copyTree(t, filepath.Dir(src), dir)
	s := New(Options{DataDir: dir, KeepMissingCwd: true})
	ctx := context.Background()
	infos, err := s.Scan(ctx, 50, nil)
	if err != nil || len(infos) == 0 {
		t.Fatalf("Scan = %v, %v", ids(infos), err)
	}
	var calls, errs int
	for _, info := range infos {
		evs, err := s.Events(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkEvents(t, s, info.ID, evs)
		for _, e := range evs {
			switch {
			case e.Kind == session.EventToolCall:
				calls++
			case e.Kind == session.EventToolResult && e.IsError:
				errs++
			}
		}
	}
	if calls == 0 || errs == 0 {
		t.Errorf("%d tool calls, %d error results; the recording has both", calls, errs)
	}
}
