package codex

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/catalog"
	"paddock/internal/history"
	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// The catalog reads first pages through it.
var _ catalog.TailReader = (*Scanner)(nil)

// checkTail asserts the tail property on the rollout at path with first
// windows from a few bytes (historytest.TailCheck): readTail returns exactly
// the last n messages of a full read, complete says whether that is all
// of them, and no byte is read twice.
func checkTail(t testing.TB, path string) {
	t.Helper()
	c := tailer(t).Check(t, path)
	c.Windows = historytest.TailWindows(c.Size)
	c.Run(t)
}

// tailer is the tail property's two reads of a rollout, whole and from its
// end. Every rollout checked reads whole.
func tailer(t testing.TB) historytest.Tailer {
	ctx := context.Background()
	return historytest.Tailer{
		Full: func(path string) ([]session.Message, error) {
			conv, err := readConversation(ctx, path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return conv.msgs, nil
		},
		Tail: func(path string, n int, window int64) (*historytest.TailRead, error) {
			got, err := readTail(ctx, path, n, window)
			return &historytest.TailRead{Msgs: got.msgs, Complete: got.complete, Read: got.read}, err
		},
		EachByteOnce: true,
	}
}

// checkTailConversation asserts the property through the Scanner, with
// its real window: TailConversation(id, n) is the last n of msgs, what
// Conversation(id) returned.
func checkTailConversation(t testing.TB, s *Scanner, id string, msgs []session.Message) {
	t.Helper()
	historytest.CheckTailConversation(t, s.TailConversation, id, msgs, historytest.TailNs())
}

// Every rollout of the fixtures the package's tests read: the recording
// in testdata/, the real Codex 0.169.0 home and the public fixtures
// (modern, 2025-era and bare legacy rollouts), and every other JSONL file
// there, which must at least agree on reading nothing.
func TestTailFixtures(t *testing.T) {
	paths := historytest.JSONLFiles(t, repoRecording,
		sharedtestFixtures(t, "real", "codex-0.169.0"),
		sharedtestFixtures(t, "public", "codex"))
	if len(paths) < 15 {
		t.Fatalf("only %d fixture files", len(paths))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) { checkTail(t, path) })
	}
}

// The rules that look back past a window's start, with windows starting
// at and around every line. Every copy of a message has its own time, so
// that keeping the wrong copy shows.
func TestTailWindowEdges(t *testing.T) {
	rollback := func(sec, n int) map[string]any {
		return env(sec, "event_msg", map[string]any{"type": "thread_rolled_back", "num_turns": n})
	}
	legacy := func(role, text string) map[string]any {
		kind := "input_text"
		if role == "assistant" {
			kind = "output_text"
		}
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": kind, "text": text}}}
	}
	cases := []struct {
		name  string
		lines []any
		crlf  bool // "\r\n" line ends, and a last line ending in a bare "\r"
	}{
		{name: "a prompt's copies across the edge",
			lines: lines(meta(0, id(1), "/p"), turn(1, "one", "1"), respMsg(3, "user", "two"), userItem(4, "two"),
				agentItem(5, "2"), respMsg(6, "assistant", "2"))},
		{name: "three copies",
			lines: lines(meta(0, id(1), "/p"), turn(1, "one", "1"), respMsg(3, "user", "go"), userEvent(4, "go"), userItem(5, "go"),
				agentItem(6, "ok"), agentEvent(7, "ok"), respMsg(8, "assistant", "ok"))},
		{name: "the same prompt typed again",
			lines: lines(meta(0, id(1), "/p"), respMsg(1, "user", "again"), userItem(2, "again"),
				respMsg(3, "user", "again"), userItem(4, "again"), respMsg(5, "user", "again"), userItem(6, "again"),
				agentItem(7, "done"), respMsg(8, "assistant", "done"), agentItem(9, "done"))},
		{name: "a rollback reaching before the window",
			lines: lines(meta(0, id(1), "/p"), turn(1, "one", "1"), turn(3, "two", "2"), turn(5, "three", "3"),
				rollback(7, 2), turn(8, "two, rephrased", "2b"), rollback(10, 1), turn(11, "two, again", "2c"))},
		{name: "a rollback of more turns than there are",
			lines: lines(meta(0, id(1), "/p"), agentItem(1, "hello before any prompt"), turn(2, "one", "1"),
				rollback(4, 5), agentItem(5, "after"), turn(6, "two", "2"))},
		{name: "a rollback with no prompt at all",
			lines: lines(meta(0, id(1), "/p"), agentItem(1, "a"), respMsg(2, "assistant", "a"), rollback(3, 1),
				agentEvent(4, "a"), agentItem(5, "b"))},
		{name: "bare legacy lines",
			lines: lines(map[string]any{"id": id(1), "timestamp": at(0), "instructions": "be brief"},
				legacy("user", "legacy prompt"), legacy("assistant", "legacy answer"), legacy("user", "legacy prompt"),
				legacy("assistant", "legacy answer"), legacy("user", "legacy prompt"))},
		{name: "crlf", crlf: true,
			lines: lines(meta(0, id(1), "/p"), turn(1, "one", "1"), turn(3, "two", "2"))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			path := h.rollout(id(1), time.Time{}, c.lines...)
			data := mustRead(t, path)
			if c.crlf {
				data = bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
				data = data[:len(data)-1]
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			edges := tailer(t).Check(t, path)
			edges.Windows = historytest.EdgeWindows(data)
			edges.Run(t)
			checkTail(t, path)
		})
	}
}

