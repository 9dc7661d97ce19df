package export

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/claude"
	"paddock/internal/agent/codex"
	"paddock/internal/agent/cursor"
	"paddock/internal/agent/kimi"
	"paddock/internal/agent/opencode"
	"paddock/internal/agent/pi"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// recorded is a scanner of one agent's committed recording.
type recorded interface {
	Scan(ctx context.Context, limit int, keep []string) ([]session.Info, error)
	Events(ctx context.Context, id string) ([]session.Event, error)
	EachEvent(ctx context.Context, id string, fn func(session.Event) error) error
}

func recordings(t *testing.T) map[string]recorded {
	td := filepath.Join("..", "..", "testdata")
	// The recordings ran in this directory; a session whose directory is
	// gone is not listed.
	if err := os.MkdirAll("/tmp/paddock-fixtures-home/proj", 0o755); err != nil {
		t.Fatal(err)
	}
	return map[string]recorded{
		"claude":   claude.New(claude.Options{Dir: filepath.Join(td, "claude-2.1.328", "claude"), KeepMissingCwd: true}),
		"codex":    codex.New(codex.Options{Dir: filepath.Join(td, "codex-0.169.0", "codex"), KeepMissingCwd: true}),
		"opencode": opencode.New(opencode.Options{DataDir: filepath.Join(td, "opencode-1.18.33", "opencode"), KeepMissingCwd: true}),
		"pi":       pi.New(pi.Options{Dir: filepath.Join(td, "pi-0.73.1", "pi")}),
		"kimi":     kimi.New(kimi.Options{Home: filepath.Join(td, "kimi-2.1.0", "kimi")}),
	}
}

// toolsSession is the recorded session that ran a command (approved),
// was refused one and asked a question.
func toolsSession(t *testing.T, s recorded) session.Info {
	t.Helper()
	infos, err := s.Scan(context.Background(), 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range infos {
		if i.FirstPrompt == "please RUN the thing" {
			return i
		}
	}
	t.Fatalf("no recorded session starts with the RUN prompt among %d", len(infos))
	return session.Info{}
}

// TestGolden exports each agent's recorded tools session in every format,
// with and without its tool calls, against the golden files in
// testdata/ (go test ./internal/export -update rewrites them).
func TestGolden(t *testing.T) {
	for agent, s := range recordings(t) {
		t.Run(agent, func(t *testing.T) {
			info := toolsSession(t, s)
			evs, err := s.Events(context.Background(), info.ID)
			if err != nil {
				t.Fatal(err)
			}
			// The ids and times of a recording change with each one: the
			// goldens hold the conversation as written. The export reads
			// the record as it streams from the history.
			stream := func(fn func(session.Event) error) error {
				return s.EachEvent(context.Background(), info.ID, func(e session.Event) error {
					e.Time = time.Time{}
					return fn(e)
				})
			}
			checkGoldens(t, agent, Session{Runtime: agent, ID: "ID", Title: info.Title, Cwd: info.Cwd}, evs, stream)
		})
	}
}

// TestExportCursor: the one Cursor Agent CLI transcript there is (a
// public fixture, no tool calls: no Cursor CLI can record here) exports as
// the other agents' do. A fixture's text is never copied into the
// repository, so the expected output is built from the record here
// rather than kept as a golden file.
func TestExportCursor(t *testing.T) {
	dir := sharedtest.Fixtures(t, "public", "cursor", "deja-vu", "fixtures", "registry", "cursor")
	evs, err := cursor.New(cursor.Options{Dir: dir}).Events(context.Background(), "registry-cursor")
	if err != nil || len(evs) != 2 || evs[0].Role != session.RoleUser || evs[1].Role != session.RoleAssistant {
		t.Fatalf("%+v, %v", evs, err)
	}
	want := map[Format]string{
		Markdown: "### User\n\n" + evs[0].Text + "\n\n### Assistant\n\n" + evs[1].Text + "\n",
		JSONL:    `{"role":"user","text":` + jsonText(evs[0].Text) + "}\n" + `{"role":"assistant","text":` + jsonText(evs[1].Text) + "}\n",
	}
	for _, f := range Formats() {
		var b bytes.Buffer
		n, err := Write(&b, f, Session{Runtime: "cursor", ID: "ID"}, FromEvents(evs), false)
		if err != nil || n != 2 {
			t.Fatalf("%s: %d messages, %v", f, n, err)
		}
		if w, ok := want[f]; ok && b.String() != w {
			t.Errorf("%s:\n%s\nwant\n%s", f, b.String(), w)
		}
		if !strings.Contains(b.String(), evs[1].Text) {
			t.Errorf("%s lacks the answer: %s", f, b.String())
		}
	}
}

func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// checkGoldens exports evs in every format, with and without the tools,
// against testdata/<agent>-<format>[-tools].<ext>.
func checkGoldens(t *testing.T, agent string, meta Session, evs []session.Event, record Record) {
	t.Helper()
	for _, tc := range []struct {
		f     Format
		tools bool
	}{{Markdown, false}, {JSON, false}, {JSONL, false}, {Text, false}, {Markdown, true}, {JSONL, true}} {
		var b bytes.Buffer
		n, err := Write(&b, tc.f, meta, record, tc.tools)
		if err != nil {
			t.Fatal(err)
		}
		if want := countMessages(evs); n != want {
			t.Errorf("%s: reported %d messages, the record has %d", tc.f, n, want)
		}
		name := agent + "-" + string(tc.f)
		if tc.tools {
			name += "-tools"
		}
		path := filepath.Join("testdata", name+tc.f.Ext())
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/export -update writes it)", err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from %s:\n%s", name, path, b.String())
		}
		if tc.f == JSON || tc.f == JSONL {
			for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				if tc.f == JSONL && !json.Valid([]byte(l)) {
					t.Errorf("%s: a line is not JSON: %q", name, l)
				}
			}
			if tc.f == JSON && !json.Valid(b.Bytes()) {
				t.Errorf("%s is not JSON", name)
			}
		}
	}
}

