package kimi

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// recording is the part of testdata/<cli>-<version>/manifest.json read here.
type recording struct {
	Cwd      string
	Sessions []struct {
		Name  string
		Turns []struct{ Prompt, Kind, Outcome, Reply string }
		Files []string
	}
}

// TestRecordedSessions checks the sessions the real Kimi Code 2.1.0 wrote
// for `make fixtures` (testdata/kimi-2.1.0, in every clone) against what
// the manifest says was typed and answered: the session id, cwd, title and
// prompts, and a conversation of exactly the typed prompts, each answer the
// TUI showed in between. The "resumed" run continued the "tools" session
// with --continue, so both fill one session.
func TestRecordedSessions(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "kimi-*"))
	if len(dirs) == 0 {
		t.Fatal("no testdata/kimi-*/ recording (make fixtures)")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var m recording
			b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
			if err == nil {
				err = json.Unmarshal(b, &m)
			}
			if err != nil {
				t.Fatal(err)
			}
			home := t.TempDir()
			copyTree(t, filepath.Join(dir, "kimi"), home)
			s := newTest(home)
			infos := byID(scanAll(t, s))
			for id, info := range infos {
				if info.Error != "" {
					t.Errorf("%s: Error %q: a real recording is read whole", id, info.Error)
				}
			}

			// Group the manifest's runs by the session their files name.
			type want struct {
				prompts, replies []string
			}
			wants := map[string]*want{}
			var order []string
			for _, run := range m.Sessions {
				id := sessionOfFiles(run.Files)
				if id == "" {
					t.Fatalf("run %s names no session file", run.Name)
				}
				w := wants[id]
				if w == nil {
					w = &want{}
					wants[id] = w
					order = append(order, id)
				}
				for _, tu := range run.Turns {
					if strings.HasPrefix(tu.Outcome, "skipped") {
						continue // never typed
					}
					w.prompts = append(w.prompts, tu.Prompt)
					if tu.Reply != "" {
						w.replies = append(w.replies, tu.Reply)
					}
				}
			}
			if len(infos) != len(wants) {
				t.Errorf("listed %d sessions, want %d", len(infos), len(wants))
			}
			for _, id := range order {
				w := wants[id]
				info, ok := infos[id]
				if !ok {
					t.Errorf("session %s not listed", id)
					continue
				}
				if info.Cwd != m.Cwd || info.Project != filepath.Base(m.Cwd) {
					t.Errorf("%s: cwd %q project %q, want %q", id, info.Cwd, info.Project, m.Cwd)
				}
				if info.Title != w.prompts[0] || info.TitleSource != session.TitlePrompt {
					t.Errorf("%s: title %q (%s), want %q", id, info.Title, info.TitleSource, w.prompts[0])
				}
				if info.FirstPrompt != w.prompts[0] || info.LastPrompt != w.prompts[len(w.prompts)-1] ||
					info.PromptCount != len(w.prompts) {
					t.Errorf("%s: prompts %q…%q (%d), want %q…%q (%d)", id, info.FirstPrompt, info.LastPrompt,
						info.PromptCount, w.prompts[0], w.prompts[len(w.prompts)-1], len(w.prompts))
				}
				if info.Model != "mock-model" || info.Created.IsZero() || info.Live {
					t.Errorf("%s: model %q created %v live %v", id, info.Model, info.Created, info.Live)
				}
				if !strings.HasSuffix(info.Path, filepath.Join(id, "agents", "main", "wire.jsonl")) {
					t.Errorf("%s: path %s", id, info.Path)
				}

				msgs := conversation(t, s, id)
				checkMessages(t, id, msgs)
				var users, answers []string
				for _, msg := range msgs {
					if msg.Role == session.RoleUser {
						users = append(users, msg.Text)
					} else {
						answers = append(answers, msg.Text)
					}
				}
				if !slices.Equal(users, w.prompts) {
					t.Errorf("%s: user messages %q, want %q", id, users, w.prompts)
				}
				for _, r := range w.replies {
					if !slices.Contains(answers, r) {
						t.Errorf("%s: no assistant message %q in %q", id, r, answers)
					}
				}
				if msgs[0].Role != session.RoleUser || msgs[len(msgs)-1].Role != session.RoleAssistant {
					t.Errorf("%s: conversation %q", id, texts(msgs))
				}
			}
		})
	}
}

// sessionOfFiles finds the session id in a manifest's file list.
func sessionOfFiles(files []string) string {
	for _, f := range files {
		parts := strings.Split(f, "/")
		for i, p := range parts {
			if p == "agents" && i > 0 {
				return parts[i-1]
			}
		}
	}
	return ""
}

