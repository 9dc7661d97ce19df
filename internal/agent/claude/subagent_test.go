package claude

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
)

// writeSubagent writes <dir>/projects/<project>/<sessionID>/subagents/<name>.
func writeSubagent(t *testing.T, dir, project, sessionID, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "projects", project, sessionID, "subagents", name)
	writeFile(t, path, []byte(strings.Join(lines, "\n")+"\n"))
	return path
}

// sidechain marks a synthetic line as a subagent's, as Claude writes every
// line of a subagent transcript.
func sidechain(agentID string) []any {
	return []any{"isSidechain", true, "agentId", agentID}
}

func TestSubagentConversationFixtures(t *testing.T) {
	dir, _ := claudeDirFromFixtures(t)
	before := historytest.TreeState(t, dir)
	s := New(Options{Dir: dir})
	tests := []struct {
		name, session, agent string
		want                 int    // messages; -1: at least 2
		firstUser            string // prefix of the task prompt
		lastAnswer           string // prefix of the last assistant message
	}{
		{
			name: "async agent", session: "eb000000-0000-4000-8000-000000000001", agent: "cccc333", want: 3,
			firstUser:  "Analyze the coverage gaps and report back with a summary.",
			lastAnswer: "Coverage analysis complete.",
		},
		{
			// Two lines of one API message are one answer.
			name: "teammate, text-part prompt", session: "ef000000-0000-4000-8000-000000000001", agent: "aaaa111111111111", want: 2,
			firstUser:  "You are **alice**, a teammate",
			lastAnswer: "Starting relay coverage work.\n\nRelay module coverage is now 96%.",
		},
		{
			// The lead's brief is the task, shown without its wrapper.
			name: "teammate briefed by the lead", session: "ef000000-0000-4000-8000-000000000001", agent: "bbbb222222222222", want: 2,
			firstUser:  "You are **bob**, a teammate in the test-coverage team.",
			lastAnswer: "Starting server coverage work.",
		},
		{
			// Claude 2.1.114: tool calls and results in between are not shown.
			name: "real 2.1 subagent", session: "ef958aa1-0e93-49f0-bb71-150f63befcd1", agent: "a6aa8ad077d9ea083", want: 6,
			firstUser:  "You are **carol** (round 2).",
			lastAnswer: "Task complete.",
		},
		{
			name: "real 2.1.17 Task subagent", session: "29ccd257-68b1-427f-ae5f-6524b7cb6f20", agent: "a2271d1", want: -1,
			firstUser:  "Give me a comprehensive overview of the code organization",
			lastAnswer: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, err := s.SubagentConversation(context.Background(), tt.session, tt.agent)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want >= 0 && len(msgs) != tt.want || len(msgs) < 2 {
				t.Fatalf("%d messages, want %d: %+v", len(msgs), tt.want, msgs)
			}
			if msgs[0].Role != session.RoleUser || !strings.HasPrefix(msgs[0].Text, tt.firstUser) {
				t.Errorf("first message %s %q, want the task prompt %q", msgs[0].Role, msgs[0].Text, tt.firstUser)
			}
			last := msgs[len(msgs)-1]
			if last.Role != session.RoleAssistant || !strings.HasPrefix(last.Text, tt.lastAnswer) {
				t.Errorf("last message %s %q, want an answer starting %q", last.Role, last.Text, tt.lastAnswer)
			}
			for i, m := range msgs {
				checkText(t, tt.agent, m.Text, true)
				if i > 0 && m.Role == session.RoleUser && strings.Contains(m.Text, "tool_use_id") {
					t.Errorf("[%d] a tool result shown as a prompt: %q", i, m.Text)
				}
			}
		})
	}

	// Every subagent transcript of the fixtures opens with its task.
	paths, _ := filepath.Glob(filepath.Join(dir, "projects", "*", "*", "subagents", "agent-*.jsonl"))
	if len(paths) < 5 {
		t.Fatalf("only %d fixture subagent transcripts", len(paths))
	}
	for _, p := range paths {
		sid := filepath.Base(filepath.Dir(filepath.Dir(p)))
		agent := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "agent-"), ".jsonl")
		msgs, err := s.SubagentConversation(context.Background(), sid, agent)
		if err != nil || len(msgs) == 0 {
			t.Errorf("%s/%s: %d messages, %v", sid, agent, len(msgs), err)
			continue
		}
		if msgs[0].Role != session.RoleUser || strings.Contains(msgs[0].Text, "teammate-message") {
			t.Errorf("%s/%s: first message %s %q, want the task", sid, agent, msgs[0].Role, msgs[0].Text)
		}
		for _, m := range msgs {
			checkText(t, agent, m.Text, true)
		}
	}

	// Workflow agents live deeper (subagents/workflows/<run>/) and are not
	// Agent/Task subagents; the session's own transcript is not one either.
	for _, agent := range []string{"ag000001", "nosuchagent"} {
		if _, err := s.SubagentConversation(context.Background(), "11110000-0000-4000-8000-000000000001", agent); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("workflow session, agent %q: err %v, want ErrNotFound", agent, err)
		}
	}

	after := historytest.TreeState(t, dir)
	if !maps.Equal(before, after) {
		for _, p := range slices.Sorted(maps.Keys(after)) {
			if before[p] != after[p] {
				t.Errorf("%s changed or created", p)
			}
		}
	}
}

