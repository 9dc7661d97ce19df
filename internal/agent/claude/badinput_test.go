package claude

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"paddock/internal/session"
)

// logSink collects log output for assertions.
type logSink struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// count returns the number of log lines that mention s.
func (l *logSink) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range strings.Split(l.buf.String(), "\n") {
		if strings.Contains(line, s) {
			n++
		}
	}
	return n
}

func newLogged(dir string) (*Scanner, *logSink) {
	sink := &logSink{}
	return New(Options{Dir: dir, KeepMissingCwd: true, Logger: slog.New(slog.NewTextHandler(sink, nil))}), sink
}

func conversationTexts(t *testing.T, s *Scanner, id string) []string {
	t.Helper()
	msgs, err := s.Conversation(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		checkText(t, id, m.Text, true)
		out = append(out, m.Text)
	}
	return out
}

func TestBadInput(t *testing.T) {
	huge := user("big", "u1", strings.Repeat("x", 10<<20), 1) // a valid line, but 10 MB
	tests := []struct {
		name     string
		content  string
		bad      int // lines counted as bad by listing
		title    string
		prompts  int
		messages []string
	}{
		{
			// Read clipped, never skipped: it counts as a prompt, and
			// stays off the conversation only because the answer's branch
			// leaves it (TestLongLineClipped shows one on the branch).
			name:     "10 MB line",
			content:  user("u1", "", "before", 0) + "\n" + huge + "\n" + answer("a1", "u1", "after", 2) + "\n",
			title:    "before",
			prompts:  2,
			messages: []string{"before", "after"},
		},
		{
			name: "invalid UTF-8",
			// Raw invalid bytes (json.Marshal would have escaped them).
			content: `{"type":"user","uuid":"u1","message":{"content":"caf` + "\xe9 \xff\xfe" + ` ok"}}` + "\n" +
				`{"type":"user","uuid":"u2","parentUuid":"u1","message":{"content":"lone \ud800 surrogate"}}` + "\n",
			title:    "caf\uFFFD \uFFFD ok",
			prompts:  2,
			messages: []string{"caf\uFFFD \uFFFD ok", "lone \uFFFD surrogate"},
		},
		{
			// A last line without a newline may be a record Claude is
			// still writing: not counted as bad (TestHistoryErrors).
			name:     "truncated last line",
			content:  user("u1", "", "hello", 0) + "\n" + answer("a1", "u1", "hi there", 1) + "\n" + `{"type":"user","uuid":"u2","message":{"content":"cut of`,
			title:    "hello",
			prompts:  1,
			messages: []string{"hello", "hi there"},
		},
		{
			name: "JSON nulls everywhere",
			content: strings.Join([]string{
				`{"type":null,"uuid":null,"parentUuid":null,"logicalParentUuid":null,"isMeta":null,"isSidechain":null,"isCompactSummary":null,"origin":null,"timestamp":null,"cwd":null,"message":null,"customTitle":null,"aiTitle":null,"summary":null,"leafUuid":null}`,
				`{"type":"user","uuid":null,"parentUuid":null,"isMeta":null,"origin":{"kind":null},"timestamp":null,"cwd":null,"message":{"role":null,"content":null,"model":null,"id":null}}`,
				`{"type":"user","message":{"content":[null,{"type":null,"text":null},{"type":"text","text":null},{"type":"text"}]}}`,
				`{"type":"assistant","message":{"id":null,"model":null,"content":[{"type":"text","text":null},{"type":"thinking","thinking":null},null]}}`,
				`{"type":"custom-title","customTitle":null}`,
				`{"type":"ai-title","aiTitle":null}`,
				`{"type":"summary","summary":null,"leafUuid":null}`,
				`{"type":"agent-name","agentName":null}`,
				user("u1", "", "the real prompt", 0),
				answer("a1", "u1", "the real answer", 1),
			}, "\n") + "\n",
			title:    "the real prompt",
			prompts:  1,
			messages: []string{"the real prompt", "the real answer"},
		},
		{
			name: "wrong types",
			content: strings.Join([]string{
				`{"type":42,"message":"error"}`,
				`{"type":"user","message":"error"}`,
				`{"type":"user","message":{"content":42}}`,
				`{"type":"user","message":{"content":{"text":"object content"}}}`,
				`{"type":"user","message":{"content":["bare string part"]}}`,
				`{"type":"assistant","message":{"content":[{"type":"text","text":42}],"model":7}}`,
				`{"type":"user","timestamp":12345,"isSidechain":"yes","origin":"human","message":{"content":"typed"}}`,
				`{"type":["user"],"message":{"content":"not a user"}}`,
			}, "\n") + "\n",
			title:    "typed",
			prompts:  1,
			messages: []string{"typed"},
		},
		{
			name:     "lines that are not objects",
			content:  "\"massive error\"\n42\n[1]\nnull\n{\"silly\": \"this\"}\n" + user("u1", "", "hello", 0) + "\n{not json}\n",
			bad:      5,
			title:    "hello",
			prompts:  1,
			messages: []string{"hello"},
		},
		{
			name:     "CRLF line endings and blank lines",
			content:  user("u1", "", "hello", 0) + "\r\n\r\n\n" + answer("a1", "u1", "hi", 1) + "\r\n",
			title:    "hello",
			prompts:  1,
			messages: []string{"hello", "hi"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "projects", "p", "s1.jsonl")
			writeFile(t, path, []byte(tt.content))

			st, _ := os.Stat(path)
			sum, err := readSummary(path, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			if sum.badLines != tt.bad {
				t.Errorf("bad lines %d, want %d", sum.badLines, tt.bad)
			}

			s, logs := newLogged(dir)
			for range 3 {
				info, ok := scanAll(t, s)["s1"]
				if !ok {
					t.Fatal("not listed")
				}
				checkInfo(t, info)
				if info.Title != tt.title || info.PromptCount != tt.prompts || !utf8.ValidString(info.Title) {
					t.Errorf("title %q, %d prompts; want %q, %d", info.Title, info.PromptCount, tt.title, tt.prompts)
				}
			}
			got := conversationTexts(t, s, "s1")
			if strings.Join(got, "|") != strings.Join(tt.messages, "|") {
				t.Errorf("conversation %q, want %q", got, tt.messages)
			}
			wantLogs := 0
			if tt.bad > 0 || tt.name == "truncated last line" { // Conversation reads all and logs it
				wantLogs = 1 // once per path, not once per scan
			}
			if n := logs.count(path); n != wantLogs {
				t.Errorf("path logged %d times, want %d", n, wantLogs)
			}
		})
	}
}

