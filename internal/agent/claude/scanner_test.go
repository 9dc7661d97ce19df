package claude

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"paddock/internal/session"
)

// wantListed is every fixture transcript that is a listable top-level
// session, with what listing must say about it. Everything else in the
// fixtures — subagent transcripts under <id>/subagents/, old agent-*.jsonl
// files, sidechain-only files, files with no prompt and no answer — must
// not be listed.
var wantListed = map[string]struct {
	title, source string
	prompts       int
	project       string
}{
	// Claude Code 2.1.328, recorded against a mock model.
	"b26ff492-9392-442d-b40c-d82e68fb2082": {"RUN once more", session.TitlePrompt, 4, "proj"},
	"14d07547-4535-40bc-9800-7f7c499cfab7": {"please RUN the thing", session.TitlePrompt, 3, "proj"},
	"1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2": {"say hi", session.TitlePrompt, 1, "proj"}, // claude -p: no origin field
	// Real transcripts collected by claude-code-log.
	"ef958aa1-0e93-49f0-bb71-150f63befcd1": {`OK, we're going to make a little experiment here. Pretend we have a list of tasks (say, first would be "research the ca…`, session.TitlePrompt, 2, "worktrees"},
	"03eb5929-52b3-4b13-ada3-b93ae35806b8": {"Ok, so there's isn't much to see here, mostly one idea about how to organize the work Markdown documents generated duri…", session.TitlePrompt, 7, "project"},
	"29ccd257-68b1-427f-ae5f-6524b7cb6f20": {"Use the Explore task in sub-agents with Haiku model to give me an overview of the code organization in the /workspace/c…", session.TitlePrompt, 1, "claude_p"},
	"94604a7b-062f-4369-bdf0-da948381c3e5": {"What are the tools that are available to you (allowed or not)?", session.TitlePrompt, 1, "claude_p"},
	// The IDE's <ide_opened_file> part is dropped, the typed part kept.
	"5ed31c36-bca8-40fd-8d24-f1a1f0af7901": {"I keep getting mysterious build errors when MDX files have URLs wrapped in angle brackets that markdownlint puts in aut…", session.TitlePrompt, 1, "danieldemmel.me-next"},
	// Its 15 summaries name leaves of other sessions, so none is its title.
	"fe869ecb-c176-478f-9734-7e4b8ef12cff": {"Hey Claude, can you please add a Github Action to run tests and linting? You can test it with `act`.", session.TitlePrompt, 2, "claude-code-log"},
	// Synthetic edge cases from claude-code-log.
	"representative_messages":              {"User learned about Python decorators, including basic decorators and parameterized decorators. Created and ran examples…", session.TitleSummary, 4, "tmp"},
	"edge_cases":                           {"Tested various edge cases including markdown formatting, long text, tool errors, system messages, command outputs, spec…", session.TitleSummary, 3, "tmp"},
	"dag_fork":                             {"Start", session.TitlePrompt, 7, "tmp"},
	"dag_resume":                           {"Start", session.TitlePrompt, 5, "tmp"},
	"memory_interactions":                  {"Please remember my build command.", session.TitlePrompt, 1, "proj"},
	"cron_tools":                           {"set up the loop and a cron", session.TitlePrompt, 1, "tmp"},
	"hook_attachments":                     {"Run the test suite", session.TitlePrompt, 1, "proj"},
	"sidechain_main":                       {"", "", 0, "claude-code-log"}, // an answer but no prompt: listed, untitled
	"11110000-0000-4000-8000-000000000001": {"Review the diff with a workflow.", session.TitlePrompt, 1, "repo"},
	// A team lead: its teammates' <teammate-message> turns are not prompts.
	"ef000000-0000-4000-8000-000000000001": {"Start a test-coverage team and dispatch two teammates.", session.TitlePrompt, 1, "test-fixture"},
	// The <task-notification> turn is not a prompt.
	"eb000000-0000-4000-8000-000000000001": {"Spawn a coverage analysis agent in the background and wait for the result.", session.TitlePrompt, 1, "async-fixture"},
	// Other projects' fixtures; no cwd recorded.
	"queued_system_messages": {"Your final response is captured verbatim into ...", session.TitlePrompt, 1, ""},
	"session":                {"inspect the registry fixture", session.TitlePrompt, 1, ""},
}

