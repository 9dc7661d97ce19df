package cursor

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"paddock/internal/history"
	"paddock/internal/session"
	"paddock/internal/testkit/fuzzseed"
)

// cursorFiles are Cursor's recordings: its agent transcripts.
func cursorFiles(tb testing.TB) []fuzzseed.File {
	return fuzzseed.Files(tb, fuzzseed.Of("cursor", ".jsonl"))
}

// FuzzTranscript feeds arbitrary bytes to the transcript readers as a
// file. Reading never fails on content, the conversation is exactly the
// record's message events, and the listing counts the conversation's
// prompts.
func FuzzTranscript(f *testing.F) {
	for _, c := range fuzzseed.Chunks(cursorFiles(f), 6, 8, 8<<10) {
		f.Add(c)
	}
	for _, s := range []string{
		`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nhi\n</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"t"},{"type":"text","text":"a"},{"type":"tool_use","id":"1","name":"Shell","input":{"command":"ls"}}]}}`,
		`{"role":"user","content":"top level"}` + "\n" + `{"type":"turn_ended"}`,
		`{"role":"user","message":{"content":[{"type":"tool_result","tool_use_id":"1","content":[{"type":"text","text":"out"}]}]}}`,
		`{"role":"assistant","message":null,"content":[{"type":"text","text":"x"},{"type":"text","text":"y"}]}`,
		"{\"role\":\"user\",\"content\":\"\xff\"}\n\n \n{", `[]`, `"x"`, `{"message":{"content":7}}`,
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "t.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		msgs, bad, err := transcriptConversation(ctx, path)
		if err != nil {
			t.Fatalf("conversation: %v", err)
		}
		var evs []session.Event
		_, evBad, err := transcriptEvents(ctx, path, func(e session.Event) error { evs = append(evs, e); return nil })
		if err != nil {
			t.Fatalf("events: %v", err)
		}
		if bad != evBad {
			t.Fatalf("conversation skipped %d lines, events %d", bad, evBad)
		}
		checkMessages(t, msgs)
		checkEventsHold(t, evs, msgs)
		sum, err := transcriptSummary(ctx, path, int64(len(data)))
		if err != nil {
			t.Fatalf("summary: %v", err)
		}
		var prompts []string
		for _, m := range msgs {
			if m.Role == session.RoleUser {
				prompts = append(prompts, m.Text)
			}
		}
		if sum.prompts != len(prompts) {
			t.Fatalf("summary counts %d prompts, the conversation has %d", sum.prompts, len(prompts))
		}
		if len(prompts) > 0 && (sum.firstPrompt != history.ClipLine(prompts[0], maxPromptRunes) ||
			sum.lastPrompt != history.ClipLine(prompts[len(prompts)-1], maxPromptRunes)) {
			t.Fatalf("summary prompts %q … %q, conversation %q", sum.firstPrompt, sum.lastPrompt, prompts)
		}
	})
}

// checkMessages: every message is a user's or an assistant's, with
// trimmed, non-empty, valid text.
func checkMessages(t *testing.T, msgs []session.Message) {
	t.Helper()
	for _, m := range msgs {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant || m.Text == "" ||
			m.Text != strings.TrimSpace(m.Text) || !utf8.ValidString(m.Text) {
			t.Fatalf("bad message %+v", m)
		}
	}
}

// checkEventsHold: the record's events are valid text, and its message
// events are the conversation, in order.
func checkEventsHold(t *testing.T, evs []session.Event, msgs []session.Message) {
	t.Helper()
	var fromEvents []session.Message
	for _, e := range evs {
		for _, s := range []string{e.Text, e.Tool, e.ToolID, e.Input} {
			if !utf8.ValidString(s) {
				t.Fatalf("invalid UTF-8 in event %+v", e)
			}
		}
		if len(e.Text) > history.MaxOutput+len("…") && e.Kind == session.EventToolResult {
			t.Fatalf("tool output of %d bytes not clipped", len(e.Text))
		}
		if e.Kind == session.EventMessage {
			fromEvents = append(fromEvents, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
		}
	}
	if !slices.Equal(fromEvents, msgs) {
		t.Fatalf("events' messages %q, conversation %q", fromEvents, msgs)
	}
}

// FuzzBlob: a message blob of any bytes gives at most one message, and
// its events hold that message exactly once.
func FuzzBlob(f *testing.F) {
	for _, l := range fuzzseed.Lines(cursorFiles(f), 16, 4<<10) {
		f.Add(l)
	}
	for _, s := range []string{
		`{"role":"user","content":[{"type":"text","text":"<user_info>x</user_info>\n<user_query>hi</user_query>"}]}`,
		`{"role":"assistant","content":[{"type":"reasoning","text":"r"},{"type":"text","text":"a"},{"type":"tool-call","toolCallId":"1","toolName":"Shell","args":"{\"command\":\"ls\"}"}]}`,
		`{"role":"tool","content":[{"type":"tool-result","toolCallId":"1","result":{"type":"error-text","value":"no"}}]}`,
		`{"role":"tool","content":[{"type":"tool-result","output":{"type":"content","value":[{"type":"text","text":"x"}]}}]}`,
		`{"role":"system","content":"s"}`, `{"role":"assistant","content":"plain"}`, "\x0a\x20", ` {"role":"user"}`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, ok := blobMessage(data)
		var msgs []session.Message
		if ok {
			msgs = append(msgs, msg)
		}
		checkMessages(t, msgs)
		checkEventsHold(t, blobEvents(data), msgs)
	})
}

