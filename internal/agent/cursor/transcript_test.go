package cursor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
	"paddock/internal/testkit/sharedtest"
)

// The only real-world Cursor data there is: deja-vu's transcript fixture
// (public, synthetic by its authors; SOURCES.md), in the flat
// agent-transcripts/<id>.jsonl layout with a {"type":"turn_ended"} control
// line. With no chats/ folder, transcripts are all there is, so they list.
func TestPublicTranscriptFixture(t *testing.T) {
	dir := sharedtest.Fixtures(t, "public", "cursor", "deja-vu", "fixtures", "registry", "cursor")
	s := New(Options{Dir: dir})
	got := scanAll(t, s)
	info, ok := got["registry-cursor"]
	if !ok || len(got) != 1 {
		t.Fatalf("listed %v, want registry-cursor only", got)
	}
	checkInfo(t, info)
	want := session.Info{
		Runtime: "cursor", ID: "registry-cursor",
		Title: "inspect the cursor transcript", TitleSource: session.TitlePrompt,
		FirstPrompt: "inspect the cursor transcript", LastPrompt: "inspect the cursor transcript", PromptCount: 1,
		Path: filepath.Join(dir, "projects", "registry-demo", "agent-transcripts", "registry-cursor.jsonl"),
	}
	st, err := os.Stat(want.Path)
	if err != nil {
		t.Fatal(err)
	}
	want.Updated, want.TimeSource = st.ModTime(), session.TimeFromFile
	// "registry-demo" decodes to no existing directory: no cwd is made up.
	if info != want {
		t.Errorf("info:\n got  %+v\n want %+v", info, want)
	}
	one, err := s.Session(context.Background(), "registry-cursor")
	if err != nil || one != want {
		t.Errorf("Session = %+v, %v", one, err)
	}
	msgs, err := s.Conversation(context.Background(), "registry-cursor")
	if err != nil {
		t.Fatal(err)
	}
	msgsEqual(t, "registry-cursor", msgs, []session.Message{u("inspect the cursor transcript"), a("the transcript is readable")})
}

// SYNTHETIC transcripts in the layouts third-party readers document: nested
// <id>/<id>.jsonl with subagents beside it (never listed), context tags
// around the query, thinking and tool blocks, broken lines, invalid UTF-8.
// With chats/ present, transcripts are Cursor's backups: not listed, but a
// kept id whose chat folder is gone is shown from its transcript (// "目录没了就只能从 agent-transcripts 读内容").
func TestTranscripts(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	enc := strings.ReplaceAll(strings.TrimPrefix(proj, "/"), "/", "-")
	tdir := filepath.Join(root, "projects", enc, "agent-transcripts")
	lines := strings.Join([]string{
		`{"role":"system","message":{"content":"system text"}}`,
		`{"role":"user","message":{"content":[{"type":"text","text":"<user_info>OS</user_info>\n<timestamp>Tuesday</timestamp>\n<user_query>\nfirst ` + "\xff" + ` question\n</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"answer one"},{"type":"tool_use","name":"Read","input":{}}]}}`,
		`{"role":"user","message":{"content":[{"type":"tool_result","content":"file text"}]}}`,
		`{broken line`,
		`{"role":"user","content":"second question"}`,
		`{"role":"assistant","message":{"content":"answer two"}}`,
		`{"type":"turn_ended","status":"success"}`,
		`{"role":null,"message":null}`,
	}, "\n")
	writeFile(t, filepath.Join(tdir, "nested-id", "nested-id.jsonl"), []byte(lines))
	writeFile(t, filepath.Join(tdir, "nested-id", "subagents", "sub-1.jsonl"), []byte(`{"role":"user","content":"sub task"}`))
	writeFile(t, filepath.Join(tdir, "flat-id.jsonl"), []byte(`{"role":"user","content":"flat"}`+"\n"))
	writeFile(t, filepath.Join(tdir, "no-prompt.jsonl"), []byte(`{"role":"assistant","content":"orphan answer"}`+"\n"))
	writeFile(t, filepath.Join(tdir, "old.txt"), []byte("user:\n<user_query>txt</user_query>\n"))
	long := time.Now().Add(-time.Hour)
	setMtime(t, filepath.Join(tdir, "flat-id.jsonl"), long)

	s := New(Options{Dir: root})
	got := scanAll(t, s)
	if len(got) != 2 {
		t.Fatalf("listed %d: %v", len(got), got)
	}
	nested := got["nested-id"]
	checkInfo(t, nested)
	if nested.FirstPrompt != "first \uFFFD question" || nested.LastPrompt != "second question" || nested.PromptCount != 2 {
		t.Errorf("nested: %+v", nested)
	}
	if nested.Cwd != proj || nested.Project != filepath.Base(proj) {
		t.Errorf("nested: cwd %q project %q, want %q decoded from %q", nested.Cwd, nested.Project, proj, enc)
	}
	msgs, err := s.Conversation(context.Background(), "nested-id")
	if err != nil {
		t.Fatal(err)
	}
	msgsEqual(t, "nested-id", msgs, []session.Message{u("first \uFFFD question"), a("answer one"), u("second question"), a("answer two")})

	// Now chats/ exists: transcripts are backups, listed only when kept.
	writeChat(t, root, chatSpec{id: "a-chat", cwd: proj, meta: map[string]any{"title": "A chat", "cwd": proj, "hasConversation": true}})
	got = scanAll(t, s)
	if len(got) != 1 || got["a-chat"].ID == "" {
		t.Errorf("with chats/: listed %v", got)
	}
	got = scanAll(t, s, "flat-id")
	if info := got["flat-id"]; info.FirstPrompt != "flat" || len(got) != 2 {
		t.Errorf("kept transcript: %v", got)
	}
}

