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
	"time"

	"paddock/internal/catalog"
	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
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

// readTail is wireTail (with memo) or legacyTail.
func readTail(ctx context.Context, path string, l layout, n int, window int64, memo *clockMemo) (tail, error) {
	if l == legacy {
		return legacyTail(ctx, path, n, window)
	}
	return wireTail(ctx, path, n, window, memo)
}

// checkTail asserts the tail property on the file at path read as layout
// l with first windows from a few bytes (historytest.TailCheck): the tail is
// exactly the last n messages of a full read, and complete says whether
// that is all.
func checkTail(t testing.TB, path string, l layout) {
	t.Helper()
	c := tailer(t, l).Check(t, path)
	c.Windows = historytest.TailWindows(c.Size)
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
	c.Windows = historytest.EdgeWindows(data)
	c.Run(t)
}

// tailer is the tail property's two reads of a file as layout l, whole
// and from its end. A window is read again as it grows: bytes are not read
// once only. Its reads share one clockMemo, as a Scanner's do: windows
// ending before, at and after the part a read before scanned.
func tailer(t testing.TB, l layout) historytest.Tailer {
	ctx := context.Background()
	memo := &clockMemo{}
	return historytest.Tailer{
		Full: func(path string) ([]session.Message, error) { return fullRead(t, path, l), nil },
		Tail: func(path string, n int, window int64) (*historytest.TailRead, error) {
			got, err := readTail(ctx, path, l, n, window, memo)
			return &historytest.TailRead{Msgs: got.msgs, Complete: got.complete, Read: got.folded + got.scanned}, err
		},
	}
}

// checkTailConversation asserts the property through the Scanner, with
// its real window, and on the session's file with small ones: msgs is
// what Conversation(id) returned. conversation() calls it, so every
// session a test of this package reads is a case.
func checkTailConversation(t testing.TB, s *Scanner, id string, msgs []session.Message) {
	t.Helper()
	historytest.CheckTailConversation(t, s.TailConversation, id, msgs, historytest.TailNs())
	if c, ok := s.find(id); ok {
		checkTail(t, c.path, c.layout)
	}
}

// Every JSONL file of the fixtures the package's tests read, read as a
// wire and as a kimi-cli context: the recording in testdata/, the real
// Kimi Code 2.1.0 home and snapshots, and the public samples.
func TestTailFixtures(t *testing.T) {
	recordings, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*"))
	paths := historytest.JSONLFiles(t, append(recordings,
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
	for _, c := range edgeCases() {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			path := fake{bucket: bucket, id: "session_edge", state: stateJSON("session_edge", "/p", "", t0),
				wire: append([]string{recMeta(t0)}, c.wire...)}.write(t, home)
			checkEdges(t, path, current)
			checkTail(t, path, current)
		})
	}
}

// edgeCase is a wire, without its metadata line, for the rules that look
// back past a window's start.
type edgeCase struct {
	name string
	wire []string
}

func edgeCases() []edgeCase {
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
	return []edgeCase{
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
}

// A wire read as it grows, a line appended at a time, by reads that share
// one clockMemo as a Scanner's do: each read scans on from what a read
// before scanned, and must answer as a whole read of the file as it is
// then. The edge cases hold clocks running backwards before and inside
// the window; the recordings are real wires.
func TestTailGrowing(t *testing.T) {
	for _, c := range edgeCases() {
		t.Run(c.name, func(t *testing.T) {
			var data []byte
			for _, l := range append([]string{recMeta(t0)}, c.wire...) {
				data = append(data, l+"\n"...)
			}
			checkGrowing(t, data, []int64{64, 200, 1 << 10})
		})
	}
	recordings, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*", "kimi", "sessions", "*", "*", "agents", "main", "wire.jsonl"))
	if len(recordings) == 0 {
		t.Fatal("no testdata wire")
	}
	t.Run("real", func(t *testing.T) {
		real, _ := filepath.Glob(filepath.Join(sharedtest.Fixtures(t, "real", "kimi-code-2.1.0"), "kimi-code-home", "sessions", "*", "*", "agents", "main", "wire.jsonl"))
		if len(real) == 0 {
			t.Fatal("no real wire")
		}
		recordings = append(recordings, real...)
	})
	for _, path := range recordings {
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(path)))), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkGrowing(t, data, []int64{4 << 10, 16 << 10})
		})
	}
}

// checkGrowing appends data's lines one by one to a file of its own and,
// after each, checks that a tail read with each first window of windows
// is exactly the last n messages of a whole read.
func checkGrowing(t *testing.T, data []byte, windows []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wire.jsonl")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	memo := &clockMemo{}
	for line := range bytes.SplitAfterSeq(data, []byte("\n")) {
		if _, err := f.Write(line); err != nil {
			t.Fatal(err)
		}
		full := fullRead(t, path, current)
		for _, w := range windows {
			for _, n := range []int{1, 3, 50} {
				got, err := wireTail(context.Background(), path, n, w, memo)
				want := full[max(len(full)-n, 0):]
				if err != nil || !slices.Equal(got.msgs, want) || got.complete != (len(full) <= n) {
					t.Fatalf("at %d bytes, tail(n=%d, window=%d) = %q, complete %v, %v;\nwant %q of %d, complete %v",
						len(full), n, w, texts(got.msgs), got.complete, err, texts(want), len(full), len(full) <= n)
				}
			}
		}
	}
}

