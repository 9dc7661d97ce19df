package opencode

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// Subagent sessions (parent_id set by the task tool) and archived
// sessions are not listed, found or kept.
func TestSubagentAndArchivedSessionsHidden(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_top", dir: cwd, created: t0}, "do the task", "delegating")
	w.chat(sess{id: "ses_child", dir: cwd, created: t0.Add(time.Minute), parent: "ses_top",
		title: "Child session - 2026-05-01T12:01:00.000Z"}, "subtask prompt", "subtask answer")
	w.chat(sess{id: "ses_archived", dir: cwd, created: t0.Add(2 * time.Minute), archived: t0.Add(time.Hour)}, "old", "ok")
	s := New(Options{DataDir: dbDir})
	ctx := context.Background()
	got, err := s.Scan(ctx, 10, []string{"ses_child", "ses_archived"})
	if err != nil || !slices.Equal(ids(got), []string{"ses_top"}) {
		t.Fatalf("Scan = %v, %v; want [ses_top]", ids(got), err)
	}
	for _, id := range []string{"ses_child", "ses_archived"} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%s) = %v, want ErrNotFound", id, err)
		}
	}
	// A TUI showing a child session does not make it listed either.
	s = New(Options{DataDir: dbDir, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
		return []procscan.AgentProcess{tui(5, cwd, t0.Add(-time.Hour), "opencode", "-s", "ses_child")}, nil
	}})
	if got, _ := s.Scan(ctx, 10, nil); !slices.Equal(ids(got), []string{"ses_top"}) || got[0].Live {
		t.Errorf("with a TUI on the child: %+v", got)
	}
}

// Only what a person typed and what the assistant wrote to be read: text
// parts merged per message; synthetic (expanded @files, injected notes) and
// ignored parts, reasoning, tools, files, steps, patches, compaction
// requests and compaction summaries dropped.
func TestConversationRules(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.session(sess{id: "ses_a", dir: cwd, created: t0, title: "Fix the bug"})
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	w.message("ses_a", 1, "user", at(1),
		text("look at @main.go"),
		`{"type":"text","text":"Called the Read tool with the following input: {\"filePath\":\"main.go\"}","synthetic":true}`,
		`{"type":"file","mime":"text/plain","filename":"main.go","url":"file:///main.go"}`,
		text("and fix it"),
		`{"type":"text","text":"hidden","ignored":true}`)
	w.message("ses_a", 2, "assistant", at(2),
		`{"type":"step-start"}`,
		`{"type":"reasoning","text":"thinking about it"}`,
		text("Reading the file."),
		`{"type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{},"output":"package main"}}`,
		text("Found it."),
		`{"type":"step-finish","reason":"stop"}`,
		`{"type":"patch","hash":"abc","files":["main.go"]}`)
	w.message("ses_a", 3, "assistant", at(3), `{"type":"step-start"}`, `{"type":"tool","tool":"bash","state":{"status":"error"}}`)
	w.message("ses_a", 4, "user", at(4), `{"type":"compaction","auto":true}`, `{"type":"text","text":"What did we do so far?"}`)
	w.messageData("ses_a", 5, at(5), `{"role":"assistant","summary":true,"time":{"created":1}}`, text("Summary: we fixed main.go"))
	w.message("ses_a", 6, "user", at(6), `{"type":"text","text":"only synthetic","synthetic":true}`)
	w.message("ses_a", 7, "user", at(7), text("  thanks  \n"))
	w.message("ses_a", 8, "assistant", at(8), text(""), text("   "))
	w.message("ses_a", 9, "assistant", at(9), text("You're welcome."))

	s := New(Options{DataDir: dbDir})
	ctx := context.Background()
	msgs, err := s.Conversation(ctx, "ses_a")
	if err != nil {
		t.Fatal(err)
	}
	want := []session.Message{
		{Role: "user", Text: "look at @main.go\n\nand fix it", Time: at(1)},
		{Role: "assistant", Text: "Reading the file.\n\nFound it.", Time: at(2)},
		{Role: "user", Text: "thanks", Time: at(7)},
		{Role: "assistant", Text: "You're welcome.", Time: at(9)},
	}
	if !slices.EqualFunc(msgs, want, func(a, b session.Message) bool {
		return a.Role == b.Role && a.Text == b.Text && a.Time.Equal(b.Time)
	}) {
		t.Errorf("Conversation =\n  %q\nwant\n  %q", convText(msgs), convText(want))
	}
	got, err := s.Scan(ctx, 10, nil)
	if err != nil || len(got) != 1 {
		t.Fatalf("Scan = %v, %v", got, err)
	}
	if i := got[0]; i.FirstPrompt != "look at @main.go\n\nand fix it" || i.LastPrompt != "thanks" || i.PromptCount != 2 ||
		i.Title != "Fix the bug" || i.TitleSource != session.TitleAI {
		t.Errorf("Scan = %+v", i)
	}
}

