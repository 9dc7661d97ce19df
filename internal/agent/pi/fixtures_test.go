package pi

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// TestRealAgentDir lists the agent dir the real Pi 0.73.1 wrote in the
// proving ground (print mode, JSON mode, RPC mode, the TUI with approvals
// and denials, --session, --continue, /name) and previews every session.
func TestRealAgentDir(t *testing.T) {
	dir := sharedtest.Fixtures(t, "real", "pi-0.73.1", "pi-agent-dir")
	s := newTestScanner(dir)
	listed := scanAll(t, s)

	tests := []struct {
		id, title, source string
		prompts           []string
		answers           int // assistant messages with text
	}{
		{"01a22861-8754-76e4-acec-0a8773f4a922", "hello pi, print mode", session.TitlePrompt,
			[]string{"hello pi, print mode", "resumed print-mode session via --session, plain turn", "and RUN in it"}, 4},
		{"01a22861-95ad-715d-891a-7bd2e82867b1", "please RUN something in print mode", session.TitlePrompt,
			[]string{"please RUN something in print mode", "continue: second print-mode turn"}, 3},
		{"01a22861-9e2c-774b-b253-e3e7331b4b9d", "json mode turn", session.TitlePrompt,
			[]string{"json mode turn"}, 1},
		{"01a22861-ac0c-7370-9d5e-0f884cfc9b82", "hello pi, interactive turn one", session.TitlePrompt,
			[]string{"hello pi, interactive turn one", "please RUN a command", "RUN another one please",
				"RUN and I will press escape", "continued session: RUN again"}, 9},
		// /name my-named-session: the last session_info name is the title.
		{"01a22862-c424-72c0-adff-2816ed020df0", "my-named-session", session.TitleCustom,
			[]string{"first prompt of a fresh session"}, 1},
		{"01a22863-1f53-708c-88b3-d6efd5004e42", "rpc turn 0: please RUN it", session.TitlePrompt,
			[]string{"rpc turn 0: please RUN it", "rpc turn 1: please RUN it"}, 3},
		{"01a22863-38ec-73b9-b764-661b8a26bd98", "rpc turn 0: please RUN it", session.TitlePrompt,
			[]string{"rpc turn 0: please RUN it", "rpc turn 1: please RUN it"}, 4},
	}
	if len(listed) != len(tests) {
		t.Errorf("listed %d sessions, want %d", len(listed), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			info, ok := listed[tt.id]
			if !ok {
				t.Fatal("not listed")
			}
			if info.Title != tt.title || info.TitleSource != tt.source {
				t.Errorf("title %q (%s), want %q (%s)", info.Title, info.TitleSource, tt.title, tt.source)
			}
			if info.FirstPrompt != tt.prompts[0] || info.LastPrompt != tt.prompts[len(tt.prompts)-1] || info.PromptCount != len(tt.prompts) {
				t.Errorf("prompts %q … %q (%d), want %q", info.FirstPrompt, info.LastPrompt, info.PromptCount, tt.prompts)
			}
			if info.Cwd != "/tmp/fakehome-pi/proj" || info.Project != "proj" || info.Model != "mock-model" {
				t.Errorf("cwd %q project %q model %q", info.Cwd, info.Project, info.Model)
			}
			if filepath.Base(info.Path) == "" || filepath.Dir(filepath.Dir(info.Path)) != filepath.Join(dir, "sessions") {
				t.Errorf("path %s", info.Path)
			}
			if info.Live || info.PID != 0 {
				t.Errorf("live without any process: %+v", info)
			}
			if info.Error != "" {
				t.Errorf("Error %q: a real recording is read whole", info.Error)
			}
			msgs, err := s.Conversation(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			checkConversation(t, msgs)
			if got := userTexts(msgs); !slices.Equal(got, tt.prompts) {
				t.Errorf("user messages %q, want %q", got, tt.prompts)
			}
			if n := len(msgs) - len(tt.prompts); n != tt.answers {
				t.Errorf("%d assistant messages, want %d", n, tt.answers)
			}
			got, err := s.Session(context.Background(), tt.id)
			if err != nil || got != info {
				t.Errorf("Session = %+v, %v; want the listed %+v", got, err, info)
			}
		})
	}
}

