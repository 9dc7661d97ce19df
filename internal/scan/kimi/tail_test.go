package kimi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"paddock/internal/catalog"
	"paddock/internal/scan/scantest"
	"paddock/internal/scan/tailwin"
	"paddock/internal/session"
	"paddock/internal/sharedtest"
)

// The catalog reads first pages through it.
var _ catalog.TailReader = (*Scanner)(nil)

// fullRead reads path whole as Conversation does for its layout.
func fullRead(t testing.TB, path string, l layout) []session.Message {
	t.Helper()
	read := readWireConversation
	if l == legacy {
		read = readLegacyConversation
	}
	msgs, _, err := read(context.Background(), path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return msgs
}

// readTail is wireTail or legacyTail.
func readTail(ctx context.Context, path string, l layout, n int, window int64) (tail, error) {
	if l == legacy {
		return legacyTail(ctx, path, n, window)
	}
	return wireTail(ctx, path, n, window)
}

// checkTail asserts the tail property on the file at path read as layout
// l with first windows from a few bytes (scantest.TailCheck): the tail is
// exactly the last n messages of a full read, and complete says whether
// that is all.
func checkTail(t testing.TB, path string, l layout) {
	t.Helper()
	c := tailer(t, l).Check(t, path)
	c.Windows = scantest.TailWindows(c.Size)
	c.Run(t)
}

// checkEdges checks the tail with a first window starting at and around
// every line of the file at path.
func checkEdges(t testing.TB, path string, l layout) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := tailer(t, l).Check(t, path)
	c.Windows = scantest.EdgeWindows(data)
	c.Run(t)
}

// tailer is the tail property's two reads of a file as layout l, whole
// and from its end. A window is read again as it grows: bytes are not read
// once only.
func tailer(t testing.TB, l layout) scantest.Tailer {
	ctx := context.Background()
	return scantest.Tailer{
		Full: func(path string) ([]session.Message, error) { return fullRead(t, path, l), nil },
		Tail: func(path string, n int, window int64) (*scantest.TailRead, error) {
			got, err := readTail(ctx, path, l, n, window)
			return &scantest.TailRead{Msgs: got.msgs, Complete: got.complete, Read: got.folded + got.scanned}, err
		},
	}
}

// checkTailConversation asserts the property through the Scanner, with
// its real window, and on the session's file with small ones: msgs is
// what Conversation(id) returned. conversation() calls it, so every
// session a test of this package reads is a case.
func checkTailConversation(t testing.TB, s *Scanner, id string, msgs []session.Message) {
	t.Helper()
	scantest.CheckTailConversation(t, s.TailConversation, id, msgs, scantest.TailNs())
	if c, ok := s.find(id); ok {
		checkTail(t, c.path, c.layout)
	}
}

// Every JSONL file of the fixtures the package's tests read, read as a
// wire and as a kimi-cli context: the recording in testdata/, the real
// Kimi Code 2.1.0 home and snapshots, and the public samples.
func TestTailFixtures(t *testing.T) {
	recordings, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*"))
	paths := scantest.JSONLFiles(t, append(recordings,
		sharedtest.Fixtures(t, "real", "kimi-code-2.1.0"),
		sharedtest.Fixtures(t, "public", "kimi"))...)
	if len(paths) < 20 {
		t.Fatalf("only %d fixture files", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			checkTail(t, path, current)
			checkTail(t, path, legacy)
		})
	}
}

