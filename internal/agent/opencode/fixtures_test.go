package opencode

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/history/historytest"
	"paddock/internal/session"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/sharedtest"
)

// manifest is testdata/<cli>-<version>/manifest.json (see testdata/README.md).
type manifest struct {
	Cwd      string `json:"cwd"`
	Sessions []struct {
		Name  string   `json:"name"`
		Argv  []string `json:"argv"`
		Turns []struct {
			Prompt  string `json:"prompt"`
			Kind    string `json:"kind"`
			Outcome string `json:"outcome"`
			Reply   string `json:"reply"`
		} `json:"turns"`
	} `json:"sessions"`
}

// hookSession is what paddock's OpenCode plugin reported of a session while
// it was recorded (session.created): its id, directory and creation time.
type hookSession struct {
	id, dir string
	created time.Time
}

// recordedHooks reads hooks.jsonl: the sessions in creation order.
func recordedHooks(t *testing.T, path string) []hookSession {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []hookSession
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Event   string `json:"event"`
			Payload struct {
				Event struct {
					Properties struct {
						Info struct {
							ID, Directory string
							Time          struct{ Created int64 }
						} `json:"info"`
					} `json:"properties"`
				} `json:"event"`
			} `json:"payload"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		info := line.Payload.Event.Properties.Info
		if line.Event == "session.created" {
			out = append(out, hookSession{id: info.ID, dir: info.Directory, created: time.UnixMilli(info.Time.Created)})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRecording lists and previews what the real OpenCode 1.18.33 wrote
// under `make fixtures` (testdata/opencode-1.18.33): the sessions the
// plugin saw created, with their titles, directory, creation times, the
// prompts the manifest says were typed and the mock's scripted answers.
func TestRecording(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "testdata", "opencode-1.18.33")
	var m manifest
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	hooks := recordedHooks(t, filepath.Join(dir, "hooks.jsonl"))
	if len(hooks) != 2 {
		t.Fatalf("hooks.jsonl: %d sessions created, want 2 (chat, tools; resumed continues tools)", len(hooks))
	}

	// The manifest's sessions: chat and tools are new sessions, resumed
	// reopened tools with --continue.
	idOf := map[string]string{"chat": hooks[0].id, "tools": hooks[1].id, "resumed": hooks[1].id}
	prompts := map[string][]string{}
	for _, ms := range m.Sessions {
		for _, turn := range ms.Turns {
			prompts[idOf[ms.Name]] = append(prompts[idOf[ms.Name]], turn.Prompt)
		}
	}

	s := New(Options{DataDir: filepath.Join(dir, "opencode"), KeepMissingCwd: true})
	ctx := context.Background()
	infos, err := s.Scan(ctx, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Newest first: tools was written last (the resumed turn).
	if got, want := ids(infos), []string{hooks[1].id, hooks[0].id}; !slices.Equal(got, want) {
		t.Fatalf("Scan ids = %v, want %v", got, want)
	}
	for i, h := range []hookSession{hooks[1], hooks[0]} {
		info := infos[i]
		p := prompts[h.id]
		want := session.Info{
			Runtime: "opencode", ID: h.id, Cwd: m.Cwd, Project: "proj",
			Title: mockmodel.TitleReply(p[0]), TitleSource: session.TitleAI, // OpenCode's title request, answered by the mock
			FirstPrompt: p[0], LastPrompt: p[len(p)-1], PromptCount: len(p),
			Created: h.created, Updated: info.Updated, TimeSource: TimeFromDB,
			Model: "mock/mock-model", Path: filepath.Join(dir, "opencode", "opencode.db"),
		}
		if h.dir != m.Cwd {
			t.Errorf("plugin saw %s in %s, manifest says %s", h.id, h.dir, m.Cwd)
		}
		if !info.Created.Equal(want.Created) {
			t.Errorf("%s Created = %v, want %v", h.id, info.Created, want.Created)
		}
		info.Created = want.Created
		if info != want {
			t.Errorf("Scan[%d] =\n  %+v\nwant\n  %+v", i, info, want)
		}

		msgs, err := s.Conversation(ctx, h.id)
		if err != nil {
			t.Fatal(err)
		}
		checkConversation(t, h.id, msgs)
		var users []string
		for _, msg := range msgs {
			if msg.Role == session.RoleUser {
				users = append(users, msg.Text)
			}
		}
		if !slices.Equal(users, p) {
			t.Errorf("%s user messages = %q, want the typed prompts %q", h.id, users, p)
		}
		if last := msgs[len(msgs)-1]; !info.Updated.After(last.Time) && !info.Updated.Equal(last.Time) {
			t.Errorf("%s Updated %v before its last message %v", h.id, info.Updated, last.Time)
		}
		if first := msgs[0]; first.Time.Before(info.Created) {
			t.Errorf("%s first message %v before Created %v", h.id, first.Time, info.Created)
		}
	}

	// The whole conversations, as the TUI showed them: every turn's text
	// parts; the tool calls, their output, the denial and the question
	// are not conversation.
	want := map[string][]string{
		hooks[0].id: {
			"user: hello paddock one",
			"assistant: " + mockmodel.PlainReply(1),
			"user: second turn please",
			"assistant: " + mockmodel.PlainReply(2),
		},
		hooks[1].id: {
			"user: please RUN the thing",
			"assistant: " + mockmodel.RunPreamble,
			"assistant: " + mockmodel.ToolFinishedReply,
			"user: RUN it again please", // denied: the preamble, then nothing
			"assistant: " + mockmodel.RunPreamble,
			"user: ASK me which color", // answered Red in the question dialog
			"assistant: " + mockmodel.AskPreamble,
			"assistant: " + mockmodel.ToolFinishedReply,
			"user: one more turn after resume",
			"assistant: " + mockmodel.PlainReply(4),
		},
	}
	for id, w := range want {
		msgs, err := s.Conversation(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if got := convText(msgs); !slices.Equal(got, w) {
			t.Errorf("Conversation(%s) =\n  %q\nwant\n  %q", id, got, w)
		}
	}
	// Each manifest turn's final reply is the last assistant text of its
	// turn.
	for _, ms := range m.Sessions {
		msgs, _ := s.Conversation(ctx, idOf[ms.Name])
		for _, turn := range ms.Turns {
			if turn.Reply == "" {
				continue
			}
			i := slices.IndexFunc(msgs, func(x session.Message) bool { return x.Role == "user" && x.Text == turn.Prompt })
			j := i + 1
			for j < len(msgs) && msgs[j].Role == session.RoleAssistant {
				j++
			}
			if i < 0 || msgs[j-1].Text != turn.Reply {
				t.Errorf("%s turn %q: last answer is not %q", ms.Name, turn.Prompt, turn.Reply)
			}
		}
	}
}

// TestSharedRecording reads the proving ground's OpenCode 1.18.33 database
// (../shared/fixtures/real/opencode-1.18.33/data/opencode.db): TUI, -s
// resume, run mode, run --continue, --format json and server-driven
// sessions. The database is in WAL mode without its -wal and -shm (a
// .backup copy), the case read through a private copy.
func TestSharedRecording(t *testing.T) {
	src := sharedtest.Fixtures(t, "real", "opencode-1.18.33", "data", "opencode.db")
	dir := t.TempDir()
	copyTree(t, filepath.Dir(src), dir)
	before := historytest.TreeState(t, dir)

	s := New(Options{DataDir: dir, KeepMissingCwd: true})
	ctx := context.Background()
	infos, err := s.Scan(ctx, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range infos {
		if info.Error != "" {
			t.Errorf("%s: Error %q: a real recording is read whole", info.ID, info.Error)
		}
	}
	if probs := s.Problems(); len(probs) != 0 {
		t.Errorf("Problems = %+v", probs)
	}
	type row struct {
		id, title, first, last string
		count                  int
		created, updated       int64
	}
	// From the recording: titles are the mock's
	// "done (turn 2)" reply to OpenCode's title request, except the one
	// the server API created with a title. `opencode run` quotes its
	// message: the stored prompt is "\"…\"", as sent to the model.
	want := []row{
		{"ses_dd7995304ffewpLWRLVOJ7ImEg", "Mock reply: done (turn 2).", "TUI with port: RUN it", "TUI: RUN, then escape", 2, 1795974147323, 1795974158127},
		{"ses_dd799978affelcMOHJ5hpm0MEo", "server-driven session", "server turn (once): please RUN it", "server turn (reject): please RUN it", 2, 1795974129781, 1795974132833},
		{"ses_dd799ecc0ffeyzwktcquHmKSdg", "Mock reply: done (turn 2).", `"json format run"`, `"json format run"`, 1, 1795974107968, 1795974109650},
		{"ses_dd79b2973ffeMQC4aZaNr2omfm", "Mock reply: done (turn 2).", "hello opencode tui, turn one", `"continued via run --continue"`, 7, 1795974026892, 1795974106401},
		{"ses_dd79b66d2ffe7xYw0T155aa3wp", "Mock reply: done (turn 2).", `"please RUN a command in run mode"`, `"please RUN a command in run mode"`, 1, 1795974011182, 1795974013426},
		{"ses_dd79b8af3ffejtT7dBl7UodI1i", "Mock reply: done (turn 2).", `"hello opencode, run mode"`, `"hello opencode, run mode"`, 1, 1795974001933, 1795974004134},
	}
	if len(infos) != len(want) {
		t.Fatalf("Scan = %d sessions %v, want %d", len(infos), ids(infos), len(want))
	}
	for i, w := range want {
		got := infos[i]
		g := row{got.ID, got.Title, got.FirstPrompt, got.LastPrompt, got.PromptCount, got.Created.UnixMilli(), got.Updated.UnixMilli()}
		if g != w {
			t.Errorf("Scan[%d] = %+v\nwant       %+v", i, g, w)
		}
		if got.Cwd != "/tmp/fakehome-opencode/proj" || got.Project != "proj" || got.Path != filepath.Join(dir, "opencode.db") ||
			got.TimeSource != TimeFromDB || got.Live || got.Model != "mock/mock-model" {
			t.Errorf("Scan[%d] = %+v", i, got)
		}
	}

	msgs, err := s.Conversation(ctx, "ses_dd79b2973ffeMQC4aZaNr2omfm")
	if err != nil {
		t.Fatal(err)
	}
	wantConv := []string{
		"user: hello opencode tui, turn one",
		"assistant: Mock reply: done (turn 1).",
		"user: please RUN a command",
		"assistant: I'll run a command.",
		"assistant: Mock reply: tool finished.",
		"user: RUN another, I will reject",
		"assistant: I'll run a command.",
		"user: resumed with -s: RUN again",
		"assistant: I'll run a command.",
		"assistant: Mock reply: tool finished.",
		"user: RUN once more, should be auto-allowed now",
		"assistant: I'll run a command.",
		"assistant: Mock reply: tool finished.",
		"user: ASK me a question",
		"assistant: Mock reply: tool finished.",
		`user: "continued via run --continue"`,
		"assistant: Mock reply: done (turn 7).",
	}
	if got := convText(msgs); !slices.Equal(got, wantConv) {
		t.Errorf("Conversation =\n  %q\nwant\n  %q", got, wantConv)
	}
	for _, info := range infos {
		msgs, err := s.Conversation(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		checkConversation(t, info.ID, msgs)
		if len(msgs) == 0 || msgs[0].Role != session.RoleUser || msgs[0].Text != info.FirstPrompt {
			t.Errorf("%s: conversation does not start with its first prompt %q", info.ID, info.FirstPrompt)
		}
	}
	historytest.SameTree(t, before, historytest.TreeState(t, dir))
}

// TestPublicFixture loads deja-vu's OpenCode SQL dump (a simplified
// schema: no title, parent_id, time_archived or part.session_id; ISO text
// times in session) into a temporary database and lists and previews it.
func TestPublicFixture(t *testing.T) {
	dump, err := os.ReadFile(sharedtest.Fixtures(t, "public", "opencode", "deja-vu", "fixtures", "registry", "opencode", "opencode.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db, err := sql.Open("sqlite", rwDSN(filepath.Join(dir, "opencode.db")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(string(dump)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := New(Options{DataDir: dir, KeepMissingCwd: true})
	ctx := context.Background()
	infos, err := s.Scan(ctx, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := session.Info{
		Runtime: "opencode", ID: "registry-opencode", Cwd: "/workspace/registry-demo", Project: "registry-demo",
		Title: "inspect the sqlite fixture", TitleSource: session.TitlePrompt,
		FirstPrompt: "inspect the sqlite fixture", LastPrompt: "inspect the sqlite fixture", PromptCount: 1,
		Created:    time.Date(2026, 7, 17, 9, 0, 0, 0, time.UTC),
		Updated:    time.Date(2026, 7, 17, 9, 0, 2, 0, time.UTC),
		TimeSource: TimeFromDB, Path: filepath.Join(dir, "opencode.db"),
	}
	if len(infos) != 1 || infos[0] != want {
		t.Fatalf("Scan =\n  %+v\nwant\n  %+v", infos, want)
	}
	msgs, err := s.Conversation(ctx, "registry-opencode")
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs := []session.Message{
		{Role: "user", Text: "inspect the sqlite fixture", Time: time.UnixMilli(1784278801000)},
		{Role: "assistant", Text: "the sqlite rows are readable", Time: time.UnixMilli(1784278802000)},
	}
	if !slices.EqualFunc(msgs, wantMsgs, func(a, b session.Message) bool {
		return a.Role == b.Role && a.Text == b.Text && a.Time.Equal(b.Time)
	}) {
		t.Errorf("Conversation = %+v, want %+v", msgs, wantMsgs)
	}
}
