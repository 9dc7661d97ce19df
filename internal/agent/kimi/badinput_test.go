package kimi

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// countingHandler counts log records (what was logged, not how).
type countingHandler struct {
	mu   sync.Mutex
	msgs []string
}

func (h *countingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *countingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	h.msgs = append(h.msgs, r.Message)
	h.mu.Unlock()
	return nil
}
func (h *countingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *countingHandler) WithGroup(string) slog.Handler      { return h }

// Bad input degrades per line and per session: broken, torn, binary and
// over-long lines are skipped, invalid UTF-8 is repaired, a broken
// state.json leaves the wire's facts, and each problem is logged once.
func TestBadInput(t *testing.T) {
	home := t.TempDir()
	good := append([]string{recMeta(t0)}, turn("s1", "first prompt", "first answer", t0+1)...)
	broken := slices.Concat(good, []string{
		`{broken`,
		`not json at all`,
		"\x00\x01\xff\xfe binary",
		`{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"bad ` + "\xff\xfe" + ` bytes"}],"origin":{"kind":"user"}},"time":` + itoa(t0+10) + `}`,
		`[1,2,3]`,
		`"a string"`,
		`{"type":7}`,
	}, turn("s2", "second prompt", "second answer", t0+20), []string{
		`{"type":"context.append_message","agentId":"main","message":{"role":"user","content":[{"type":"text","text":"torn`,
	})
	fake{bucket: bucket, id: "session_broken", state: `{"title": "Half`, wire: broken}.write(t, home)

	// CRLF line endings.
	crlf := fake{bucket: bucket, id: "session_crlf", state: stateJSON("session_crlf", "/p", "", t0)}.write(t, home)
	writeFile(t, crlf, strings.Join(good, "\r\n")+"\r\n")
	// An empty wire, a directory named wire.jsonl, a session without a
	// wire, a file where a session directory should be.
	fake{bucket: bucket, id: "session_empty", state: stateJSON("session_empty", "/p", "", t0), wire: []string{}}.write(t, home)
	writeFile(t, filepath.Join(home, "sessions", bucket, "session_dirwire", "agents", "main", "wire.jsonl", "x"), "")
	writeFile(t, filepath.Join(home, "sessions", bucket, "session_nowire", "state.json"), stateJSON("x", "/p", "t", t0))
	writeFile(t, filepath.Join(home, "sessions", bucket, "session_file"), "a file")
	writeFile(t, filepath.Join(home, "sessions", "stray-file"), "a file")

	h := &countingHandler{}
	s := newTest(home, func(o *Options) { o.Logger = slog.New(h) })
	for range 3 {
		infos := byID(scanAll(t, s))
		if len(infos) != 2 {
			t.Fatalf("listed %v", ids(scanAll(t, s)))
		}
		b := infos["session_broken"]
		if b.FirstPrompt != "first prompt" || b.LastPrompt != "second prompt" || b.PromptCount != 3 || b.Title != "first prompt" {
			t.Errorf("broken: %+v", b)
		}
	}
	if got := texts(conversation(t, s, "session_crlf")); !slices.Equal(got, []string{"user: first prompt", "assistant: first answer"}) {
		t.Errorf("crlf: %q", got)
	}
	msgs := conversation(t, s, "session_broken")
	checkMessages(t, "session_broken", msgs)
	want := []string{"user: first prompt", "assistant: first answer", "user: bad \uFFFD\uFFFD bytes",
		"user: second prompt", "assistant: second answer"}
	if got := texts(msgs); !slices.Equal(got, want) {
		t.Errorf("broken conversation\n got %q\nwant %q", got, want)
	}
	conversation(t, s, "session_broken")
	h.mu.Lock()
	logged := len(h.msgs)
	h.mu.Unlock()
	if logged != 1 {
		t.Errorf("logged %d times, want once: %q", logged, h.msgs)
	}
}