// The rules that look back past a window's start, with windows starting
// at and around every line.
func TestTailWindowEdges(t *testing.T) {
	undo := func(n int, ms int64) string {
		return `{"type":"context.undo","count":` + itoa(int64(n)) + `,"time":` + itoa(ms) + `}`
	}
	// running opens a step with an unanswered tool call: the messages
	// after it are held back until its result.
	running := func(step, prompt string, ms int64) []string {
		return []string{recUser(prompt, ms), recStep(step, ms+1), recPart(step, "text", "running "+step, ms+2), recToolCall(step, "c-"+step, ms+3)}
	}
	steer := func(text string, ms int64) string {
		return recMessage("user", text, `{"kind":"user","inTurn":true}`, ms)
	}
	// Where a window's fold differs from the whole file's, it is in its
	// first entry (which a page never shows: a window answers only when it
	// has more messages than asked for) or in more: the cases that need it
	// type more than one message while a tool runs.
	cases := []struct {
		name string
		wire []string
	}{
		{"typed while a tool runs, then its result",
			slices.Concat(turn("a", "one", "A", t0), running("b", "two", t0+10), []string{steer("also this", t0+20), recUser("and this", t0+21),
				recToolResult("c-b", t0+22), recStepEnd("b", "tool_use", t0+23)}, turn("c", "three", "C", t0+30))},
		{"typed while a tool runs, then /undo",
			slices.Concat(turn("a", "one", "A", t0), running("b", "two", t0+10),
				[]string{recUser("typed one", t0+20), recUser("typed two", t0+21), recUser("typed three", t0+22), undo(1, t0+23)},
				turn("c", "three", "C", t0+30))},
		{"typed while a tool runs, then /clear",
			slices.Concat(turn("a", "one", "A", t0), running("b", "two", t0+10),
				[]string{recUser("typed one", t0+20), recUser("typed two", t0+21), `{"type":"context.clear","time":` + itoa(t0+22) + `}`},
				turn("c", "three", "C", t0+30))},
		{"typed while a tool runs, then a compaction",
			slices.Concat(turn("a", "one", "A", t0), running("b", "two", t0+10),
				[]string{recUser("typed one", t0+20), recUser("typed two", t0+21), `{"type":"context.apply_compaction","summary":"S","compactedCount":2,"time":` + itoa(t0+22) + `}`},
				turn("c", "three", "C", t0+30))},
		{"a compaction keeping turns",
			slices.Concat(turn("a", "one", "A", t0), running("b", "two", t0+10),
				[]string{recUser("typed", t0+20), `{"type":"context.apply_compaction","summary":"S","compactedCount":2,"keptUserMessageCount":1,"time":` + itoa(t0+21) + `}`},
				turn("c", "three", "C", t0+30))},
		{"/undo reaching before the window",
			slices.Concat(turn("a", "one", "A", t0), turn("b", "two", "B", t0+10), turn("c", "three", "C", t0+20),
				[]string{undo(2, t0+30)}, turn("d", "four", "D", t0+40), []string{undo(1, t0+50)}, turn("e", "five", "E", t0+60))},
		{"/undo stopped by a compaction",
			slices.Concat(turn("a", "one", "A", t0), []string{`{"type":"context.apply_compaction","summary":"S","compactedCount":2,"time":` + itoa(t0+5) + `}`},
				turn("b", "two", "B", t0+10), []string{undo(5, t0+20)}, turn("c", "three", "C", t0+30))},
		{"a step's parts after the edge",
			[]string{recUser("q", t0), recStep("a", t0+1), recPart("a", "text", "first part ", t0+2), recPart("a", "text", "second part", t0+3),
				recStepEnd("a", "interrupted", t0+4), recPart("a", "text", " late", t0+5), recUser("go on", t0+6),
				recStep("b", t0+7), recPart("b", "text", "B", t0+8), recStepEnd("b", "end_turn", t0+9)}},
		{"the clock running backwards before the window",
			slices.Concat(turn("a", "one", "A", t0+5000), turn("b", "two", "B", t0+1000), turn("c", "three", "C", t0+2000))},
		{"the clock running backwards in a record with no entry",
			slices.Concat(turn("a", "one", "A", t0), []string{recToolResult("stray", t0+9000)}, turn("b", "two", "B", t0+1000))},
		{"records with no time",
			[]string{`{"type":"context.append_message","message":{"role":"user","content":"no time","toolCalls":[]}}`,
				recUser("timed", t0), `{"type":"context.append_message","message":{"role":"assistant","content":"untimed answer","toolCalls":[]}}`,
				recUser("later", t0+10), `{"type":"context.append_message","message":{"role":"assistant","content":"untimed again","toolCalls":[]}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			path := fake{bucket: bucket, id: "session_edge", state: stateJSON("session_edge", "/p", "", t0),
				wire: append([]string{recMeta(t0)}, c.wire...)}.write(t, home)
			checkEdges(t, path, current)
			checkTail(t, path, current)
		})
	}
}

// The kimi-cli layout: lines stand alone, so any window's messages are
// the file's last ones.
func TestTailLegacyEdges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "context.jsonl")
	var b strings.Builder
	b.WriteString(`{"role": "_system_prompt", "content": "You are Kimi CLI."}` + "\n")
	for i := range 6 {
		fmt.Fprintf(&b, `{"role":"user","content":"question %d"}`+"\n", i)
		b.WriteString(`{"role":"user","content":[{"type":"text","text":"<system>CHECKPOINT</system>"}]}` + "\n")
		fmt.Fprintf(&b, `{"role":"assistant","content":[{"type":"think","think":"T"},{"type":"text","text":"answer %d"}]}`+"\n", i)
		b.WriteString(`{"role":"tool","content":"output","tool_call_id":"x"}` + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if len(fullRead(t, path, legacy)) != 12 {
		t.Fatal("the file does not read as 12 messages")
	}
	checkEdges(t, path, legacy)
	checkTail(t, path, legacy)
}

// A window whose clock check fails is read whole: a message's time is
// clamped to a later one before the window, which only a full read (or a
// window reaching it) knows.
func TestTailClockBackwards(t *testing.T) {
	home := t.TempDir()
	var wire []string
	wire = append(wire, recMeta(t0))
	wire = append(wire, turn("a", "one", "A", t0+900000)...)
	for i := range 20 {
		wire = append(wire, turn(fmt.Sprintf("s%d", i), fmt.Sprintf("prompt %d", i), fmt.Sprintf("answer %d", i), t0+int64(i)*10)...)
	}
	path := fake{bucket: bucket, id: "session_clock", state: stateJSON("session_clock", "/p", "", t0), wire: wire}.write(t, home)
	msgs := fullRead(t, path, current)
	got, err := wireTail(context.Background(), path, 1, 64)
	if err != nil || !slices.Equal(got.msgs, msgs[len(msgs)-1:]) || got.msgs[0].Time.UnixMilli() != t0+900001 {
		t.Fatalf("%+v, %v; want %+v", got.msgs, err, msgs[len(msgs)-1:])
	}
}

// A window's answer is trusted only when it settles the page; these
// windows do, folding less than the file, so the cases above test the
// window rules and not only the fall back to the whole file. The /undo
// comes after the window's first step boundary: it is no reason to grow.
func TestTailStopsEarly(t *testing.T) {
	home := t.TempDir()
	wire := []string{recMeta(t0)}
	for i := range 20 {
		wire = append(wire, turn(fmt.Sprintf("s%d", i), fmt.Sprintf("prompt %d", i), fmt.Sprintf("answer %d", i), t0+int64(i)*10)...)
	}
	wire = append(wire, turn("x", "undone", "X", t0+500)...)
	wire = append(wire, `{"type":"context.undo","count":1,"time":`+itoa(t0+600)+`}`)
	path := fake{bucket: bucket, id: "session_early", state: stateJSON("session_early", "/p", "", t0), wire: wire}.write(t, home)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	msgs := fullRead(t, path, current)
	for _, n := range []int{1, 2} {
		got, err := wireTail(context.Background(), path, n, 64)
		if err != nil || !slices.Equal(got.msgs, msgs[len(msgs)-n:]) || got.complete || got.folded > st.Size()*3/4 {
			t.Errorf("n=%d: %q, complete %v, folded %d of %d bytes, %v", n, texts(got.msgs), got.complete, got.folded, st.Size(), err)
		}
	}
}

// A 50 MB wire (BenchmarkTail50MB's): the first page is folded from the
// last few turns; the rest of the file is only scanned for its times.
func TestTailBigWire(t *testing.T) {
	home := t.TempDir()
	path := writeBigWire(t, home)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	s := newTest(home)
	msgs := conversation(t, s, "session_big")
	if len(msgs) != bigWireMessages {
		t.Fatalf("%d messages", len(msgs))
	}
	for _, n := range []int{1, 50} {
		got, err := wireTail(context.Background(), path, n, tailwin.FirstWindow)
		if err != nil || !slices.Equal(got.msgs, msgs[len(msgs)-n:]) || got.complete {
			t.Fatalf("n=%d: %q, %v", n, texts(got.msgs), err)
		}
		if got.folded > 16<<20 || got.folded*3 > st.Size() || got.scanned > st.Size() {
			t.Errorf("n=%d: folded %d and scanned %d of %d bytes", n, got.folded, got.scanned, st.Size())
		}
		t.Logf("n=%d: folded %d and scanned %d of %d bytes", n, got.folded, got.scanned, st.Size())
	}
}

func TestTailConversationErrors(t *testing.T) {
	home := t.TempDir()
	fake{bucket: bucket, id: "session_one", state: stateJSON("session_one", "/p", "", t0),
		wire: append([]string{recMeta(t0)}, turn("a", "one", "A", t0)...)}.write(t, home)
	fake{bucket: bucket, id: "session_empty", state: stateJSON("session_empty", "/p", "", t0),
		wire: []string{recMeta(t0)}}.write(t, home)
	s := newTest(home)
	scantest.CheckTailErrors(t, s.TailConversation, "session_one", []string{"", "nope", "../../etc/passwd", "*", "session_none"}, "session_empty")
	if msgs, complete, err := s.TailConversation(context.Background(), "session_one", 0); err != nil || len(msgs) != 1 || complete {
		t.Errorf("n=0 (read as 1): %q, %v, %v", texts(msgs), complete, err)
	}
}

// writeBigWire writes a 50 MB kimi-code session under home: the real
// wire of testdata's "tools" session (prompts, streamed steps, tool calls
// and approvals, its 70 KB tool snapshot and kimi's UI mirror lines)
// repeated about 500 times, each copy's times an hour after the last.
func writeBigWire(t testing.TB, home string) string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*", "kimi", "sessions", "*", "session_6852ccb6-*", "agents", "main", "wire.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no testdata wire")
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	timeRE := regexp.MustCompile(`"time":(\d{13})`)
	var b bytes.Buffer
	for i := int64(0); b.Len() < 50<<20; i++ {
		b.Write(timeRE.ReplaceAllFunc(data, func(m []byte) []byte {
			ms, _ := strconv.ParseInt(string(m[len(`"time":`):]), 10, 64)
			return []byte(`"time":` + strconv.FormatInt(ms+i*3600_000, 10))
		}))
	}
	path := fake{bucket: bucket, id: "session_big", state: stateJSON("session_big", "/p", "", t0), wire: []string{}}.write(t, home)
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bigWireMessages is how many messages writeBigWire's wire holds.
const bigWireMessages = 4072

// bigWireScanner writes writeBigWire's wire ("session_big") and returns a
// Scanner over it and the wire's size in MB.
func bigWireScanner(b *testing.B) (*Scanner, float64) {
	home := b.TempDir()
	st, err := os.Stat(writeBigWire(b, home))
	if err != nil {
		b.Fatal(err)
	}
	return newTest(home), float64(st.Size()) / (1 << 20)
}

// BenchmarkConversation50MB folds the whole 50 MB wire of writeBigWire.
func BenchmarkConversation50MB(b *testing.B) {
	s, mb := bigWireScanner(b)
	for b.Loop() {
		msgs, err := s.Conversation(context.Background(), "session_big")
		if err != nil || len(msgs) != bigWireMessages {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
	b.ReportMetric(mb, "MB")
}

// BenchmarkTail50MB reads the first preview page (50 messages) of the
// same wire.
func BenchmarkTail50MB(b *testing.B) {
	s, mb := bigWireScanner(b)
	for b.Loop() {
		msgs, complete, err := s.TailConversation(context.Background(), "session_big", 50)
		if err != nil || len(msgs) != 50 || complete {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
	b.ReportMetric(mb, "MB")
}