func TestSubagentConversationSynthetic(t *testing.T) {
	const (
		sid     = "5e55e55e-0000-4000-8000-000000000001"
		agent   = "a1b2c3d4e5f6a7b8c"
		project = "-home-u-api"
	)
	dir := t.TempDir()
	writeSession(t, dir, project, sid, user("u1", "", "audit the API", 0), answer("a1", "u1", "starting a subagent", 1))
	sc := sidechain(agent)
	writeSubagent(t, dir, project, sid, "agent-"+agent+".jsonl",
		user("s1", "", "Audit the API docs and list broken links.", 2, sc...),
		answer("s2", "s1", "Looking at the docs.", 3, sc...),
		line(map[string]any{"type": "assistant", "uuid": "s3", "parentUuid": "s2", "isSidechain": true,
			"message": map[string]any{"id": "msg_s3", "role": "assistant",
				"content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": map[string]any{}}}}}),
		line(map[string]any{"type": "user", "uuid": "s4", "parentUuid": "s3", "isSidechain": true,
			"message": map[string]any{"role": "user",
				"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "docs/a.md:3"}}}}),
		user("s5", "s4", "<system-reminder>ignore</system-reminder>", 4, append(sc, "isMeta", true)...),
		`{not json`,
		answer("s6", "s5", "Two broken links: a.md and b.md.", 5, sc...),
	)
	// An id given with the prefix some hook payloads carry.
	writeSubagent(t, dir, project, sid, "agent-short1.jsonl",
		user("p1", "", "Short task.", 0, sidechain("short1")...), answer("p2", "p1", "Done.", 1, sidechain("short1")...))
	// Something the lookup must not reach.
	writeFile(t, filepath.Join(dir, "secret.jsonl"), []byte(user("x1", "", "secret", 0)+"\n"))
	writeFile(t, filepath.Join(dir, "projects", project, "x.jsonl"), []byte(user("x1", "", "outside subagents", 0)+"\n"))

	s := New(Options{Dir: dir})
	ctx := context.Background()
	before := historytest.TreeState(t, dir)

	msgs, err := s.SubagentConversation(ctx, sid, agent)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]msg, 0, len(msgs))
	for _, m := range msgs {
		got = append(got, msg{m.Role, m.Text})
	}
	want := []msg{
		{session.RoleUser, "Audit the API docs and list broken links."},
		{session.RoleAssistant, "Looking at the docs."},
		{session.RoleAssistant, "Two broken links: a.md and b.md."},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("conversation\n got %q\nwant %q", got, want)
	}
	if !msgs[0].Time.Equal(t0.Add(2 * time.Minute)) {
		t.Errorf("task prompt time %v", msgs[0].Time)
	}
	if msgs, err := s.SubagentConversation(ctx, sid, "agent-short1"); err != nil || len(msgs) != 2 {
		t.Errorf(`"agent-short1": %d messages, %v`, len(msgs), err)
	}

	notFound := []struct{ name, session, agent string }{
		{"empty agent", sid, ""},
		{"parent dir", sid, "../x"},
		{"dot dot", sid, ".."},
		{"dot", sid, "."},
		{"slash", sid, "a/b"},
		{"backslash", sid, `a\b`},
		{"escape to root", sid, "../../../../secret"},
		{"dot in id", sid, agent + ".jsonl"},
		{"glob", sid, "a*"},
		{"glob class", sid, "[a]"},
		{"NUL", sid, "a\x00b"},
		{"too long", sid, strings.Repeat("a", maxAgentIDLen+1)},
		{"unknown agent", sid, "ffffffff"},
		{"session transcript as agent", sid, sid},
		{"unknown session", "00000000-0000-4000-8000-000000000000", agent},
		{"empty session", "", agent},
		{"session traversal", "../" + sid, agent},
		{"session with slash", project + "/" + sid, agent},
		{"session dot dot", "..", agent},
	}
	for _, tt := range notFound {
		t.Run(tt.name, func(t *testing.T) {
			if msgs, err := s.SubagentConversation(ctx, tt.session, tt.agent); !errors.Is(err, session.ErrNotFound) || msgs != nil {
				t.Fatalf("(%q, %q): %d messages, err %v; want ErrNotFound", tt.session, tt.agent, len(msgs), err)
			}
		})
	}
	if after := historytest.TreeState(t, dir); !maps.Equal(before, after) {
		t.Fatal("the Claude dir changed")
	}

	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.SubagentConversation(canceled, sid, agent); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
}