// A line over maxLineBytes is read clipped by a full read, however it
// starts, and a tail read agrees, whether its windows start inside the
// line or not. At 2.5 times the limit, windows doubling from 64 bytes
// pass over more than the limit of it before they find its start: what
// they scanned of it is not kept, and the line is read again (so a read
// may read up to twice the file). One line is a long message, the other a
// short record padded with spaces past the limit.
func TestTailLongLine(t *testing.T) {
	text := historytest.LongText(5 * maxLineBytes / 2)
	message := `{"timestamp":"2026-01-02T10:00:05Z","type":"event_msg","payload":{"type":"agent_message","message":"` + text + `"}}`
	padded := `{"timestamp":"2026-01-02T10:00:05Z","type":"event_msg","payload":{"type":"agent_message","message":"padded"}}` +
		strings.Repeat(" ", 5*maxLineBytes/2)
	cases := []struct {
		name  string
		lines []any
		want  string // the long line's message
	}{
		{"between messages", lines(meta(0, id(1), "/p"), turn(1, "one", "1"), message, turn(6, "two", "2")), "clipped"},
		{"first", lines(message, turn(6, "two", "2")), "clipped"},
		{"last", lines(meta(0, id(1), "/p"), turn(1, "one", "1"), message), "clipped"},
		{"padded", lines(meta(0, id(1), "/p"), turn(1, "one", "1"), padded, turn(6, "two", "2")), "padded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			path := h.rollout(id(1), time.Time{}, c.lines...)
			check := tailer(t).Check(t, path)
			shown := 0
			for _, m := range check.Full {
				switch {
				case c.want == "padded" && m.Text == "padded":
					shown++
				case c.want == "clipped" && strings.HasPrefix(m.Text, text[:100]):
					historytest.Clipped(t, m.Text, text[:100], "10.0 MB")
					shown++
				}
			}
			if shown != 1 {
				t.Fatalf("the full read shows the long line %d times", shown)
			}
			check.Ns, check.Windows, check.MaxRead = []int{1, 2, 1000}, []int64{64, 1000}, 2*check.Size
			check.Run(t)
		})
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A window's answer is trusted only when it settles the page; these
// windows do, reading less than the file, so the cases above test the
// window rules and not only the fall back to the whole file.
func TestTailStopsEarly(t *testing.T) {
	h := newHome(t)
	var ls []any
	ls = append(ls, meta(0, id(1), "/p"))
	for i := range 20 {
		ls = append(ls, turn(i*2+1, fmt.Sprintf("prompt %d", i), fmt.Sprintf("answer %d", i))...)
	}
	path := h.rollout(id(1), time.Time{}, ls...)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		n        int
		maxRead  int64
		complete bool
	}{
		{1, st.Size() / 8, false},
		{3, st.Size() / 4, false},
		{39, st.Size(), false},
		{40, st.Size(), true},
	}
	for _, c := range cases {
		got, err := readTail(context.Background(), path, c.n, 64)
		if err != nil || len(got.msgs) != c.n || got.complete != c.complete || got.read > c.maxRead {
			t.Errorf("n=%d: %d messages, complete %v, read %d of %d bytes, %v", c.n, len(got.msgs), got.complete, got.read, st.Size(), err)
		}
	}
}