// TestSharedRealKimiCode lists the kimi-code home recorded on a real run
// (../shared/fixtures/real/kimi-code-2.1.0: print-mode runs, a TUI session
// with approvals, a question, an interrupt and a resume, and a session
// with a subagent) and checks it against `kimi session list --json` of the
// same home (exec/session-list.json): same ids, cwd, creation, last prompt
// and, where Kimi has one, title.
func TestSharedRealKimiCode(t *testing.T) {
	base := sharedtest.Fixtures(t, "real", "kimi-code-2.1.0")
	home := t.TempDir()
	copyTree(t, filepath.Join(base, "kimi-code-home"), home)
	var list []struct {
		ID, Title, LastPrompt, WorkDir string
		CreatedAt                      int64
	}
	b, err := os.ReadFile(filepath.Join(base, "exec", "session-list.json"))
	if err == nil {
		err = json.Unmarshal(b, &list)
	}
	if err != nil {
		t.Fatal(err)
	}

	s := newTest(home)
	infos := byID(scanAll(t, s))
	if len(infos) != len(list) {
		t.Errorf("listed %d sessions, kimi lists %d", len(infos), len(list))
	}
	for id, info := range infos {
		if info.Error != "" {
			t.Errorf("%s: Error %q: a real recording is read whole", id, info.Error)
		}
	}
	for _, k := range list {
		info, ok := infos[k.ID]
		if !ok {
			t.Errorf("%s not listed", k.ID)
			continue
		}
		if info.Cwd != k.WorkDir || !info.Created.Equal(time.UnixMilli(k.CreatedAt)) {
			t.Errorf("%s: cwd %q created %v, kimi says %q %v", k.ID, info.Cwd, info.Created, k.WorkDir, time.UnixMilli(k.CreatedAt))
		}
		if k.LastPrompt != "" && info.LastPrompt != k.LastPrompt {
			t.Errorf("%s: last prompt %q, kimi says %q", k.ID, info.LastPrompt, k.LastPrompt)
		}
		if k.Title != "" && info.Title != k.Title {
			t.Errorf("%s: title %q, kimi says %q", k.ID, info.Title, k.Title)
		}
		if info.Title == "" || info.FirstPrompt == "" || info.PromptCount == 0 {
			t.Errorf("%s: title %q first prompt %q count %d", k.ID, info.Title, info.FirstPrompt, info.PromptCount)
		}
		msgs := conversation(t, s, k.ID)
		checkMessages(t, k.ID, msgs)
		for _, m := range msgs {
			// agents/agent-0/wire.jsonl holds the subagent's own turns;
			// they are not this session's conversation.
			if strings.Contains(m.Text, "subagent task:") || strings.Contains(m.Text, "<system-reminder>") ||
				strings.Contains(m.Text, "hello-from-mock") {
				t.Errorf("%s: %s message %q is not conversation", k.ID, m.Role, m.Text)
			}
		}
	}

	// The subagent session's conversation, exactly.
	got := texts(conversation(t, s, "session_07c807cc-e0ff-4a59-bb50-d3fa8f5e5fee"))
	want := []string{
		"user: RUN with hook deny", "assistant: I'll run a command.", "assistant: Mock reply: tool finished.",
		"user: RUN with hook exit2", "assistant: I'll run a command.", "assistant: Mock reply: tool finished.",
		"user: RUN with hook allow", "assistant: I'll run a command.", "assistant: Mock reply: tool finished.",
		"user: AGENT please delegate", "assistant: I'll delegate to a subagent.", "assistant: Mock reply: tool finished.",
		"user: RUN and then the process gets killed", "assistant: I'll run a command.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("conversation\n got %q\nwant %q", got, want)
	}
}

// TestSharedSnapshots lists sessions whose wire is one of the three-line
// tails recorded mid-turn (busy, approval and question pending, after an
// interrupt or a kill, a subagent waiting): the head and tail hold no
// prompt, so the list entry comes from state.json, and the preview shows
// nothing it should not.
func TestSharedSnapshots(t *testing.T) {
	base := sharedtest.Fixtures(t, "real", "kimi-code-2.1.0", "snapshots")
	states, _ := filepath.Glob(filepath.Join(base, "*.state.json"))
	if len(states) == 0 {
		t.Fatal("no snapshots")
	}
	for _, st := range states {
		name := strings.TrimSuffix(filepath.Base(st), ".state.json")
		t.Run(name, func(t *testing.T) {
			home := t.TempDir()
			dir := filepath.Join(home, "sessions", "wd_proj_aa77772e96cd", "session_"+strings.ToLower(strings.ReplaceAll(name, "-", "_")))
			copyFile(t, st, filepath.Join(dir, "state.json"))
			copyFile(t, filepath.Join(base, name+".wire-tail.jsonl"), filepath.Join(dir, "agents", "main", "wire.jsonl"))
			raw, _ := os.ReadFile(st)
			var state struct{ Title, LastPrompt, Cwd string }
			if err := json.Unmarshal(raw, &state); err != nil {
				t.Fatal(err)
			}
			s := newTest(home)
			infos := scanAll(t, s)
			if len(infos) != 1 {
				t.Fatalf("listed %d sessions", len(infos))
			}
			info := infos[0]
			if info.Title != state.Title || info.LastPrompt != state.LastPrompt || info.Cwd != state.Cwd {
				t.Errorf("entry %q / %q / %q, state.json %q / %q / %q", info.Title, info.LastPrompt, info.Cwd,
					state.Title, state.LastPrompt, state.Cwd)
			}
			msgs := conversation(t, s, info.ID)
			checkMessages(t, info.ID, msgs)
			for _, m := range msgs {
				if m.Role == session.RoleUser || strings.Contains(m.Text, "subagent task") {
					t.Errorf("message %q from a tail with no prompt", texts([]session.Message{m}))
				}
			}
		})
	}
}