// Listing reads more rows than it lists and filters them, so noise newer
// than the real sessions (sessions without a prompt, in throw-away
// oc-manager-* directories, or in directories that are gone) cannot push
// real ones out of the window.
func TestNoiseDoesNotCrowdOutRealSessions(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	gone := filepath.Join(t.TempDir(), "deleted-project")
	manager := filepath.Join(t.TempDir(), "oc-manager-codex", "work")
	if err := os.MkdirAll(manager, 0o755); err != nil {
		t.Fatal(err)
	}
	w := newDB(t, dbDir)
	w.exec("BEGIN")
	var real []string
	for i := range 5 {
		id := fmt.Sprintf("ses_real%d", i)
		real = append([]string{id}, real...)
		w.chat(sess{id: id, dir: cwd, created: t0.Add(time.Duration(i) * time.Minute)}, "real prompt", "ok")
	}
	for i := range 300 {
		at := t0.Add(time.Hour + time.Duration(i)*time.Second)
		switch i % 3 {
		case 0:
			w.session(sess{id: fmt.Sprintf("ses_empty%03d", i), dir: cwd, created: at})
		case 1:
			w.chat(sess{id: fmt.Sprintf("ses_manager%03d", i), dir: manager, created: at}, "manager task", "ok")
		case 2:
			w.chat(sess{id: fmt.Sprintf("ses_gone%03d", i), dir: gone, created: at}, "old project", "ok")
		}
	}
	w.exec("COMMIT")
	s := New(Options{DataDir: dbDir})
	for _, limit := range []int{1, 5, 50} {
		got, err := s.Scan(context.Background(), limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := real[:min(limit, 5)]; !slices.Equal(ids(got), want) {
			t.Errorf("Scan(%d) = %v, want %v", limit, ids(got), want)
		}
	}
	// The directory check is the only difference KeepMissingCwd makes.
	s = New(Options{DataDir: dbDir, KeepMissingCwd: true})
	got, _ := s.Scan(context.Background(), 3, nil)
	for _, info := range got {
		if !strings.HasPrefix(info.ID, "ses_gone") {
			t.Errorf("KeepMissingCwd: listed %s, want the newest sessions of the gone directory", info.ID)
		}
	}
	// A throw-away directory is dropped even while its TUI runs.
	s = New(Options{DataDir: dbDir, Processes: func(context.Context) ([]procscan.AgentProcess, error) {
		return []procscan.AgentProcess{tui(9, manager, t0, "opencode", "-s", "ses_manager001")}, nil
	}})
	got, _ = s.Scan(context.Background(), 5, nil)
	if slices.Contains(ids(got), "ses_manager001") {
		t.Error("an oc-manager session was listed because its TUI runs")
	}
}

// The cwd check is memoised for a pass: many sessions share one directory.
func TestCwdCheckMemoised(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPass(New(Options{}), nil)
	if !p.cwds.Exists(dir) {
		t.Fatal("an existing directory reported missing")
	}
	os.Remove(dir)
	if !p.cwds.Exists(dir) {
		t.Error("the second check of one directory in a pass looked again")
	}
	if newPass(New(Options{}), nil).cwds.Exists(dir) {
		t.Error("a new pass did not look again")
	}
	if !p.cwds.Exists("") {
		t.Error("an unknown cwd counts as missing")
	}
}

// Titles: OpenCode's placeholder ("New session - <ISO>") means untitled,
// so the first prompt titles the session; a real title is used on one line.
func TestTitles(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_1", dir: cwd, created: t0}, "first prompt\nsecond line", "ok")
	w.chat(sess{id: "ses_2", dir: cwd, created: t0.Add(time.Minute), title: "Untitled"}, "from untitled", "ok")
	w.chat(sess{id: "ses_3", dir: cwd, created: t0.Add(2 * time.Minute), title: "Refactor\n  the parser"}, "p", "ok")
	w.chat(sess{id: "ses_4", dir: cwd, created: t0.Add(3 * time.Minute), title: "New session - today"}, "p", "ok")
	w.chat(sess{id: "ses_5", dir: cwd, created: t0.Add(4 * time.Minute), title: strings.Repeat("long ", 100)}, "p", "ok")
	got, err := New(Options{DataDir: dbDir}).Scan(context.Background(), 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]string{
		"ses_1": {"first prompt second line", session.TitlePrompt},
		"ses_2": {"from untitled", session.TitlePrompt},
		"ses_3": {"Refactor the parser", session.TitleAI},
		"ses_4": {"New session - today", session.TitleAI}, // not OpenCode's pattern: a real title
		"ses_5": {strings.TrimSpace(strings.Repeat("long ", 24)) + "…", session.TitleAI},
	}
	for _, info := range got {
		if w := want[info.ID]; info.Title != w[0] || info.TitleSource != w[1] {
			t.Errorf("%s: title %q (%s), want %q (%s)", info.ID, info.Title, info.TitleSource, w[0], w[1])
		}
	}
	if len(got[0].Title) > 0 && len([]rune(got[0].Title)) > maxTitleRunes {
		t.Errorf("title longer than %d runes", maxTitleRunes)
	}
}

// JSON null where a value is expected, malformed JSON rows, invalid UTF-8
// and a missing model degrade per row: never a crash, never "None" or
// "null" shown, never a failed list.
func TestBadRows(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.session(sess{id: "ses_bad", dir: cwd, created: t0})
	w.exec(`UPDATE session SET model = NULL WHERE id = 'ses_bad'`)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Second) }
	w.messageData("ses_bad", 1, at(1), `{"role":"user","model":{"providerID":"anthropic","modelID":"claude-x"}}`,
		`{"type":"text","text":null}`, `null`, `{"type":null}`, text("real \xff prompt"))
	w.messageData("ses_bad", 2, at(2), `{"role":null}`, text("no role"))
	w.messageData("ses_bad", 3, at(3), `not json at all`, text("unreadable message"))
	w.messageData("ses_bad", 4, at(4), `{"role":"assistant","summary":null}`, `{"type":"text","text":"answer","synthetic":null}`, `{broken`)
	w.messageData("ses_bad", 5, at(5), `{"role":"assistant"}`, `{"type":"text","text":42}`)
	w.session(sess{id: "ses_badmodel", dir: cwd, created: t0.Add(time.Hour)})
	w.exec(`UPDATE session SET model = '{oops' WHERE id = 'ses_badmodel'`)
	w.message("ses_badmodel", 1, "user", at(3600), text("hi"))

	s := New(Options{DataDir: dbDir})
	ctx := context.Background()
	got, err := s.Scan(ctx, 10, nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("Scan = %+v, %v", got, err)
	}
	bad := got[1]
	if bad.ID != "ses_bad" || bad.FirstPrompt != "real \uFFFD prompt" || bad.PromptCount != 1 || bad.Model != "anthropic/claude-x" {
		t.Errorf("ses_bad = %+v", bad)
	}
	if got[0].Model != "" {
		t.Errorf("malformed session.model gave %q", got[0].Model)
	}
	msgs, err := s.Conversation(ctx, "ses_bad")
	if err != nil {
		t.Fatal(err)
	}
	checkConversation(t, "ses_bad", msgs)
	if want := []string{"user: real \uFFFD prompt", "assistant: answer", "assistant: 42"}; !slices.Equal(convText(msgs), want) {
		t.Errorf("Conversation = %q, want %q", convText(msgs), want)
	}
}

