package kimi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"paddock/internal/testkit/fuzzseed"
)

// The wire readers decode with jsonpeek instead of json.Unmarshal into
// structs; these tests hold them to what the structs read, line by line:
// the same type, the same broken lines, the same members.

// refRecord is the struct decodeRecord replaced.
type refRecord struct {
	Type       string          `json:"type"`
	Time       json.RawMessage `json:"time"`
	CreatedAt  json.RawMessage `json:"created_at"`
	Message    json.RawMessage `json:"message"`
	Event      json.RawMessage `json:"event"`
	Cwd        json.RawMessage `json:"cwd"`
	ModelAlias json.RawMessage `json:"modelAlias"`
	Model      json.RawMessage `json:"model"`
	Count      json.RawMessage `json:"count"`
	KeptUsers  json.RawMessage `json:"keptUserMessageCount"`
}

type refMessage struct {
	Role       json.RawMessage `json:"role"`
	Content    json.RawMessage `json:"content"`
	Origin     json.RawMessage `json:"origin"`
	ToolCalls  json.RawMessage `json:"toolCalls"`
	ToolCallID json.RawMessage `json:"toolCallId"`
}

type refEvent struct {
	Type         json.RawMessage `json:"type"`
	UUID         json.RawMessage `json:"uuid"`
	StepUUID     json.RawMessage `json:"stepUuid"`
	FinishReason json.RawMessage `json:"finishReason"`
	ToolCallID   json.RawMessage `json:"toolCallId"`
	Part         json.RawMessage `json:"part"`
}

// refRecordType is recordType as it was: the fast path, else a decode.
func refRecordType(line []byte) (string, bool) {
	if t, ok := lineType(line); ok {
		return t, true
	}
	if len(line) > maxSlowTypeBytes {
		return "", true
	}
	var r struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(line, &r) != nil {
		return "", false
	}
	var s string
	if len(r.Type) == 0 || r.Type[0] != '"' || json.Unmarshal(r.Type, &s) != nil {
		return "", true
	}
	return knownType([]byte(s)), true
}

func checkDecode(t *testing.T, line []byte) {
	t.Helper()
	typ, ok := recordType(line)
	wantTyp, wantOK := refRecordType(line)
	if typ != wantTyp || ok != wantOK {
		t.Fatalf("recordType(%.80q) = %q %v, want %q %v", line, typ, ok, wantTyp, wantOK)
	}
	r, ok := decodeRecord(line)
	var want refRecord
	if wantOK := json.Unmarshal(line, &want) == nil; ok != wantOK {
		t.Fatalf("decodeRecord(%.80q) ok = %v, json.Unmarshal %v", line, ok, wantOK)
	}
	if !ok {
		return
	}
	for name, p := range map[string][2]json.RawMessage{
		"time": {r.Time, want.Time}, "created_at": {r.CreatedAt, want.CreatedAt}, "event": {r.Event, want.Event},
		"cwd": {r.Cwd, want.Cwd}, "modelAlias": {r.ModelAlias, want.ModelAlias}, "model": {r.Model, want.Model},
		"count": {r.Count, want.Count}, "keptUserMessageCount": {r.KeptUsers, want.KeptUsers},
	} {
		if !bytes.Equal(p[0], p[1]) {
			t.Errorf("decodeRecord(%.80q).%s = %q, want %q", line, name, p[0], p[1])
		}
	}
	var m refMessage
	mOK := len(want.Message) > 0 && want.Message[0] == '{' && json.Unmarshal(want.Message, &m) == nil
	if r.msgOK != mOK || mOK && (!bytes.Equal(r.msg.Role, m.Role) || !bytes.Equal(r.msg.Content, m.Content) ||
		!bytes.Equal(r.msg.Origin, m.Origin) || !bytes.Equal(r.msg.ToolCalls, m.ToolCalls) || !bytes.Equal(r.msg.ToolCallID, m.ToolCallID)) {
		t.Errorf("decodeRecord(%.80q) message = %+v %v, want %+v %v", line, r.msg, r.msgOK, m, mOK)
	}
	var e refEvent
	eOK := len(want.Event) > 0 && want.Event[0] == '{' && json.Unmarshal(want.Event, &e) == nil
	if r.evOK != eOK || eOK && (!bytes.Equal(r.ev.Type, e.Type) || !bytes.Equal(r.ev.UUID, e.UUID) || !bytes.Equal(r.ev.StepUUID, e.StepUUID) ||
		!bytes.Equal(r.ev.FinishReason, e.FinishReason) || !bytes.Equal(r.ev.ToolCallID, e.ToolCallID) || !bytes.Equal(r.ev.Part, e.Part)) {
		t.Errorf("decodeRecord(%.80q) event = %+v %v, want %+v %v", line, r.ev, r.evOK, e, eOK)
	}
}

var decodeCases = []string{
	`{"type":"context.undo","count":2}`,
	`{"type":"context.undo","type":5}`,
	`{"type":"context.undo","TYPE":null}`,
	`{"type":"context.undo","Type":[]}`,
	`{"type":"context.append_message","MESSAGE":{"ROLE":"user","content":"x"},"message":null}`,
	`{"type":"context.append_message","message":{"role":"user"},"message":{"role":"assistant"}}`,
	`{"type":"context.append_loop_event","event":{"type":"step.begin","ſtepUuid":"s","\u0075uid":"u"}}`,
	`{"type":"context.append_loop_event","event":[1],"time":1e3}`,
	`{"type":"context.append_loop_event","event":{"type":"x"}`,
	`{"message":{"x":1},"type":"context.append_message","kind":"event"}`,
	`{"message":{"x":1},"Type":"context.undo","count":1}`,
	`{"message":{"x":1},"type":"agent.x","type":"context.clear"}`,
	`{"message":{"x":1},"type":"context.clear",}`,
	`{"message":1,"type":5}`,
	`null`, ` null `, `[1]`, `"x"`, `{"type":"context.clear"} x`,
}

func TestDecodeMatchesUnmarshal(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*", "kimi", "sessions", "*", "*", "agents", "main", "wire.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no testdata wires")
	}
	n := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			checkDecode(t, line)
			n++
		}
	}
	for _, c := range decodeCases {
		checkDecode(t, []byte(c))
	}
	t.Logf("%d lines", n)
}

func FuzzDecodeRecord(f *testing.F) {
	for _, c := range decodeCases {
		f.Add([]byte(c))
	}
	for _, l := range fuzzseed.Lines(fuzzseed.Files(f, fuzzseed.Of("kimi", ".jsonl")), 12, 4<<10) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if len(line) > maxSlowTypeBytes {
			return
		}
		checkDecode(t, line)
	})
}