// TestPublicFixtures reads other projects' kimi-code samples: deja-vu's
// (protocol 1.4, a think part, a torn final step, the legacy workDir key
// and ISO times) and kimi-code's own (a subagent wire beside the main one,
// a compaction), each laid out as a session under a temporary home.
func TestPublicFixtures(t *testing.T) {
	base := sharedtest.Fixtures(t, "public", "kimi")
	home := t.TempDir()
	copyTree(t, filepath.Join(base, "deja-vu", "fixtures", "registry", "kimi"), home)
	for _, sample := range []string{"sample-main", "sample-compaction"} {
		copyTree(t, filepath.Join(base, "kimi-code", sample), filepath.Join(home, "sessions", "wd_work_0123456789ab", sample))
	}
	s := newTest(home)
	infos := byID(scanAll(t, s))

	cases := []struct {
		id, title, cwd, first, model string
		created                      time.Time
		conv                         []string
	}{
		{
			id: "session_fixture01", title: "Kimi fixture: jwks cache rotation needle",
			cwd: "/home/example/work/demo-project", first: "why does the jwks cache go stale after rotation?",
			created: time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC),
			conv: []string{
				"user: why does the jwks cache go stale after rotation?",
				"assistant: The cache keeps serving the old kid after rotateKey; reload the jwks cache on rotation and add a clock-skew test.",
				"user: and the mid-stream needle?",
				"assistant: torn-tail mid-stream answer survives",
			},
		},
		{
			id: "sample-main", title: "fixture: hello world", cwd: "/tmp/work", first: "hi", model: "kimi-k2",
			created: time.Date(2026, 5, 20, 5, 59, 51, 85e6, time.UTC),
			conv:    []string{"user: hi", "assistant: hello"},
		},
		{
			id: "sample-compaction", title: "fixture: compaction", cwd: "/tmp/work", first: "before compaction",
			created: time.Date(2026, 5, 20, 5, 59, 51, 85e6, time.UTC),
			conv:    []string{"user: before compaction", "assistant: assistant reply", "user: after compaction"},
		},
	}
	if len(infos) != len(cases) {
		t.Errorf("listed %d sessions, want %d", len(infos), len(cases))
	}
	for _, c := range cases {
		info, ok := infos[c.id]
		if !ok {
			t.Errorf("%s not listed", c.id)
			continue
		}
		if info.Title != c.title || info.Cwd != c.cwd || info.FirstPrompt != c.first || info.Model != c.model ||
			!info.Created.Equal(c.created) {
			t.Errorf("%s: %q %q %q %q %v", c.id, info.Title, info.Cwd, info.FirstPrompt, info.Model, info.Created)
		}
		msgs := conversation(t, s, c.id)
		checkMessages(t, c.id, msgs)
		if got := texts(msgs); !slices.Equal(got, c.conv) {
			t.Errorf("%s conversation\n got %q\nwant %q", c.id, got, c.conv)
		}
	}

	// agentsview's one config.update line: the cwd and model alias are
	// read from it, and a wire with nothing said is no session.
	line, err := os.ReadFile(filepath.Join(base, "agentsview", "internal", "parser", "testdata", "kimi-config-update-cwd.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	h2 := t.TempDir()
	wire := fake{bucket: "wd_mcp-hub_000000000000", id: "session_cfg", wire: []string{strings.TrimSpace(string(line))}}.write(t, h2)
	st, _ := os.Stat(wire)
	c := candidate{id: "session_cfg", layout: current, dir: filepath.Dir(filepath.Dir(filepath.Dir(wire))), path: wire, sig: history.SigOf(st)}
	sum := readCurrentSummary(&c, "")
	if sum.cwd != "/Users/helix/Code/mcp-hub" || sum.model != "kimi-code/kimi-for-coding" || sum.listable {
		t.Errorf("config.update: cwd %q model %q listable %v", sum.cwd, sum.model, sum.listable)
	}
	if got, err := newTest(h2).Scan(context.Background(), -1, nil); err != nil || len(got) != 0 {
		t.Errorf("Scan = %v, %v; want nothing", got, err)
	}
}