// protoField is one field of a protobuf message built by the fuzzer.
type protoField struct {
	num   uint64
	wire  uint64
	value []byte
}

// protoFrom builds a protobuf message from fuzz bytes: each field takes a
// key byte (field number and one of the four wire types protoBytes
// knows), then its value.
func protoFrom(spec []byte) ([]byte, []protoField) {
	var msg []byte
	var fields []protoField
	for len(spec) > 0 {
		k := spec[0]
		spec = spec[1:]
		f := protoField{num: uint64(k>>2) + 1, wire: []uint64{0, 1, 2, 5}[k&3]}
		msg = binary.AppendUvarint(msg, f.num<<3|f.wire)
		switch f.wire {
		case 0:
			v := uint64(0)
			if len(spec) > 0 {
				v, spec = uint64(spec[0])<<9|7, spec[1:]
			}
			msg = binary.AppendUvarint(msg, v)
		case 1, 5:
			n := map[uint64]int{1: 8, 5: 4}[f.wire]
			msg = append(msg, make([]byte, n)...)
		case 2:
			n := 0
			if len(spec) > 0 {
				n, spec = min(int(spec[0]), len(spec)-1), spec[1:]
			}
			f.value, spec = spec[:n], spec[n:]
			msg = binary.AppendUvarint(msg, uint64(len(f.value)))
			msg = append(msg, f.value...)
		}
		fields = append(fields, f)
	}
	return msg, fields
}

// FuzzProtoBytes: on any bytes protoBytes returns only slices of its
// input; on a well-formed message it returns exactly the length-delimited
// values of the field asked for, in order.
func FuzzProtoBytes(f *testing.F) {
	f.Add([]byte{0x00, 0x03, 0x02, 0x01, 0x02, 0x03, 0x30, 0x05, 'h', 'e', 'l', 'l', 'o'}, []byte{0x0a, 0x01, 0x00})
	f.Add([]byte{}, []byte{0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, spec, raw []byte) {
		msg, fields := protoFrom(spec)
		for num := uint64(1); num <= 64; num++ {
			var want [][]byte
			for _, fl := range fields {
				if fl.num == num && fl.wire == 2 {
					want = append(want, fl.value)
				}
			}
			got := protoBytes(msg, num)
			if len(got) != len(want) {
				t.Fatalf("field %d: %d values, want %d", num, len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("field %d value %d: %x, want %x", num, i, got[i], want[i])
				}
			}
		}
		for num := uint64(0); num < 4; num++ {
			total := 0
			for _, v := range protoBytes(raw, num) {
				total += len(v)
			}
			if total > len(raw) {
				t.Fatalf("values of %d bytes from %d bytes of input", total, len(raw))
			}
		}
	})
}

// TestStoreRows builds chats' store.db files from rows taken from every
// recording, cut and spliced at random (the meta row as written, or one
// naming a root blob that lists the message blobs), and reads them: reading
// never fails on content, the conversation is the blobs' messages in the
// root's order, and the record's message events are the conversation.
// It is a seeded random test, not a fuzz target: SQLite's own coverage
// varies from run to run, which leaves the fuzz engine minimising noise at
// a few dozen executions a second.
func TestStoreRows(t *testing.T) {
	blobs := fuzzseed.Lines(cursorFiles(t), 8, 4<<10)
	blobs = append(blobs, []byte(`{"role":"user","content":"hi"}`), []byte(`{"role":"assistant","content":[{"type":"text","text":"a"}]}`),
		[]byte(`{"role":"assistant","content":[{"type":"reasoning","text":"r"},{"type":"tool-call","toolCallId":"1","toolName":"Shell","args":{}}]}`),
		[]byte{0x0a, 0x02}, []byte(` {"role":"assistant","content":"y"}`), []byte(`{}`), nil)
	metas := []string{"", "zz", `{"latestRootBlobId":null,"name":7}`,
		hex.EncodeToString([]byte(`{"agentId":"a","latestRootBlobId":"00","subagentInfo":{"parentAgentId":"p"}}`))}
	rng := rand.New(rand.NewPCG(16, 8))
	pick := func() []byte {
		b := blobs[rng.IntN(len(blobs))]
		switch rng.IntN(4) {
		case 0:
			return b[:rng.IntN(len(b)+1)]
		case 1:
			o := blobs[rng.IntN(len(blobs))]
			return append(slices.Clone(b[:rng.IntN(len(b)+1)]), o[rng.IntN(len(o)+1):]...)
		}
		return b
	}
	dir := t.TempDir()
	s := New(Options{Dir: t.TempDir()})
	for i := range 120 {
		checkStoreRows(t, s, filepath.Join(dir, fmt.Sprintf("%d.db", i)), metas[rng.IntN(len(metas))], pick(), pick(), rng.IntN(3) > 0)
	}
}