// A line longer than the cap (generated here, 12 MB) is read clipped
// wherever the wire is read — the list, the whole conversation, its
// newest page from the end and the full record — and the rest still
// read: the person sees the message's start and a note with its size.
func TestOversizeLine(t *testing.T) {
	home := t.TempDir()
	long := historytest.LongText(12 << 20)
	huge := `{"type":"context.append_message","message":{"role":"user","content":[{"type":"text","text":"` +
		long + `"}],"origin":{"kind":"user"}},"time":1}`
	wire := slices.Concat([]string{recMeta(t0)}, turn("a", "before", "A", t0+1), []string{huge}, turn("b", "after", "B", t0+10))
	fake{bucket: bucket, id: "session_huge", state: stateJSON("session_huge", "/p", "", t0), wire: wire}.write(t, home)
	s := newTest(home)
	infos := scanAll(t, s)
	if len(infos) != 1 || infos[0].FirstPrompt != "before" || infos[0].LastPrompt != "after" {
		t.Fatalf("infos %+v", infos)
	}
	msgs := conversation(t, s, "session_huge")
	got := texts(msgs)
	if len(got) == 5 {
		historytest.Clipped(t, msgs[2].Text, long[:100], "12.0 MB")
		got[2] = "user: clipped"
	}
	if !slices.Equal(got, []string{"user: before", "assistant: A", "user: clipped", "user: after", "assistant: B"}) {
		t.Errorf("conversation %.80q", got)
	}
	historytest.CheckTailConversation(t, s.TailConversation, "session_huge", msgs, []int{1, 2, 3, 4, 10})
	evs, err := s.Events(context.Background(), "session_huge")
	if err != nil {
		t.Fatal(err)
	}
	var shown []session.Message
	for _, e := range evs {
		if e.Kind == session.EventMessage {
			shown = append(shown, session.Message{Role: e.Role, Text: e.Text, Time: e.Time})
		}
	}
	if !slices.Equal(shown, msgs) {
		t.Errorf("events: %.80q, want the conversation's", texts(shown))
	}
}

// Listing reads a bounded head: a wire whose first megabytes are tool
// snapshots (kimi writes one of ~70 KB per start) is listed from its tail
// and state.json, and its lines are skipped, not decoded.
func TestHugeHead(t *testing.T) {
	home := t.TempDir()
	snapshot := `{"type":"llm.tools_snapshot","agentId":"main","hash":"h","tools":[{"description":"` +
		strings.Repeat("d", 100<<10) + `"}],"time":1}`
	wire := []string{recMeta(t0)}
	for range 60 { // 6 MB, beyond headBytes
		wire = append(wire, snapshot)
	}
	wire = append(wire, turn("s", "late prompt", "late answer", t0+5)...)
	fake{bucket: bucket, id: "session_big", state: stateJSON("session_big", "/p", "late prompt", t0), wire: wire}.write(t, home)
	infos := scanAll(t, newTest(home))
	if len(infos) != 1 {
		t.Fatalf("listed %d", len(infos))
	}
	info := infos[0]
	if info.Title != "late prompt" || info.FirstPrompt != "late prompt" || info.LastPrompt != "late prompt" || info.Model != "" {
		t.Errorf("info %+v", info)
	}
}

// The head/tail reader never reads a line twice and never a half line,
// whatever the file size.
func TestHeadTail(t *testing.T) {
	for _, n := range []int{0, 1, 5, headLines - 1, headLines, headLines + 1, headLines + 3000} {
		var buf bytes.Buffer
		for i := range n {
			buf.WriteString(strings.Repeat("y", i%97) + "|" + itoa(int64(i)) + "\n")
		}
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		var order []int
		err := headTail(path, int64(buf.Len()), nil, func(line []byte, _ bool) {
			seen[string(line)]++
			_, num, _ := strings.Cut(string(line), "|")
			var v int64
			for _, c := range num {
				v = v*10 + int64(c-'0')
			}
			order = append(order, int(v))
		})
		if err != nil {
			t.Fatal(err)
		}
		for l, c := range seen {
			if c > 1 {
				t.Errorf("n=%d: line %q read %d times", n, l, c)
			}
			if !strings.Contains(l, "|") {
				t.Errorf("n=%d: half line %q", n, l)
			}
		}
		if !slices.IsSorted(order) || (n > 0 && order[len(order)-1] != n-1) {
			t.Errorf("n=%d: lines out of order or tail missing", n)
		}
	}
}