// Things named *.jsonl that cannot be read as transcripts: listing skips
// them and goes on; lookups say "not found".
func TestUnreadableTranscripts(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "projects", "p")
	writeSession(t, dir, "p", "good", user("u1", "", "hello", 0))
	if err := os.Mkdir(filepath.Join(proj, "a-directory.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(proj, "dangling.jsonl")
	if err := os.Symlink(filepath.Join(dir, "nowhere.jsonl"), dangling); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, "empty.jsonl"), nil)
	writeFile(t, filepath.Join(proj, "blank.jsonl"), []byte("\n\n  \n"))
	// A symlinked transcript is read through its link.
	target := filepath.Join(dir, "elsewhere", "linked.jsonl")
	writeFile(t, target, []byte(user("u1", "", "via a link", 0)+"\n"))
	if err := os.Symlink(target, filepath.Join(proj, "linked.jsonl")); err != nil {
		t.Fatal(err)
	}
	// A project "directory" that is a symlink to a file.
	if err := os.Symlink(target, filepath.Join(dir, "projects", "not-a-dir")); err != nil {
		t.Fatal(err)
	}

	s, logs := newLogged(dir)
	for range 3 {
		got := scanAll(t, s)
		if len(got) != 2 || got["good"].Title != "hello" || got["linked"].Title != "via a link" {
			t.Fatalf("listed %v", got)
		}
	}
	if n := logs.count(dangling); n != 1 {
		t.Errorf("dangling symlink logged %d times, want once", n)
	}
	ctx := context.Background()
	for _, id := range []string{"a-directory", "dangling", "empty", "blank"} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%s) = %v", id, err)
		}
	}
	for _, id := range []string{"a-directory", "dangling"} {
		if _, err := s.Conversation(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Conversation(%s) = %v", id, err)
		}
	}
	if msgs, err := s.Conversation(ctx, "empty"); err != nil || len(msgs) != 0 {
		t.Errorf("Conversation(empty) = %v, %v", msgs, err)
	}
}