func TestScanFixtures(t *testing.T) {
	dir, files := claudeDirFromFixtures(t)
	s := newTestScanner(dir)
	infos, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}

	got := make(map[string]session.Info)
	for _, info := range infos {
		if _, dup := got[info.ID]; dup {
			t.Errorf("%s listed twice", info.ID)
		}
		got[info.ID] = info
	}
	for id, want := range wantListed {
		info, ok := got[id]
		if !ok {
			t.Errorf("%s not listed", id)
			continue
		}
		if info.Title != want.title || info.TitleSource != want.source {
			t.Errorf("%s: title %q (%s), want %q (%s)", id, info.Title, info.TitleSource, want.title, want.source)
		}
		if info.PromptCount != want.prompts {
			t.Errorf("%s: %d prompts, want %d", id, info.PromptCount, want.prompts)
		}
		if info.Project != want.project {
			t.Errorf("%s: project %q, want %q", id, info.Project, want.project)
		}
	}
	for id := range got {
		if _, ok := wantListed[id]; !ok {
			t.Errorf("%s listed, but it is no top-level session", id)
		}
	}
	// Every fixture transcript below a project's top level (subagents,
	// workflow agents, journals) must stay out, whatever its name.
	for _, f := range files {
		if !f.top {
			if info, ok := got[f.id]; ok && info.Path == f.dst {
				t.Errorf("nested transcript %s listed", f.dst)
			}
		}
	}

	for _, info := range infos {
		checkInfo(t, info)
		// Real recordings read whole; edge_cases.jsonl holds three lines
		// that are JSON but no record ("massive error", 42, [1]).
		want := ""
		if info.ID == "edge_cases" {
			want = "3 lines could not be read"
		}
		if info.Error != want {
			t.Errorf("%s: Error %q, want %q", info.ID, info.Error, want)
		}
	}
	if !slices.IsSortedFunc(infos, func(a, b session.Info) int { return b.Updated.Compare(a.Updated) }) {
		t.Error("sessions not sorted newest effective time first")
	}
}

// checkInfo asserts what holds for every listed session.
func checkInfo(t *testing.T, info session.Info) {
	t.Helper()
	if info.Runtime != "claude" || info.Key().String() != "claude:"+info.ID {
		t.Errorf("%s: runtime %q", info.ID, info.Runtime)
	}
	if _, err := os.Stat(info.Path); err != nil || filepath.Base(info.Path) != info.ID+".jsonl" {
		t.Errorf("%s: path %q (%v)", info.ID, info.Path, err)
	}
	checkText(t, info.ID+" title", info.Title, info.TitleSource != "")
	checkText(t, info.ID+" first prompt", info.FirstPrompt, info.PromptCount > 0)
	checkText(t, info.ID+" last prompt", info.LastPrompt, info.PromptCount > 0)
	if strings.ContainsAny(info.Title, "\n\r\t") || utf8.RuneCountInString(info.Title) > maxTitleRunes {
		t.Errorf("%s: title %q is not one short line", info.ID, info.Title)
	}
	if (info.PromptCount == 0) != (info.FirstPrompt == "") || (info.PromptCount == 0) != (info.LastPrompt == "") {
		t.Errorf("%s: %d prompts but first %q, last %q", info.ID, info.PromptCount, info.FirstPrompt, info.LastPrompt)
	}
	if info.Updated.IsZero() || (info.TimeSource != session.TimeFromFile && info.TimeSource != session.TimeFromEvent) {
		t.Errorf("%s: updated %v from %q", info.ID, info.Updated, info.TimeSource)
	}
	if !info.Created.IsZero() && info.Created.After(info.Updated) {
		t.Errorf("%s: created %v after updated %v", info.ID, info.Created, info.Updated)
	}
	if info.Live || info.PID != 0 || info.State != "" || info.ParentKey != "" {
		t.Errorf("%s: unexpected live/parent fields %+v", info.ID, info)
	}
}

// checkText asserts that text shown to a user is real text: valid UTF-8,
// trimmed, never a JSON null rendered as a word, never harness markup.
func checkText(t *testing.T, what, text string, required bool) {
	t.Helper()
	if required && text == "" {
		t.Errorf("%s: empty", what)
	}
	if !utf8.ValidString(text) || text != strings.TrimSpace(text) {
		t.Errorf("%s: %q is not trimmed valid UTF-8", what, text)
	}
	switch strings.ToLower(text) {
	case "null", "none", "nil", "undefined", "<nil>":
		t.Errorf("%s: %q", what, text)
	}
	if injected(text) {
		t.Errorf("%s: injected text %q shown", what, text)
	}
}