// Links under projects/ are never followed to a subagent transcript: not
// the file, not subagents/, not the session directory.
func TestSubagentConversationRefusesLinks(t *testing.T) {
	const (
		sid     = "5e55e55e-0000-4000-8000-000000000002"
		project = "-home-u-api"
	)
	dir := t.TempDir()
	outside := t.TempDir()
	writeSession(t, dir, project, sid, user("u1", "", "audit", 0))
	target := writeSubagent(t, outside, project, sid, "agent-real.jsonl",
		user("s1", "", "private task", 0, sidechain("real")...), answer("s2", "s1", "private answer", 1, sidechain("real")...))
	sessionDir := filepath.Join(dir, "projects", project, sid)
	if err := os.MkdirAll(filepath.Join(sessionDir, "subagents"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := func(oldname, newname string) {
		t.Helper()
		if err := os.Symlink(oldname, newname); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	link(target, filepath.Join(sessionDir, "subagents", "agent-filelink.jsonl"))
	s := New(Options{Dir: dir})
	ctx := context.Background()
	if _, err := s.SubagentConversation(ctx, sid, "filelink"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("linked file: %v, want ErrNotFound", err)
	}

	if err := os.RemoveAll(filepath.Join(sessionDir, "subagents")); err != nil {
		t.Fatal(err)
	}
	link(filepath.Dir(target), filepath.Join(sessionDir, "subagents"))
	if _, err := s.SubagentConversation(ctx, sid, "real"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("linked subagents dir: %v, want ErrNotFound", err)
	}

	if err := os.RemoveAll(sessionDir); err != nil {
		t.Fatal(err)
	}
	link(filepath.Dir(filepath.Dir(target)), sessionDir)
	if _, err := s.SubagentConversation(ctx, sid, "real"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("linked session dir: %v, want ErrNotFound", err)
	}
}

func TestValidAgentID(t *testing.T) {
	for id, want := range map[string]bool{
		"a1b2c3d": true, "aaaa111111111111": true, "agent-a1b2": true, "A_b-9": true,
		"": false, ".": false, "..": false, "a.b": false, "a/b": false, `a\b`: false, "a b": false,
		"a*": false, "?": false, "é": false, strings.Repeat("a", maxAgentIDLen): true, strings.Repeat("a", maxAgentIDLen+1): false,
	} {
		if got := validAgentID(id); got != want {
			t.Errorf("validAgentID(%q) = %v, want %v", id, got, want)
		}
	}
}