func checkStoreRows(t *testing.T, s *Scanner, path, meta string, blob1, blob2 []byte, linked bool) {
	t.Helper()
	ctx := context.Background()
	db := openWriter(t, path)
	ids := [][]byte{putBlob(t, db, blob1), putBlob(t, db, blob2)}
	if linked {
		var root []byte
		for _, id := range ids {
			root = append(root, pbBytes(1, id)...)
		}
		meta = hex.EncodeToString([]byte(`{"latestRootBlobId":"` + hex.EncodeToString(putBlob(t, db, root)) + `"}`))
	}
	if _, err := db.Exec("INSERT INTO meta (key, value) VALUES ('0', ?)", meta); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.storeConversation(ctx, path)
	if err != nil {
		t.Fatalf("conversation: %v", err)
	}
	checkMessages(t, msgs)
	if linked {
		var want []session.Message
		for _, b := range [][]byte{blob1, blob2} {
			if m, ok := blobMessage(b); ok {
				want = append(want, m)
			}
		}
		if !slices.Equal(msgs, want) {
			t.Fatalf("conversation %q, want the blobs' %q", msgs, want)
		}
	}
	var evs []session.Event
	_, err = s.storeEvents(ctx, path, func(e session.Event) error { evs = append(evs, e); return nil })
	if err != nil {
		t.Fatalf("events: %v", err)
	}
	checkEventsHold(t, evs, msgs)
	if _, err := s.storeParent(ctx, path); err != nil {
		t.Fatalf("parent: %v", err)
	}
}

// FuzzMetaFiles feeds arbitrary bytes to the readers of a chat's
// meta.json and prompt_history.json: a file is refused or read, and what
// it gives is valid, clipped text and a time a chat can have.
func FuzzMetaFiles(f *testing.F) {
	for _, file := range fuzzseed.Files(f, fuzzseed.Of("cursor", ".json")) {
		f.Add(file.Data)
	}
	for _, s := range []string{
		`{"schemaVersion":1,"createdAtMs":1764000000000,"updatedAtMs":"1764000000","hasConversation":true,"isSubagent":false,"title":"New Agent","cwd":"/tmp/p"}`,
		`{"title":null,"cwd":"C:\\src\\app","createdAtMs":1e400,"updatedAtMs":"2026-11-29T21:26:26Z"}`,
		`["one","two",{"text":"three","timestamp":1764000000000}]`,
		`{"prompts":[{"prompt":"<user_query>q</user_query>","createdAt":"NaN"}]}`,
		`{"history":[null,1,[],{"display":"   "}]}`, `{"items":{}}`, `[]`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "x.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var sum summary
		metaErr := readMetaFile(path, &sum)
		if metaErr != nil && sum != (summary{}) {
			t.Fatalf("a refused meta.json left %+v", sum)
		}
		histErr := readPromptHistory(path, &sum)
		if metaErr != nil && histErr != nil && sum != (summary{}) {
			t.Fatalf("refused files left %+v", sum)
		}
		for _, s := range []string{sum.title, sum.cwd, sum.firstPrompt, sum.lastPrompt} {
			if !utf8.ValidString(s) || s != strings.TrimSpace(s) {
				t.Fatalf("bad text %q", s)
			}
		}
		if utf8.RuneCountInString(sum.title) > maxTitleRunes || utf8.RuneCountInString(sum.firstPrompt) > maxPromptRunes ||
			utf8.RuneCountInString(sum.lastPrompt) > maxPromptRunes {
			t.Fatalf("unclipped text in %+v", sum)
		}
		if sum.cwd != "" && !absPath(sum.cwd) {
			t.Fatalf("relative cwd %q", sum.cwd)
		}
		if (sum.prompts == 0) != (sum.firstPrompt == "") {
			t.Fatalf("%d prompts, first %q", sum.prompts, sum.firstPrompt)
		}
		for _, at := range []time.Time{sum.created, sum.lastEvent} {
			if !at.IsZero() && at.Year() > 9999 {
				t.Fatalf("time %v out of a chat's range", at)
			}
		}
	})
}