func countMessages(evs []session.Event) int {
	n := 0
	for _, e := range evs {
		if e.Kind == session.EventMessage {
			n++
		}
	}
	return n
}

// TestResultsFollowTheirCalls: a result written before its call (as
// Cursor can) is exported after it; one whose call is not in the record
// stays in place; without tools only the messages are written.
func TestResultsFollowTheirCalls(t *testing.T) {
	evs := []session.Event{
		{Kind: session.EventMessage, Role: session.RoleUser, Text: "go"},
		{Kind: session.EventToolResult, ToolID: "c1", Text: "done early"},
		{Kind: session.EventThinking, Text: "hmm"},
		{Kind: session.EventToolCall, Tool: "Bash", ToolID: "c1", Input: `{"command":"make"}`},
		{Kind: session.EventImage, ToolID: "c1", MediaType: "image/png", Size: 78},
		{Kind: session.EventToolResult, ToolID: "orphan", Text: "no call", IsError: true},
		{Kind: session.EventMessage, Role: session.RoleAssistant, Text: "Built ```it```."},
	}
	var b bytes.Buffer
	if n, err := Write(&b, Markdown, Session{}, FromEvents(evs), true); err != nil || n != 2 {
		t.Fatalf("%d %v", n, err)
	}
	want := "### User\n\ngo\n\n#### Thinking\n\n> hmm\n\n#### Tool call: Bash\n\n```json\n{\"command\":\"make\"}\n```\n\n" +
		"#### Tool result\n\n```\ndone early\n```\n\n#### Image\n\nimage/png, 78 bytes\n\n#### Tool result (error)\n\n```\nno call\n```\n\n" +
		"### Assistant\n\nBuilt ```it```.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if _, err := Write(&b, Text, Session{}, FromEvents(evs), false); err != nil || b.String() != "User:\ngo\n\nAssistant:\nBuilt ```it```.\n" {
		t.Errorf("without tools: %q %v", b.String(), err)
	}
	// A fence is longer than any run of backticks it holds.
	if got := fence("a ```` b"); got != "`````" {
		t.Errorf("fence %q", got)
	}
}

func TestParseFormatAndFileName(t *testing.T) {
	for in, want := range map[string]Format{"": Markdown, "md": Markdown, "JSON": JSON, "ndjson": JSONL, "txt": Text} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFormat("pdf"); err == nil {
		t.Error("pdf accepted")
	}
	for _, tc := range []struct {
		s    Session
		f    Format
		want string
	}{
		{Session{Runtime: "claude", ID: "0b5d4c2e-1111", Title: "Fix the Login bug!"}, Markdown, "fix-the-login-bug-0b5d4c2e.md"},
		{Session{Runtime: "codex", ID: "abc", Title: "../../etc/passwd"}, JSON, "etc-passwd-abc.json"},
		{Session{Runtime: "pi", ID: "0123456789"}, Text, "pi-01234567.txt"},
	} {
		if got := FileName(tc.s, tc.f); got != tc.want {
			t.Errorf("FileName(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