// A live session's second read scans only what was appended since the
// first (and the few bytes that vouch for the part scanned before); a
// read of an unchanged wire scans nothing new.
func TestTailScansAppendOnly(t *testing.T) {
	dir := t.TempDir()
	wire := []string{recMeta(t0)}
	for i := range 2000 {
		wire = append(wire, turn(fmt.Sprintf("s%d", i), fmt.Sprintf("prompt %d", i), fmt.Sprintf("answer %d", i), t0+int64(i)*10)...)
	}
	path := filepath.Join(dir, "wire.jsonl")
	writeFile(t, path, strings.Join(wire, "\n")+"\n")
	const window, n = 64 << 10, 5
	memo := &clockMemo{}
	read := func(memo *clockMemo) tail {
		t.Helper()
		got, err := wireTail(context.Background(), path, n, window, memo)
		full := fullRead(t, path, current)
		if err != nil || !slices.Equal(got.msgs, full[len(full)-n:]) {
			t.Fatalf("%q, %v; want %q", texts(got.msgs), err, texts(full[len(full)-n:]))
		}
		return got
	}
	first := read(memo)
	size := fileSize(t, path)
	if first.scanned < size-2*window {
		t.Fatalf("the first read scanned %d bytes of %d", first.scanned, size)
	}

	var appended int64
	for i := range 3 {
		appended += appendLines(t, path, turn(fmt.Sprintf("x%d", i), "more", "again", t0+100000+int64(i)*10))
	}
	second := read(memo)
	// The window moved by what was appended, give or take a line (every
	// line here is shorter than 1 KiB).
	if most := appended + 2*clockCheckBytes + 1<<10; second.scanned > most {
		t.Errorf("the second read scanned %d bytes, more than %d: %d appended", second.scanned, most, appended)
	}
	third := read(memo)
	if third.scanned > 2*clockCheckBytes {
		t.Errorf("a read of the unchanged wire scanned %d bytes", third.scanned)
	}
	if none := read(nil); none.scanned < fileSize(t, path)-2*window {
		t.Errorf("without a memo, a read scanned %d bytes", none.scanned)
	}
	t.Logf("%d-byte wire: the first read scanned %d bytes; after %d appended, the second %d; unchanged, %d",
		size, first.scanned, appended, second.scanned, third.scanned)
}

// A memo is trusted only for the file it was read from, as it was: a wire
// replaced (by rename) or rewritten in place is scanned again. Here the
// new wire's clock runs backwards in the part the memo scanned of the old
// one, where it did not, so a read trusting the memo gets the last
// message's time wrong.
func TestTailMemoRewritten(t *testing.T) {
	// wire is 30 turns; turn k starts at at and is prompted with p.
	wire := func(k int, at int64, p string) string {
		lines := []string{recMeta(t0)}
		for i := range 30 {
			ms, prompt := t0+int64(i)*10, fmt.Sprintf("prompt %d", i)
			if i == k {
				ms, prompt = at, p
			}
			lines = append(lines, turn(fmt.Sprintf("s%d", i), prompt, fmt.Sprintf("answer %d", i), ms)...)
		}
		return strings.Join(lines, "\n") + "\n"
	}
	cases := []struct {
		name    string
		k       int // the turn whose time is later in the new wire
		rewrite func(t *testing.T, path, data string)
	}{
		{"replaced by rename, its bytes but one time the same", 10, func(t *testing.T, path, data string) {
			tmp := path + ".new"
			writeFile(t, tmp, data)
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewritten in place, longer", 10, func(t *testing.T, path, data string) {
			writeFile(t, path, strings.Replace(data, `"prompt 10"`, `"prompt 10, said at more length"`, 1))
		}},
		// Its first record's time is in its first clockCheckBytes.
		{"rewritten in place, its bytes but the first time the same", 0, func(t *testing.T, path, data string) {
			writeFile(t, path, data)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "wire.jsonl")
			at := t0 + int64(c.k)*10
			writeFile(t, path, wire(c.k, at, fmt.Sprintf("prompt %d", c.k)))
			memo := &clockMemo{}
			if _, err := wireTail(context.Background(), path, 1, 200, memo); err != nil {
				t.Fatal(err)
			}
			c.rewrite(t, path, wire(c.k, at+800, fmt.Sprintf("prompt %d", c.k)))
			full := fullRead(t, path, current)
			if !full[len(full)-1].Time.After(time.UnixMilli(at + 800)) {
				t.Fatalf("the rewritten wire's last time %v is not clamped", full[len(full)-1].Time)
			}
			got, err := wireTail(context.Background(), path, 1, 200, memo)
			if err != nil || !slices.Equal(got.msgs, full[len(full)-1:]) {
				t.Errorf("%+v, %v; want %+v", got.msgs, err, full[len(full)-1:])
			}
		})
	}
}