// A transcript larger than what listing reads whole is read by its head
// and tail only; the preview still reads it all.
func TestLargeTranscriptHeadTail(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"role":"user","content":"the first prompt"}` + "\n")
	filler := strings.Repeat("x", 1000)
	for b.Len() < 3*wholeReadBytes {
		b.WriteString(`{"role":"assistant","content":"` + filler + `"}` + "\n")
		b.WriteString(`{"role":"user","content":"middle"}` + "\n")
	}
	b.WriteString(`{"role":"user","content":"the last prompt"}` + "\n")
	writeFile(t, filepath.Join(root, "projects", "p", "agent-transcripts", "big.jsonl"), []byte(b.String()))
	s := New(Options{Dir: root})
	info := scanAll(t, s)["big"]
	if info.FirstPrompt != "the first prompt" || info.LastPrompt != "the last prompt" {
		t.Errorf("big: first %q last %q", info.FirstPrompt, info.LastPrompt)
	}
	msgs, err := s.Conversation(context.Background(), "big")
	if err != nil || len(msgs) < 6000 || msgs[len(msgs)-1].Text != "the last prompt" {
		t.Errorf("big preview: %d messages, %v", len(msgs), err)
	}
}

func TestResolveProjectDir(t *testing.T) {
	base := t.TempDir()
	for _, d := range []string{"my-app", "my.site/src", "a/b-c/d"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	enc := func(p string) string {
		return strings.NewReplacer("/", "-", ".", "-").Replace(strings.TrimPrefix(p, "/"))
	}
	for _, d := range []string{"my-app", "my.site/src", "a/b-c/d"} {
		want := filepath.Join(base, d)
		if got := resolveProjectDir(enc(want), isDir); got != want {
			t.Errorf("resolve(%q) = %q, want %q", enc(want), got, want)
		}
	}
	for _, name := range []string{"registry-demo", "", "-x", strings.Repeat("a-", 100)} {
		if got := resolveProjectDir(name, isDir); got != "" {
			t.Errorf("resolve(%q) = %q, want none", name, got)
		}
	}
}