// Pinned sessions (keep) are listed beyond the limit; ids that do not
// exist or are not listable are not.
func TestKeepBeyondLimit(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	for i := range 20 {
		w.chat(sess{id: fmt.Sprintf("ses_%02d", i), dir: cwd, created: t0.Add(time.Duration(i) * time.Minute)}, "p", "a")
	}
	w.session(sess{id: "ses_noprompt", dir: cwd, created: t0.Add(-time.Hour)})
	s := New(Options{DataDir: dbDir})
	got, err := s.Scan(context.Background(), 2, []string{"ses_03", "ses_00", "ses_19", "ses_nope", "ses_noprompt", "../etc"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ses_19", "ses_18", "ses_03", "ses_00"}; !slices.Equal(ids(got), want) {
		t.Errorf("Scan = %v, want %v", ids(got), want)
	}
	all, _ := s.Scan(context.Background(), -1, nil)
	if len(all) != 20 {
		t.Errorf("Scan(-1) = %d sessions, want 20", len(all))
	}
	none, _ := s.Scan(context.Background(), 0, nil)
	if len(none) != 0 {
		t.Errorf("Scan(0) = %v", ids(none))
	}
}

// Session finds a session beyond any limit; ids that cannot be OpenCode's
// are not looked up.
func TestSessionLookup(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_a", dir: cwd, created: t0}, "hello", "hi")
	s := New(Options{DataDir: dbDir})
	ctx := context.Background()
	info, err := s.Session(ctx, "ses_a")
	if err != nil || info.ID != "ses_a" || info.FirstPrompt != "hello" || info.Path != filepath.Join(dbDir, "opencode.db") {
		t.Errorf("Session = %+v, %v", info, err)
	}
	for _, id := range []string{"", "ses_b", "../x", "ses_a' OR 1=1 --", strings.Repeat("a", 200)} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", id, err)
		}
		if _, err := s.Conversation(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Conversation(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// A database without the tables (or required columns) is an error; one
// without optional columns (older OpenCode, other tools' copies) is read
// with what it has.
func TestSchemaChecks(t *testing.T) {
	ctx := context.Background()
	for name, ddl := range map[string]string{
		"no part table":       `CREATE TABLE session (id TEXT, time_updated INT); CREATE TABLE message (id TEXT, session_id TEXT, data TEXT)`,
		"no message.data":     `CREATE TABLE session (id TEXT, time_updated INT); CREATE TABLE message (id TEXT, session_id TEXT); CREATE TABLE part (id TEXT, message_id TEXT, data TEXT)`,
		"no time in session":  `CREATE TABLE session (id TEXT); CREATE TABLE message (id TEXT, session_id TEXT, data TEXT); CREATE TABLE part (id TEXT, message_id TEXT, data TEXT)`,
		"another app's table": `CREATE TABLE notes (id TEXT)`,
	} {
		dir := t.TempDir()
		db, err := sql.Open("sqlite", rwDSN(filepath.Join(dir, "opencode.db")))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(ddl); err != nil {
			t.Fatal(err)
		}
		db.Close()
		got, err := New(Options{DataDir: dir}).Scan(ctx, 10, nil)
		var se errSchema
		if !errors.As(err, &se) {
			t.Errorf("%s: Scan = %v, %v; want a schema error", name, got, err)
		}
	}

	dir := t.TempDir()
	db, err := sql.Open("sqlite", rwDSN(filepath.Join(dir, "opencode.db")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`CREATE TABLE session (id TEXT, time_created INT);
		CREATE TABLE message (id TEXT, session_id TEXT, data TEXT);
		CREATE TABLE part (id TEXT, message_id TEXT, data TEXT);
		INSERT INTO session VALUES ('ses_min', 1700000000);
		INSERT INTO message VALUES ('msg_1', 'ses_min', '{"role":"user","time":{"created":1700000001000}}');
		INSERT INTO part VALUES ('prt_1', 'msg_1', '{"type":"text","text":"minimal"}');`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	s := New(Options{DataDir: dir})
	got, err := s.Scan(ctx, 10, nil)
	if err != nil || len(got) != 1 || got[0].ID != "ses_min" || got[0].Cwd != "" || got[0].Title != "minimal" ||
		!got[0].Updated.Equal(time.Unix(1700000000, 0)) {
		t.Fatalf("Scan = %+v, %v", got, err)
	}
	msgs, err := s.Conversation(ctx, "ses_min")
	if err != nil || len(msgs) != 1 || !msgs[0].Time.Equal(time.UnixMilli(1700000001000)) {
		t.Errorf("Conversation = %+v, %v", msgs, err)
	}
}

func TestParseTime(t *testing.T) {
	ms := time.UnixMilli(1795987621562)
	cases := []struct {
		in   any
		want time.Time
	}{
		{int64(1795987621562), ms},
		{float64(1795987621562), ms},
		{"1795987621562", ms},
		{[]byte("1795987621562"), ms},
		{int64(1700000000), time.Unix(1700000000, 0)},
		{"2026-07-17T09:00:00Z", time.Date(2026, 7, 17, 9, 0, 0, 0, time.UTC)},
		{"2026-07-17T09:00:00.5+02:00", time.Date(2026, 7, 17, 7, 0, 0, 5e8, time.UTC)},
		{nil, time.Time{}},
		{int64(0), time.Time{}},
		{"yesterday", time.Time{}},
	}
	for _, c := range cases {
		if got := parseTime(c.in); !got.Equal(c.want) {
			t.Errorf("parseTime(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// A cancelled context stops a Scan with its error.
func TestCancelled(t *testing.T) {
	cwd, dbDir := t.TempDir(), t.TempDir()
	w := newDB(t, dbDir)
	w.chat(sess{id: "ses_a", dir: cwd, created: t0}, "hello", "hi")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Options{DataDir: dbDir}).Scan(ctx, 10, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan = %v, want context.Canceled", err)
	}
}