// TestPublicFixtures lists and previews pi-mono's own v1 test sessions
// and the public v3 samples (agentsview: redacted thinking, compaction, a
// malformed line, an unknown entry type; deja-vu: minimal), each copied
// into a temp agent dir the way Pi would file it.
func TestPublicFixtures(t *testing.T) {
	pub := sharedtest.Fixtures(t, "public", "pi")
	tests := []struct {
		src, id, cwd, model string
		first, last         string
		prompts, answers    int
		conv                []string // the whole conversation, when short
		err                 string   // its listing's Error
	}{
		{src: "pi-mono/packages/coding-agent/test/fixtures/large-session.jsonl",
			id: "d703a1a9-1b7b-4fb1-b512-c9738b1fe617", cwd: "/Users/badlogic/workspaces/pi-mono", model: "claude-sonnet-4-5",
			first: "/mode", last: "yeah, do it all", prompts: 88, answers: 244},
		{src: "pi-mono/packages/coding-agent/test/fixtures/before-compaction.jsonl",
			id: "ffae836b-9420-4060-ac13-7745215f90ff", cwd: "/Users/badlogic/workspaces/pi-mono",
			last: "ok", prompts: 55, answers: 253},
		{src: "agentsview/internal/parser/testdata/pi/session.jsonl",
			id: "pi-test-session-uuid", cwd: "/Users/alice/code/my-project", model: "claude-opus-4-5",
			first: "Fix the login bug", last: "Look good to you?", prompts: 2, answers: 2,
			err: "1 line could not be read", // its malformed line
			conv: []string{"user: Fix the login bug", "assistant: Looking at the auth module.",
				"user: Look good to you?", "assistant: Looks good!"}},
		{src: "deja-vu/fixtures/registry/pi/session.jsonl",
			id: "reg-pi-001", cwd: "/workspace/registry-demo", model: "claude-sonnet-4",
			first: "registry conformance question", last: "registry conformance question", prompts: 1, answers: 1,
			conv: []string{"user: registry conformance question", "assistant: registry conformance answer"}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			agent := t.TempDir()
			dst := filepath.Join(agent, "sessions", "--fixture--", "2025-01-01T00-00-00-000Z_"+tt.id+".jsonl")
			if err := copyFile(filepath.Join(pub, tt.src), dst); err != nil {
				t.Fatal(err)
			}
			s := newTestScanner(agent)
			listed := scanAll(t, s)
			info, ok := listed[tt.id]
			if !ok || len(listed) != 1 {
				t.Fatalf("listed %v, want only %s", listed, tt.id)
			}
			if info.Cwd != tt.cwd || (tt.model != "" && info.Model != tt.model) {
				t.Errorf("cwd %q model %q", info.Cwd, info.Model)
			}
			if tt.first != "" && (info.FirstPrompt != tt.first || info.Title != tt.first) {
				t.Errorf("first prompt %q title %q, want %q", info.FirstPrompt, info.Title, tt.first)
			}
			if info.LastPrompt != tt.last {
				t.Errorf("last prompt %q, want %q", info.LastPrompt, tt.last)
			}
			if info.PromptCount != tt.prompts {
				t.Errorf("%d prompts counted, want %d", info.PromptCount, tt.prompts)
			}
			if info.Error != tt.err {
				t.Errorf("Error %q, want %q", info.Error, tt.err)
			}
			if info.Created.IsZero() || info.Created.After(info.Updated) {
				t.Errorf("created %v, updated %v", info.Created, info.Updated)
			}
			// The copy's mtime is now; the last real event was long ago.
			if info.TimeSource != session.TimeFromEvent || time.Since(info.Updated) < 24*time.Hour {
				t.Errorf("updated %v (%s): a fresh mtime must not date an old session", info.Updated, info.TimeSource)
			}
			msgs, err := s.Conversation(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			checkConversation(t, msgs)
			users := userTexts(msgs)
			if len(users) != tt.prompts || len(msgs)-len(users) != tt.answers {
				t.Errorf("%d user and %d assistant messages, want %d and %d", len(users), len(msgs)-len(users), tt.prompts, tt.answers)
			}
			if len(users) > 0 && (users[len(users)-1] != tt.last || (tt.first != "" && users[0] != tt.first)) {
				t.Errorf("users %q … %q", users[0], users[len(users)-1])
			}
			if tt.conv != nil {
				var got []string
				for _, m := range msgs {
					got = append(got, m.Role+": "+m.Text)
				}
				if !slices.Equal(got, tt.conv) {
					t.Errorf("conversation\n got %q\nwant %q", got, tt.conv)
				}
			}
		})
	}
}
