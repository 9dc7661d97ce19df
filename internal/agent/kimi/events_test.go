package kimi

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// The recorded sessions' ids (testdata/kimi-2.1.0/manifest.json).
const (
	recDir   = "../../../testdata/kimi-2.1.0/kimi"
	recChat  = "session_c1d6f641-3784-40f3-9cda-1aad0a494b5c"
	recTools = "session_6852ccb6-aa3e-4229-9a61-ad7f2efa8fd5"
)

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
// messages are exactly Conversation's (texts and times), every call's
// input is JSON, a result follows its call, thinking has text.
func checkEvents(t *testing.T, s *Scanner, id string, evs []session.Event) {
	t.Helper()
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
	if msgs := conversation(t, s, id); !slices.Equal(got, msgs) {
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

func findEvent(evs []session.Event, kind, toolID string) session.Event {
	if i := slices.IndexFunc(evs, func(e session.Event) bool { return e.Kind == kind && e.ToolID == toolID }); i >= 0 {
		return evs[i]
	}
	return session.Event{}
}

// The recorded tools session (Kimi Code 2.1.0, testdata): the approved
// command and its output, the denied one (Kimi goes on: the model gets
// the rejection, flagged isError), between the messages Conversation
// shows; the resumed turn after them. (Kimi rejected the mock's question
// when this was recorded: the question is checked on the shared home.)
func TestEventsRecording(t *testing.T) {
	home := t.TempDir()
	copyTree(t, recDir, home)
	s := newTest(home)
	evs := eventsOf(t, s, recTools)
	checkEvents(t, s, recTools, evs)
	want := []string{
		"user: please RUN the thing", "assistant: I'll run a command.",
		"call Bash call_mock_3", "result call_mock_3", "assistant: Mock reply: tool finished.",
		"user: RUN it again please", "assistant: I'll run a command.",
		"call Bash call_mock_5", "result call_mock_5 error", "assistant: Mock reply: tool finished.",
		"user: one more turn after resume", "assistant: Mock reply: done (turn 3).",
	}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
	var args struct{ Command string }
	if call := findEvent(evs, session.EventToolCall, "call_mock_3"); json.Unmarshal([]byte(call.Input), &args) != nil ||
		!strings.Contains(args.Command, "echo hello-from-mock-1") {
		t.Errorf("approved call %+v", call)
	}
	if r := findEvent(evs, session.EventToolResult, "call_mock_3"); r.Text != "hello-from-mock-1\n" {
		t.Errorf("approved result %+v", r)
	}
	if r := findEvent(evs, session.EventToolResult, "call_mock_5"); !strings.Contains(r.Text, "the user rejected the approval request") {
		t.Errorf("denied result %+v", r)
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
	if _, err := s.Events(context.Background(), "session_nope"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
}

// Every session of the shared real home (approvals, a hook's denial, a
// question answered, a subagent) and of the public samples: the event
// messages are Conversation's; the question and its answer, a hook's
// denial flagged as an error, the subagent's work only as the parent's
// call and result, and a think part before its step's text.
func TestEventsFixtures(t *testing.T) {
	home := t.TempDir()
	copyTree(t, sharedtest.Fixtures(t, "real", "kimi-code-2.1.0", "kimi-code-home"), home)
	s := newTest(home)
	for _, info := range scanAll(t, s) {
		checkEvents(t, s, info.ID, eventsOf(t, s, info.ID))
	}
	evs := eventsOf(t, s, "session_181828f0-710c-4d6c-beb2-411594b6c12a")
	q := findEvent(evs, session.EventToolCall, "call_d57f906221c94c8a8585")
	if q.Tool != "AskUserQuestion" || !strings.Contains(q.Input, "Which color do you prefer?") {
		t.Errorf("question %+v", q)
	}
	if a := findEvent(evs, session.EventToolResult, "call_d57f906221c94c8a8585"); !strings.Contains(a.Text, "Blue") || a.IsError {
		t.Errorf("answer %+v", a)
	}
	sub := eventsOf(t, s, "session_07c807cc-e0ff-4a59-bb50-d3fa8f5e5fee")
	if r := findEvent(sub, session.EventToolResult, "call_ec907b90725f41c29012"); r.Text != "denied by dashboard hook" || !r.IsError {
		t.Errorf("hook denial %+v", r)
	}
	if c := findEvent(sub, session.EventToolCall, "call_fcb82d9532cf406cbe06"); c.Tool != "Agent" {
		t.Errorf("subagent call %+v", c)
	}
	for _, e := range sub {
		if strings.Contains(e.Text+e.Input, "hello-from-mock-11") {
			t.Errorf("the subagent's own work in the parent's events: %+v", e)
		}
	}

	pub := t.TempDir()
	base := sharedtest.Fixtures(t, "public", "kimi")
	copyTree(t, filepath.Join(base, "deja-vu", "fixtures", "registry", "kimi"), pub)
	for _, sample := range []string{"sample-main", "sample-compaction"} {
		copyTree(t, filepath.Join(base, "kimi-code", sample), filepath.Join(pub, "sessions", "wd_work_0123456789ab", sample))
	}
	ps := newTest(pub)
	for _, info := range scanAll(t, ps) {
		checkEvents(t, ps, info.ID, eventsOf(t, ps, info.ID))
	}
	got := kinds(eventsOf(t, ps, "session_fixture01"))
	want := []string{
		"user: why does the jwks cache go stale after rotation?",
		"thinking: reasoning to be skipped",
		"assistant: The cache keeps serving the old kid after rotateKey; reload the jwks cache on rotation and add a clock-skew test.",
	}
	if len(got) < 3 || !slices.Equal(got[:3], want) {
		t.Errorf("think part:\n%q\nwant it to start\n%q", got, want)
	}
}

// Synthetic wires for what the recordings lack: thinking streamed in
// parts (one event per step, hidden parts left out), a context message
// holding thinking, tool calls and their result (a migrated session), a
// result deferred messages wait for, an /undo taking the undone turn's
// events with it, and a huge output clipped.
func TestEventsWire(t *testing.T) {
	undo := `{"type":"context.undo","count":1,"time":1}`
	huge := strings.Repeat("é", history.MaxOutput)
	hidden := loopRec(map[string]any{"type": "content.part", "stepUuid": "s1", "part": map[string]any{"type": "think", "think": "HIDDEN", "hidden": true}}, t0+3)
	assistant := `{"type":"context.append_message","message":{"role":"assistant","content":[{"type":"think","think":"planning"},{"type":"text","text":"Calling."}],` +
		`"toolCalls":[{"type":"function","id":"m1","name":"Read","arguments":"{\"path\":\"a.go\"}"}]},"time":` + itoa(t0+20) + `}`
	toolMsg := `{"type":"context.append_message","message":{"role":"tool","content":[{"type":"text","text":"package a"}],"toolCallId":"m1"},"time":` + itoa(t0+21) + `}`
	// Kimi writes the type first; a line this long is read only then.
	bigResult := `{"type":"context.append_loop_event","event":{"type":"tool.result","toolCallId":"c2","result":{"output":"` + huge + `"}},"time":` + itoa(t0+32) + `}`
	wire := slices.Concat([]string{
		recMeta(t0),
		recUser("start", t0+1),
		recStep("s1", t0+2),
		recPart("s1", "think", "first ", t0+3), hidden, recPart("s1", "think", "thought", t0+4),
		recPart("s1", "text", "running", t0+5),
		recToolCall("s1", "c1", t0+6),
		recMessage("user", "also this", `{"kind":"user","inTurn":true}`, t0+7),
		recToolResult("c1", t0+8),
		recStepEnd("s1", "tool_use", t0+9),
		recStep("s2", t0+10), recPart("s2", "text", "ok", t0+11), recStepEnd("s2", "end_turn", t0+12),
		recUser("migrated", t0+19), assistant, toolMsg,
		recUser("big", t0+29), recStep("s3", t0+30), recToolCall("s3", "c2", t0+31), bigResult, recStepEnd("s3", "tool_use", t0+33),
	}, turn("s4", "undone", "UNDONE", t0+40), []string{recStep("s5", t0+45), recToolCall("s5", "c3", t0+46), recToolResult("c3", t0+47), undo})
	home := t.TempDir()
	fake{bucket: bucket, id: "session_e", state: stateJSON("session_e", "/p", "start", t0), wire: wire}.write(t, home)
	s := newTest(home)
	evs := eventsOf(t, s, "session_e")
	checkEvents(t, s, "session_e", evs)
	want := []string{
		"user: start", "thinking: first thought", "assistant: running", "call Bash c1", "result c1", "user: also this", "assistant: ok",
		"user: migrated", "thinking: planning", "assistant: Calling.", "call Read m1", "result m1",
		"user: big", "call Bash c2", "result c2",
	}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
	if c := findEvent(evs, session.EventToolCall, "m1"); c.Input != `{"path":"a.go"}` {
		t.Errorf("context call input %q", c.Input)
	}
	if c := findEvent(evs, session.EventToolCall, "c1"); c.Input != `{"command":"echo TOOL-CALL-TEXT"}` {
		t.Errorf("loop call input %q", c.Input)
	}
	// é is two bytes, so the cut before the "…" steps back one to a rune start.
	if r := findEvent(evs, session.EventToolResult, "c2"); r.Text != huge[:history.MaxOutput-4]+"…" {
		t.Errorf("clipped output: %d bytes, ends %q", len(r.Text), r.Text[max(0, len(r.Text)-8):])
	}
}

// kimi-cli's context.jsonl: thinking, the answer, its tool call, the tool
// message (its "<system>ERROR" wrapper marks an error), in file order.
func TestEventsLegacy(t *testing.T) {
	share, home, _ := legacyTree(t)
	s := New(Options{Home: home, LegacyHome: share})
	evs := eventsOf(t, s, uuidDir)
	checkEvents(t, s, uuidDir, evs)
	want := []string{
		"user: fix the flaky test", "thinking: THINKING", "assistant: Looking at it.",
		"call Shell tc_1", "result tc_1 error", "user: and the docs too", "assistant: Done.",
	}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n%q\nwant\n%q", got, want)
	}
	if c := findEvent(evs, session.EventToolCall, "tc_1"); c.Input != `{"command":"go test"}` {
		t.Errorf("call input %q", c.Input)
	}
	if r := findEvent(evs, session.EventToolResult, "tc_1"); r.Text != "<system>ERROR</system>TOOL OUTPUT" {
		t.Errorf("result text %q", r.Text)
	}
	flat := eventsOf(t, s, uuidFlat)
	checkEvents(t, s, uuidFlat, flat)
	if len(flat) != 2 {
		t.Errorf("flat session events %q", kinds(flat))
	}
}
