package codex

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// listed is what listing must say about one session of a recording.
type listed struct {
	title, source    string
	first, last, cwd string
	prompts          int
	model, project   string
	created          string // RFC 3339, "" to skip
	conversation     []string
}

// checkListed compares a scan of dir with want (every listed session, and
// nothing else), and each session's conversation.
func checkListed(t *testing.T, s *Scanner, want map[string]listed) {
	t.Helper()
	ctx := context.Background()
	infos := scanAll(t, s)
	if got, exp := slices.Sorted(slices.Values(ids(infos))), slices.Sorted(func(yield func(string) bool) {
		for id := range want {
			if !yield(id) {
				return
			}
		}
	}); !slices.Equal(got, exp) {
		t.Fatalf("listed %q, want %q", got, exp)
	}
	for _, info := range infos {
		checkInfo(t, info)
		w := want[info.ID]
		if info.Title != w.title || info.TitleSource != w.source || info.FirstPrompt != w.first ||
			info.LastPrompt != w.last || info.PromptCount != w.prompts || info.Cwd != w.cwd ||
			info.Model != w.model || info.Project != w.project {
			t.Errorf("%s:\n got %+v\nwant %+v", info.ID, info, w)
		}
		if w.created != "" && !info.Created.Equal(mustTime(t, w.created)) {
			t.Errorf("%s: created %v, want %s", info.ID, info.Created, w.created)
		}
		if info.Path == "" || !strings.Contains(filepath.Base(info.Path), info.ID) {
			t.Errorf("%s: path %q", info.ID, info.Path)
		}
		one, err := s.Session(ctx, info.ID)
		if err != nil || one != info {
			t.Errorf("Session(%s) = %+v, %v; listed %+v", info.ID, one, err, info)
		}
		msgs, err := s.Conversation(ctx, info.ID)
		if err != nil {
			t.Errorf("Conversation(%s): %v", info.ID, err)
		}
		checkMessages(t, info.ID, msgs)
		if w.conversation != nil && !slices.Equal(texts(msgs), w.conversation) {
			t.Errorf("Conversation(%s) =\n%q\nwant\n%q", info.ID, texts(msgs), w.conversation)
		}
	}
	// The newest first, by effective time.
	if !slices.IsSortedFunc(infos, func(a, b session.Info) int { return b.Updated.Compare(a.Updated) }) {
		t.Errorf("not newest first: %v", ids(infos))
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The recording in the repository (testdata/codex-0.169.0, made by
// `make fixtures` with the real Codex 0.169.0): titles come from the state
// database's thread names (no session_index.jsonl was copied), and the
// conversations are exactly what the CLI showed.
func TestRepoRecording(t *testing.T) {
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	const cwd = "/tmp/paddock-fixtures-home/proj"
	checkListed(t, newTestScanner(dir), map[string]listed{
		"01a22933-9fa0-7061-a419-c6368c8164b9": {
			title: "Mock title: hello paddock one", source: session.TitleAI,
			first: "hello paddock one", last: "second turn please", prompts: 2,
			cwd: cwd, project: "proj", model: "mock-model", created: "2026-11-29T21:26:18.788Z",
			conversation: []string{
				"user: hello paddock one", "assistant: Mock reply: done (turn 1).",
				"user: second turn please", "assistant: Mock reply: done (turn 2).",
			},
		},
		"01a22933-bf50-7ea3-bf85-2f0c612735bb": {
			title: "Mock title: please RUN the thing", source: session.TitleAI,
			first: "please RUN the thing", last: "one more turn after resume", prompts: 4,
			cwd: cwd, project: "proj", model: "mock-model", created: "2026-11-29T21:26:26.901Z",
			conversation: []string{
				"user: please RUN the thing", "assistant: I'll run a command.", "assistant: Mock reply: tool finished.",
				// Denied with Esc: the turn was interrupted, Codex's
				// <turn_aborted> note is not a prompt.
				"user: RUN it again please", "assistant: I'll run a command.",
				// The answer (Red) went to the question tool, not the chat.
				"user: ASK me which color", "assistant: I'll ask you a question.", "assistant: Mock reply: tool finished.",
				"user: one more turn after resume", "assistant: Mock reply: done (turn 4).",
			},
		},
	})
}

// The manifest says what was typed and answered in each recorded session:
// the prompts, in order, are the user messages of the session's rollout,
// and each reply follows its prompt.
func TestRepoRecordingManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRecording, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sessions []struct {
			Name  string
			Turns []struct{ Prompt, Reply string }
			Files []string
		}
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	dir := copyTree(t, filepath.Join(repoRecording, "codex"))
	s := newTestScanner(dir)
	type turn struct{ prompt, reply string }
	perID := map[string][]turn{}
	var order []string
	for _, sess := range m.Sessions {
		for _, f := range sess.Files {
			id, ok := rolloutID(filepath.Base(f))
			if !ok {
				continue
			}
			if _, seen := perID[id]; !seen {
				order = append(order, id)
			}
			for _, tu := range sess.Turns {
				perID[id] = append(perID[id], turn{tu.Prompt, tu.Reply})
			}
		}
	}
	if len(order) != 2 {
		t.Fatalf("manifest names %d rollouts, want 2", len(order))
	}
	for _, id := range order {
		msgs, err := s.Conversation(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var prompts []string
		for _, msg := range msgs {
			if msg.Role == session.RoleUser {
				prompts = append(prompts, msg.Text)
			}
		}
		var want []string
		for _, tu := range perID[id] {
			want = append(want, tu.prompt)
		}
		if !slices.Equal(prompts, want) {
			t.Errorf("%s: prompts %q, want %q", id, prompts, want)
		}
		for _, tu := range perID[id] {
			if tu.reply == "" {
				continue
			}
			i := slices.IndexFunc(msgs, func(m session.Message) bool { return m.Role == session.RoleUser && m.Text == tu.prompt })
			j := slices.IndexFunc(msgs[i+1:], func(m session.Message) bool { return m.Role == session.RoleUser })
			if j < 0 {
				j = len(msgs) - i - 1
			}
			if !slices.ContainsFunc(msgs[i+1:i+1+j], func(m session.Message) bool { return m.Text == tu.reply }) {
				t.Errorf("%s: reply %q does not follow %q", id, tu.reply, tu.prompt)
			}
		}
	}
}

// The proving ground's own Codex 0.169.0 home (../shared/fixtures/real):
// TUI sessions (resumed, approved, denied by hook, one left waiting for
// approval) and `codex exec` runs. No thread names were generated, so
// titles are the first prompts; every prompt the TUI recorded in
// history.jsonl is a user message of its session, in order.
func TestSharedRealHome(t *testing.T) {
	src := sharedtest.Fixtures(t, "real", "codex-0.169.0", "codex-home")
	dir := copyTree(t, src)
	const cwd = "/tmp/fakehome-codex/proj"
	entry := func(first, last string, n int) listed {
		return listed{title: first, source: session.TitlePrompt, first: first, last: last, prompts: n,
			cwd: cwd, project: "proj", model: "mock-model"}
	}
	s := newTestScanner(dir)
	checkListed(t, s, map[string]listed{
		"01a2285e-d86f-7830-a0dd-fc3434b4efde": entry("hello, say something", "second turn via exec resume", 2),
		"01a2285e-f2f5-71d3-a5b3-6acfc2ab85d6": entry("please RUN the thing", "please RUN the thing", 1),
		"01a2285f-15d0-7bd3-a729-626c01070ed4": entry("hello there, first turn", "resumed: please RUN again", 5),
		"01a22860-7639-7823-a22f-000c86c50cf9": entry("json mode turn", "json mode turn", 1),
		"01a22860-866a-7473-a4ce-3ed6798658d5": entry("session three: RUN a command", "session three: RUN a command", 1),
		"01a22860-cb24-7892-bc0d-756fcd696898": entry("hook-approved: RUN something", "hook-denied: RUN something", 2),
	})

	f, err := os.Open(filepath.Join(src, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	typed := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var h struct {
			SessionID string `json:"session_id"`
			Text      string
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		typed[h.SessionID] = append(typed[h.SessionID], h.Text)
	}
	for id, want := range typed {
		msgs, err := s.Conversation(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range msgs {
			if m.Role == session.RoleUser {
				got = append(got, m.Text)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: user messages %q, history.jsonl %q", id, got, want)
		}
	}
}

// Other projects' Codex test data (../shared/fixtures/public/codex, see
// SOURCES.md): placed where Codex keeps rollouts, each is listed and
// previewed by the preview rules, or left out when it is no session.
func TestSharedPublicFixtures(t *testing.T) {
	pub := sharedtest.Fixtures(t, "public", "codex")
	dir := copyTree(t, filepath.Join(pub, "claude-code-log", "test", "test_data", "codex"))
	for src, dst := range map[string]string{
		"agentsview/internal/parser/testdata/codex/blockquotes_session.jsonl":                 "sessions/2026/05/02/rollout-2026-05-02T12-33-22-quote-123.jsonl",
		"agentsview/internal/parser/testdata/codex/function_calls.jsonl":                      "sessions/2024/01/01/rollout-2024-01-01T10-00-00-fc-1.jsonl",
		"ccusage/apps/ccusage/test/fixtures/codex/sessions/project-alpha/session-alpha.jsonl": "sessions/2026/05/13/rollout-2026-05-13T09-00-00-session-alpha.jsonl",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, dst)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := copyFile(filepath.Join(pub, src), filepath.Join(dir, dst)); err != nil {
			t.Fatal(err)
		}
	}
	const synth = "/workspace/synthetic-project"
	s := newTestScanner(dir)
	checkListed(t, s, map[string]listed{
		// Reasoning (readable summary and encrypted), tool calls and their
		// outputs, an MCP call and an unknown record type are not
		// conversation; the event and response copies of each text are one.
		"11111111-1111-4111-8111-111111111111": {
			title: "List the synthetic files.", source: session.TitlePrompt,
			first: "List the synthetic files.", last: "List the synthetic files.", prompts: 1,
			cwd: synth, project: "synthetic-project", model: "synthetic-model", created: "2026-01-02T03:04:05Z",
			conversation: []string{"user: List the synthetic files.", "assistant: The synthetic files are alpha.txt and beta.txt."},
		},
		// The parent of a subagent: listed; its child is not.
		"22222222-2222-4222-8222-222222222222": {
			title: "Spawn a synthetic researcher.", source: session.TitlePrompt,
			first: "Spawn a synthetic researcher.", last: "Spawn a synthetic researcher.", prompts: 1,
			cwd: synth, project: "synthetic-project",
			conversation: []string{"user: Spawn a synthetic researcher."},
		},
		// The legacy bare format in the flat sessions/ directory: no
		// envelope, no cwd, no timestamps on the items.
		"44444444-4444-4444-8444-444444444444": {
			title: "Open the synthetic legacy session.", source: session.TitlePrompt,
			first: "Open the synthetic legacy session.", last: "Open the synthetic legacy session.", prompts: 1,
			created:      "2026-01-04T05:06:07Z",
			conversation: []string{"user: Open the synthetic legacy session.", "assistant: The synthetic legacy session is open."},
		},
		// codex exec 0.128.0: only a response-item prompt; a final answer
		// written as an event and as a response item.
		"quote-123": {
			title: "blablabla?", source: session.TitlePrompt, first: "blablabla?", last: "blablabla?", prompts: 1,
			cwd: "/tmp/agentsview-quote", project: "agentsview-quote",
			conversation: []string{"user: blablabla?", "assistant: blabla1\n\n> blabla2\n\nblabla3\n\n> blabla4\n\nblabla5"},
		},
		// A minimal session_meta and function calls without output.
		"fc-1": {
			title: "Run the tests", source: session.TitlePrompt, first: "Run the tests", last: "Run the tests", prompts: 1,
			cwd: "/Users/alice/code/app", project: "app",
			conversation: []string{"user: Run the tests"},
		},
	})
	ctx := context.Background()
	// ccusage's usage-only file has no conversation, and the subagent is
	// internal: neither is a session.
	for _, id := range []string{"session-alpha", "33333333-3333-4333-8333-333333333333"} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%s) = %v, want ErrNotFound", id, err)
		}
	}
}