// A 50 MB rollout (BenchmarkTail50MB's): the first page is read from the
// last few turns, a small fraction of the file.
func TestTailBigRollout(t *testing.T) {
	h := newHome(t)
	path := writeBigRollout(t, h)
	s := newTestScanner(h.dir)
	msgs, err := s.Conversation(context.Background(), id(1))
	if err != nil || len(msgs) != 1200 {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	c := tailer(t).Check(t, path)
	// 50 messages are 17 turns of 128 KB: the window grows to 4 MiB.
	c.Ns, c.Windows, c.MaxRead = []int{1, 50}, []int64{history.FirstWindow}, min(5<<20, c.Size/10)
	c.Run(t)
	checkTailConversation(t, s, id(1), msgs)
}

func TestTailConversationErrors(t *testing.T) {
	h := newHome(t)
	h.rollout(id(1), time.Time{}, lines(meta(0, id(1), "/p"), turn(1, "one", "1"))...)
	h.rollout(id(2), time.Time{}, meta(0, id(2), "/p"))
	s := newTestScanner(h.dir)
	historytest.CheckTailErrors(t, s.TailConversation, id(1), []string{"", "nope", "../../etc/passwd", "*", id(3)}, id(2))
	if msgs, complete, err := s.TailConversation(context.Background(), id(1), 0); err != nil || len(msgs) != 1 || complete {
		t.Errorf("n=0 (read as 1): %q, %v, %v", texts(msgs), complete, err)
	}
}

// writeBigRollout writes the 50 MB rollout of BenchmarkConversation50MB:
// 400 turns, each with a 128 KB tool output.
func writeBigRollout(t testing.TB, h *home) string {
	t.Helper()
	output := strings.Repeat("build log line with some text in it\n", 128<<10/36)
	var ls []any
	ls = append(ls, meta(0, id(1), "/p"))
	for n := 0; n < 400; n++ {
		ls = append(ls, turn(n*4, fmt.Sprintf("prompt %d", n), "working on it")...)
		ls = append(ls,
			env(n*4+2, "response_item", map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"make"}`, "call_id": "c"}),
			env(n*4+2, "response_item", map[string]any{"type": "function_call_output", "call_id": "c", "output": output}),
			agentItem(n*4+3, "done"), respMsg(n*4+3, "assistant", "done"))
	}
	return h.rollout(id(1), time.Time{}, ls...)
}

// bigRolloutScanner writes writeBigRollout's rollout and returns a
// Scanner over it and the rollout's size in MB.
func bigRolloutScanner(b *testing.B) (*Scanner, float64) {
	h := newHome(b)
	st, err := os.Stat(writeBigRollout(b, h))
	if err != nil {
		b.Fatal(err)
	}
	return New(Options{Dir: h.dir}), float64(st.Size()) / (1 << 20)
}

// BenchmarkTail50MB reads the first preview page (50 messages) of the
// rollout BenchmarkConversation50MB loads whole.
func BenchmarkTail50MB(b *testing.B) {
	s, mb := bigRolloutScanner(b)
	for b.Loop() {
		msgs, complete, err := s.TailConversation(context.Background(), id(1), 50)
		if err != nil || len(msgs) != 50 || complete {
			b.Fatalf("%d messages, %v", len(msgs), err)
		}
	}
	b.ReportMetric(mb, "MB")
}