func TestConversationFixtures(t *testing.T) {
	dir, files := claudeDirFromFixtures(t)
	s := New(Options{Dir: dir})
	ctx := context.Background()
	for _, f := range files {
		if !f.top || !validID(f.id) {
			continue
		}
		msgs, err := s.Conversation(ctx, f.id)
		if err != nil {
			t.Errorf("%s: %v", f.id, err)
			continue
		}
		var last time.Time
		for i, m := range msgs {
			if m.Role != session.RoleUser && m.Role != session.RoleAssistant {
				t.Errorf("%s[%d]: role %q", f.id, i, m.Role)
			}
			checkText(t, f.id, m.Text, true)
			if !m.Time.IsZero() {
				if m.Time.Before(last) {
					t.Errorf("%s[%d]: time %v before %v", f.id, i, m.Time, last)
				}
				last = m.Time
			}
		}
		if _, listed := wantListed[f.id]; listed && len(msgs) == 0 {
			t.Errorf("%s: listed but no conversation", f.id)
		}
	}
}

type msg struct{ role, text string }

func TestConversationExact(t *testing.T) {
	dir, _ := claudeDirFromFixtures(t)
	s := New(Options{Dir: dir})
	tests := []struct {
		id   string
		want []msg
	}{
		{
			// k → j → i → c → b → a is the current branch; d..h hang off c
			// and b's descendants on an older branch.
			id: "dag_fork",
			want: []msg{
				{"user", "Start"}, {"assistant", "Reply 1"}, {"user", "Middle"},
				{"user", "Fork from c"}, {"assistant", "Forked reply"}, {"user", "End of s3"},
			},
		},
		{
			id: "dag_resume",
			want: []msg{
				{"user", "Start"}, {"assistant", "Reply 1"}, {"user", "Continue"}, {"assistant", "Reply 2"},
				{"user", "Last in s1"}, {"user", "Resume here"}, {"assistant", "Resumed reply"}, {"user", "End of s2"},
			},
		},
		{
			// Claude 2.1.328: metadata records, attachments, tool results and
			// the "[Request interrupted by user for tool use]" marker all drop
			// out; "I'll run a command." shares its message.id with a tool_use
			// line and stays one message.
			id: "14d07547-4535-40bc-9800-7f7c499cfab7",
			want: []msg{
				{"user", "please RUN the thing"}, {"assistant", "Mock reply: done."},
				{"user", "please RUN the thing again"}, {"assistant", "I'll run a command."}, {"assistant", "Mock reply: done."},
				{"user", "RUN once more"}, {"assistant", "I'll run a command."},
			},
		},
		{
			id: "eb000000-0000-4000-8000-000000000001",
			want: []msg{
				{"user", "Spawn a coverage analysis agent in the background and wait for the result."},
				{"assistant", "Coverage report received. Done."},
			},
		},
		{
			// Only the assistant's final text; the rest is tool traffic.
			id:   "sidechain_main",
			want: []msg{{"assistant", "Excellent research! The sub-assistant has identifi..."}},
		},
		{
			// Every line is isSidechain: nothing of it is the user's conversation.
			id:   "sidechain_agent",
			want: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			msgs, err := s.Conversation(context.Background(), tt.id)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]msg, len(msgs))
			for i, m := range msgs {
				got[i] = msg{m.Role, m.Text}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// The user rewound 03eb5929 to its first answer and asked again: the three
// prompts of the old branch must not show.
func TestConversationDropsAbandonedBranch(t *testing.T) {
	dir, _ := claudeDirFromFixtures(t)
	msgs, err := New(Options{Dir: dir}).Conversation(context.Background(), "03eb5929-52b3-4b13-ada3-b93ae35806b8")
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, m := range msgs {
		if m.Role == session.RoleUser {
			users = append(users, m.Text[:min(len(m.Text), 30)])
		}
	}
	want := []string{
		"Ok, so there's isn't much to s",
		"I actually don't like much thi",
		"Ok, so, to be fair, maybe also",
		"Fair enough. Can you write a b",
	}
	if !slices.Equal(users, want) {
		t.Errorf("user turns %q, want %q", users, want)
	}
}

func TestSessionLookup(t *testing.T) {
	dir, _ := claudeDirFromFixtures(t)
	s := New(Options{Dir: dir})
	ctx := context.Background()

	info, err := s.Session(ctx, "b26ff492-9392-442d-b40c-d82e68fb2082")
	if err != nil {
		t.Fatal(err)
	}
	if info.Title != "RUN once more" || info.PromptCount != 4 || info.Model != "claude-opus-5-5" || info.Cwd != "/tmp/fakehome1/proj" {
		t.Errorf("Session = %+v", info)
	}
	// The first records (mode, permission-mode, ...) carry no timestamp.
	if want := time.Date(2026, 11, 29, 17, 31, 29, 840e6, time.UTC); !info.Created.Equal(want) {
		t.Errorf("created %v, want %v", info.Created, want)
	}

	for _, id := range []string{
		"", ".", "..", "../x", "a/b", `a\b`, "*", "b26ff492*", "with space", "x.jsonl",
		"agent-3ea04571",                       // an old subagent transcript
		"sidechain_agent",                      // a subagent transcript
		"3680252d-d4e3-4416-bddd-8f5b5b4fdb7f", // only a /model command: nothing to show
		"00000000-0000-0000-0000-000000000000", // no such file
	} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", id, err)
		}
	}
	for _, id := range []string{"", "../x", "a/b", "*", "00000000-0000-0000-0000-000000000000"} {
		if _, err := s.Conversation(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Conversation(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestScanMissingDirs(t *testing.T) {
	empty := t.TempDir()
	noProjects := t.TempDir()
	if err := os.Mkdir(filepath.Join(noProjects, "sessions"), 0o755); err != nil {
		t.Fatal(err)
	}
	projectsIsFile := t.TempDir()
	if err := os.WriteFile(filepath.Join(projectsIsFile, "projects"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, dir := range map[string]string{
		"unset":            "",
		"missing":          filepath.Join(empty, "nope"),
		"empty":            empty,
		"no projects":      noProjects,
		"projects is file": projectsIsFile,
	} {
		t.Run(name, func(t *testing.T) {
			s := New(Options{Dir: dir})
			infos, err := s.Scan(context.Background(), 50, []string{"x"})
			if err != nil || len(infos) != 0 {
				t.Errorf("Scan = %v, %v; want empty, nil", infos, err)
			}
			if _, err := s.Session(context.Background(), "x"); !errors.Is(err, session.ErrNotFound) {
				t.Errorf("Session = %v", err)
			}
		})
	}
}

func TestScanCanceled(t *testing.T) {
	dir, _ := claudeDirFromFixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Options{Dir: dir}).Scan(ctx, 10, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan on a canceled context = %v", err)
	}
}

func TestWatchDirs(t *testing.T) {
	dir := t.TempDir()
	s := New(Options{Dir: dir})
	if got := s.WatchDirs(); len(got) != 0 {
		t.Errorf("WatchDirs of an empty dir = %q", got)
	}
	for _, d := range []string{"projects/a", "projects/b/sub", "sessions"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "projects", "stray.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(dir, "projects"),
		filepath.Join(dir, "projects", "a"),
		filepath.Join(dir, "projects", "b"),
		filepath.Join(dir, "sessions"),
	}
	got := s.WatchDirs()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("WatchDirs = %q, want %q", got, want)
	}
	if New(Options{}).WatchDirs() != nil {
		t.Error("WatchDirs without a dir should be empty")
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", "/opt/claude-config")
	if got := DefaultDir(); got != "/opt/claude-config" {
		t.Errorf("DefaultDir with CLAUDE_CONFIG_DIR = %q", got)
	}
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("HOME", "/home/someone")
	if got := DefaultDir(); got != filepath.Join("/home/someone", ".claude") {
		t.Errorf("DefaultDir = %q", got)
	}
}

// The catalog calls Session and Conversation while a rescan runs.
func TestConcurrentUse(t *testing.T) {
	dir, _ := claudeDirFromFixtures(t)
	s := newTestScanner(dir)
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 5 {
				if _, err := s.Scan(ctx, 5+i, []string{"dag_fork"}); err != nil {
					t.Error(err)
				}
				if _, err := s.Session(ctx, "dag_resume"); err != nil {
					t.Error(err)
				}
				if _, err := s.Conversation(ctx, "14d07547-4535-40bc-9800-7f7c499cfab7"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}