// The memo keeps the last clockMemoPaths wires read.
func TestClockMemoBounded(t *testing.T) {
	dir := t.TempDir()
	memo := &clockMemo{}
	var paths []string
	for i := range clockMemoPaths + 5 {
		path := filepath.Join(dir, fmt.Sprintf("%02d.jsonl", i))
		wire := []string{recMeta(t0)}
		for j := range 5 {
			wire = append(wire, turn(fmt.Sprintf("s%d", j), "p", "a", t0+int64(j)*10)...)
		}
		writeFile(t, path, strings.Join(wire, "\n")+"\n")
		if _, err := wireTail(context.Background(), path, 1, 64, memo); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	if len(memo.marks) != clockMemoPaths {
		t.Fatalf("%d wires remembered, want %d", len(memo.marks), clockMemoPaths)
	}
	for i, p := range paths {
		if _, ok := memo.marks[p]; ok != (i >= 5) {
			t.Errorf("%s remembered: %v", filepath.Base(p), ok)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
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
	got, err := wireTail(context.Background(), path, 1, 64, nil)
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
		got, err := wireTail(context.Background(), path, n, 64, nil)
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
		got, err := wireTail(context.Background(), path, n, history.FirstWindow, nil)
		if err != nil || !slices.Equal(got.msgs, msgs[len(msgs)-n:]) || got.complete {
			t.Fatalf("n=%d: %q, %v", n, texts(got.msgs), err)
		}
		if got.folded > 16<<20 || got.folded*3 > st.Size() || got.scanned > st.Size() {
			t.Errorf("n=%d: folded %d and scanned %d of %d bytes", n, got.folded, got.scanned, st.Size())
		}
		t.Logf("n=%d: folded %d and scanned %d of %d bytes", n, got.folded, got.scanned, st.Size())
	}

	// A live session's next page, a turn later: scanned from where the
	// read before stopped scanning. The window moves by the turn, give or
	// take a line (the wire's longest is its 70 KB tool snapshot).
	memo := &clockMemo{}
	if _, err := wireTail(context.Background(), path, 50, history.FirstWindow, memo); err != nil {
		t.Fatal(err)
	}
	appended := appendLines(t, path, turn("live", "more", "again", t0+1<<40))
	got, err := wireTail(context.Background(), path, 50, history.FirstWindow, memo)
	msgs = fullRead(t, path, current)
	if err != nil || !slices.Equal(got.msgs, msgs[len(msgs)-50:]) {
		t.Fatalf("after an append: %q, %v", texts(got.msgs), err)
	}
	if most := appended + 2*clockCheckBytes + 128<<10; got.scanned > most {
		t.Errorf("after %d bytes appended, scanned %d, more than %d", appended, got.scanned, most)
	}
	t.Logf("after %d bytes appended: folded %d and scanned %d bytes", appended, got.folded, got.scanned)
}

// appendLines appends lines to the file at path and returns how many
// bytes that was.
func appendLines(t testing.TB, path string, lines []string) int64 {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	data := strings.Join(lines, "\n") + "\n"
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return int64(len(data))
}

func TestTailConversationErrors(t *testing.T) {
	home := t.TempDir()
	fake{bucket: bucket, id: "session_one", state: stateJSON("session_one", "/p", "", t0),
		wire: append([]string{recMeta(t0)}, turn("a", "one", "A", t0)...)}.write(t, home)
	fake{bucket: bucket, id: "session_empty", state: stateJSON("session_empty", "/p", "", t0),
		wire: []string{recMeta(t0)}}.write(t, home)
	s := newTest(home)
	historytest.CheckTailErrors(t, s.TailConversation, "session_one", []string{"", "nope", "../../etc/passwd", "*", "session_none"}, "session_empty")
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

// BenchmarkTail50MBAppend is a live session's page on the same wire: a
// turn is appended before each read, as the catalog tails again on every
// change of a growing file.
func BenchmarkTail50MBAppend(b *testing.B) {
	s, mb := bigWireScanner(b)
	c, ok := s.find("session_big")
	if !ok {
		b.Fatal("no session_big")
	}
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	// Later than every time of the wire: the clock holds.
	ms := int64(2_000_000_000_000)
	for b.Loop() {
		ms += 10
		if _, err := f.WriteString(strings.Join(turn("live", "more", "again", ms), "\n") + "\n"); err != nil {
			b.Fatal(err)
		}
		msgs, complete, err := s.TailConversation(context.Background(), "session_big", 50)
		if err != nil || len(msgs) != 50 || complete || msgs[49].Text != "again" {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
	b.ReportMetric(mb, "MB")
}
