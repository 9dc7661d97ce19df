package claude

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Helpers that write small Claude-shaped transcripts. Lines are built with
// encoding/json so the tests never fight quoting.

var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func line(fields map[string]any) string {
	b, err := json.Marshal(fields)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// user is a typed prompt (or any user turn) at t0 + minute minutes.
func user(uuid, parent, text string, minute int, extra ...any) string {
	f := map[string]any{
		"type": "user", "uuid": uuid, "parentUuid": nullable(parent), "isSidechain": false,
		"timestamp": t0.Add(time.Duration(minute) * time.Minute).Format(time.RFC3339Nano),
		"cwd":       "/home/u/api", "message": map[string]any{"role": "user", "content": text},
	}
	return line(with(f, extra))
}

// answer is an assistant text reply.
func answer(uuid, parent, text string, minute int, extra ...any) string {
	f := map[string]any{
		"type": "assistant", "uuid": uuid, "parentUuid": nullable(parent), "isSidechain": false,
		"timestamp": t0.Add(time.Duration(minute) * time.Minute).Format(time.RFC3339Nano),
		"cwd":       "/home/u/api",
		"message": map[string]any{"id": "msg_" + uuid, "role": "assistant", "model": "claude-opus-4-7",
			"content": []any{map[string]any{"type": "text", "text": text}}},
	}
	return line(with(f, extra))
}

func meta(typ, key, value string) string {
	return line(map[string]any{"type": typ, key: value, "sessionId": "s"})
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// with sets extra key/value pairs on f.
func with(f map[string]any, kv []any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		f[kv[i].(string)] = kv[i+1]
	}
	return f
}

// writeSession writes a transcript to <dir>/projects/<project>/<id>.jsonl.
func writeSession(t testing.TB, dir, project, id string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, "projects", project, id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func setMtime(t testing.TB, path string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// newTestScanner returns a Scanner over dir that lists sessions whose
// recorded working directory does not exist on this machine.
func newTestScanner(dir string) *Scanner {
	return New(Options{Dir: dir, KeepMissingCwd: true})
}

func scanAll(t testing.TB, s *Scanner) map[string]session.Info {
	t.Helper()
	infos, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]session.Info)
	for _, i := range infos {
		out[i.ID] = i
	}
	return out
}

func TestListingFilters(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		listed  bool
		prompts int
	}{
		{"prompt and answer", []string{user("u1", "", "fix the login", 0), answer("a1", "u1", "done", 1)}, true, 1},
		{"prompt without answer", []string{user("u1", "", "fix the login", 0)}, true, 1},
		{
			// Teammates and named subagents open with their agent name.
			"agent-name before the first input",
			[]string{meta("agent-name", "agentName", "alice"), user("u1", "", "do the relay tests", 0), answer("a1", "u1", "ok", 1)},
			false, 0,
		},
		{
			"agent-name before the first input, after a meta turn",
			[]string{user("m1", "", "<local-command-caveat>Caveat</local-command-caveat>", 0, "isMeta", true),
				meta("agent-name", "agentName", "alice"), user("u1", "m1", "do it", 1)},
			false, 0,
		},
		{
			// `claude --name X` (2.1.328, recorded by paddock's hosted
			// e2e) opens the file with custom-title X then agent-name X,
			// before the first prompt: the user's own session, named.
			"--name: custom-title then the same agent-name at the head",
			[]string{meta("custom-title", "customTitle", "api-work"), meta("agent-name", "agentName", "api-work"),
				user("u1", "", "hello", 0), answer("a1", "u1", "hi", 1)},
			true, 1,
		},
		{
			"custom-title and a different agent-name at the head",
			[]string{meta("custom-title", "customTitle", "api-work"), meta("agent-name", "agentName", "alice"),
				user("u1", "", "hello", 0), answer("a1", "u1", "hi", 1)},
			false, 0,
		},
		{
			// A teammate stays filtered by its brief even when named.
			"named teammate briefed by the team lead",
			[]string{meta("custom-title", "customTitle", "alice"), meta("agent-name", "agentName", "alice"),
				user("u1", "", `<teammate-message teammate_id="team-lead" summary="tests">Add relay tests.</teammate-message>`, 0)},
			false, 0,
		},
		{
			// Claude 2.1+ names top-level sessions after their first prompt.
			"kebab-case agent-name after the first prompt",
			[]string{user("u1", "", "fix the login", 0), meta("agent-name", "agentName", "fix-the-login"), answer("a1", "u1", "done", 1)},
			true, 1,
		},
		{
			"teammate briefed by the team lead",
			[]string{user("u1", "", `<teammate-message teammate_id="team-lead" summary="tests">Add relay tests.</teammate-message>`, 0),
				answer("a1", "u1", "on it", 1)},
			false, 0,
		},
		{
			// A lead receives its teammates' messages; it is still the user's session.
			"team lead receiving teammate messages",
			[]string{user("u1", "", "start a team", 0), answer("a1", "u1", "team started", 1),
				user("u2", "a1", `<teammate-message teammate_id="alice">done</teammate-message>`, 2), answer("a2", "u2", "alice is done", 3)},
			true, 1,
		},
		{
			"sidechain transcript",
			[]string{user("u1", "", "search the code", 0, "isSidechain", true), answer("a1", "u1", "found it", 1, "isSidechain", true)},
			false, 0,
		},
		{
			"metadata only",
			[]string{meta("mode", "mode", "normal"), meta("permission-mode", "permissionMode", "default"),
				meta("last-prompt", "lastPrompt", "hello"), `{"type":"file-history-snapshot","messageId":"x","snapshot":{}}`},
			false, 0,
		},
		{
			"only a slash command",
			[]string{user("m1", "", "Caveat: The messages below were generated by the user while running local commands.", 0, "isMeta", true),
				user("c1", "m1", "<command-name>/model</command-name>\n<command-message>model</command-message>\n<command-args></command-args>", 0),
				user("o1", "c1", "<local-command-stdout>Set model to Opus</local-command-stdout>", 0)},
			false, 0,
		},
		{
			"non-human origins are not prompts",
			[]string{user("u1", "", "Monitor: build failed", 0, "origin", map[string]any{"kind": "task-notification"}),
				user("u2", "u1", "why did the build fail?", 1, "origin", map[string]any{"kind": "human"}),
				user("u3", "u2", "and now?", 2, "origin", nil),
				answer("a1", "u3", "a flaky test", 3)},
			true, 2,
		},
		{
			"compaction summaries, meta turns and interruptions are not prompts",
			[]string{user("u1", "", "refactor the parser", 0),
				user("c1", "u1", "This session is being continued from a previous conversation that ran out of context.", 1, "isCompactSummary", true),
				user("m1", "c1", "expanded skill text", 2, "isMeta", true),
				user("i1", "m1", "[Request interrupted by user]", 3),
				user("b1", "i1", "<bash-input>ls</bash-input>", 4),
				answer("a1", "b1", "refactored", 5)},
			true, 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSession(t, dir, "-home-u-api", "s1", tt.lines...)
			got, listed := scanAll(t, newTestScanner(dir))["s1"]
			if listed != tt.listed {
				t.Fatalf("listed = %v, want %v", listed, tt.listed)
			}
			if listed && got.PromptCount != tt.prompts {
				t.Errorf("prompts = %d, want %d", got.PromptCount, tt.prompts)
			}
		})
	}
}

func TestTitles(t *testing.T) {
	long := strings.Repeat("word ", 60)
	tests := []struct {
		name       string
		lines      []string
		title, src string
	}{
		{"first prompt", []string{user("u1", "", "fix the login", 0), user("u2", "u1", "then the logout", 1)}, "fix the login", session.TitlePrompt},
		{"prompt made one line", []string{user("u1", "", "  fix\n\nthe\tlogin  ", 0)}, "fix the login", session.TitlePrompt},
		{"long prompt capped", []string{user("u1", "", long, 0)}, strings.Repeat("word ", 23) + "word…", session.TitlePrompt},
		{"summary of this transcript", []string{user("u1", "", "fix the login", 0), line(map[string]any{"type": "summary", "summary": "Login fix", "leafUuid": "u1"})}, "Login fix", session.TitleSummary},
		{"summary of another transcript", []string{line(map[string]any{"type": "summary", "summary": "Other work", "leafUuid": "elsewhere"}), user("u1", "", "fix the login", 0)}, "fix the login", session.TitlePrompt},
		{"AI title over summary", []string{user("u1", "", "fix the login", 0), meta("ai-title", "aiTitle", "Fix login redirect"), line(map[string]any{"type": "summary", "summary": "Login fix", "leafUuid": "u1"})}, "Fix login redirect", session.TitleAI},
		{"latest readable AI title", []string{user("u1", "", "x", 0), meta("ai-title", "aiTitle", "First idea"), meta("ai-title", "aiTitle", "Better idea")}, "Better idea", session.TitleAI},
		{"later kebab AI title never overrides a readable one", []string{user("u1", "", "x", 0), meta("ai-title", "aiTitle", "Fix login redirect"), meta("ai-title", "aiTitle", "fix-login-redirect")}, "Fix login redirect", session.TitleAI},
		{"kebab AI title below the prompt", []string{user("u1", "", "please fix the login", 0), meta("ai-title", "aiTitle", "fix-login")}, "please fix the login", session.TitlePrompt},
		{"kebab AI title when nothing else", []string{meta("ai-title", "aiTitle", "fix-login"), answer("a1", "", "done", 0)}, "fix-login", session.TitleAI},
		{"custom title over all", []string{user("u1", "", "x", 0), meta("custom-title", "customTitle", "Old name"), meta("ai-title", "aiTitle", "AI name"), meta("custom-title", "customTitle", "auth-refactor")}, "auth-refactor", session.TitleCustom},
		{"null and wrong-typed titles ignored", []string{user("u1", "", "fix the login", 0), `{"type":"custom-title","customTitle":null}`, `{"type":"ai-title","aiTitle":42}`, `{"type":"summary","summary":{"x":1},"leafUuid":"u1"}`}, "fix the login", session.TitlePrompt},
		{"untitled", []string{answer("a1", "", "hello", 0)}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeSession(t, dir, "p", "s1", tt.lines...)
			got, ok := scanAll(t, newTestScanner(dir))["s1"]
			if !ok {
				t.Fatal("not listed")
			}
			if got.Title != tt.title || got.TitleSource != tt.src {
				t.Errorf("title %q (%s), want %q (%s)", got.Title, got.TitleSource, tt.title, tt.src)
			}
		})
	}
}

// fixedLine pads a transcript line to exactly n bytes with its newline.
func fixedLine(t testing.TB, l string, n int) string {
	t.Helper()
	pad := n - len(l) - len(`,"pad":""`) - 1
	if pad < 0 {
		t.Fatalf("line longer than %d bytes", n)
	}
	return strings.TrimSuffix(l, "}") + `,"pad":"` + strings.Repeat("x", pad) + `"}`
}

// A transcript of 700 lines of 1 KiB: the head is lines 0-299, the tail the
// last 64 KiB, lines 636-699 when the tail starts on a line boundary.
func TestHeadAndTail(t *testing.T) {
	for _, tt := range []struct {
		name       string
		extraBytes int // grows the last line so the tail starts mid-line 636
		want       []string
	}{
		{"tail on a line boundary", 0, []string{"first", "in head", "at tail start", "in tail"}},
		{"tail mid-line", 10, []string{"first", "in head", "in tail"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const n = 1024
			prompts := map[int]string{0: "first", 150: "in head", 400: "in the middle", 636: "at tail start", 690: "in tail"}
			var lines []string
			for i := range 700 {
				id := fmt.Sprintf("r%03d", i)
				var l string
				if p, ok := prompts[i]; ok {
					l = user(id, "", p, i)
				} else if i == 698 {
					l = meta("custom-title", "customTitle", "Renamed")
				} else {
					l = answer(id, "", "working", i)
				}
				size := n
				if i == 699 {
					size += tt.extraBytes
				}
				lines = append(lines, fixedLine(t, l, size))
			}
			dir := t.TempDir()
			path := writeSession(t, dir, "p", "s1", lines...)

			st, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := readSummary(path, st.Size())
			if err != nil {
				t.Fatal(err)
			}
			if sum.badLines != 0 {
				t.Errorf("%d bad lines: the tail's partial first line was parsed", sum.badLines)
			}
			if sum.prompts != len(tt.want) || sum.firstPrompt != tt.want[0] || sum.lastPrompt != tt.want[len(tt.want)-1] {
				t.Errorf("prompts %d (%q … %q), want %q", sum.prompts, sum.firstPrompt, sum.lastPrompt, tt.want)
			}
			if sum.title != "Renamed" || sum.titleSource != session.TitleCustom {
				t.Errorf("title %q (%s): the tail's custom title was missed", sum.title, sum.titleSource)
			}
			if want := t0.Add(699 * time.Minute); !sum.lastEvent.Equal(want) {
				t.Errorf("last event %v, want %v", sum.lastEvent, want)
			}
		})
	}
}

func TestEffectiveTime(t *testing.T) {
	last := t0.Add(5 * time.Minute)
	tests := []struct {
		name   string
		mtime  time.Time
		want   time.Time
		source string
	}{
		{"fresh file", last.Add(30 * time.Minute), last.Add(30 * time.Minute), session.TimeFromFile},
		{"touched long after its last event", last.Add(3 * time.Hour), last, session.TimeFromEvent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeSession(t, dir, "p", "s1", user("u1", "", "hi", 0), answer("a1", "u1", "hello", 5),
				// Bookkeeping written later is no event.
				line(map[string]any{"type": "system", "uuid": "x", "parentUuid": "a1", "timestamp": last.Add(2 * time.Hour).Format(time.RFC3339)}))
			setMtime(t, path, tt.mtime)
			got := scanAll(t, newTestScanner(dir))["s1"]
			if !got.Updated.Equal(tt.want) || got.TimeSource != tt.source {
				t.Errorf("updated %v (%s), want %v (%s)", got.Updated, got.TimeSource, tt.want, tt.source)
			}
			if !got.Created.Equal(t0) {
				t.Errorf("created %v, want %v", got.Created, t0)
			}
		})
	}
}

func TestScanLimitAndKeep(t *testing.T) {
	dir := t.TempDir()
	// Within the hour after the prompts, so mtimes are the effective times.
	now := t0.Add(30 * time.Minute)
	for i := 1; i <= 5; i++ {
		path := writeSession(t, dir, fmt.Sprintf("p%d", i%2), fmt.Sprintf("s%d", i), user("u1", "", fmt.Sprintf("task %d", i), 0))
		setMtime(t, path, now.Add(time.Duration(i-10)*time.Minute))
	}
	// The newest files are not sessions and must not use up the limit.
	setMtime(t, writeSession(t, dir, "p0", "meta", meta("mode", "mode", "normal")), now)
	setMtime(t, writeSession(t, dir, "p1", "side", user("u1", "", "x", 0, "isSidechain", true)), now)
	// An older copy of s4 in another project is the same session.
	setMtime(t, writeSession(t, dir, "p2", "s4", user("u1", "", "stale copy", 0)), now.Add(-time.Hour))

	s := newTestScanner(dir)
	ctx := context.Background()
	tests := []struct {
		name  string
		limit int
		keep  []string
		want  []string
	}{
		{"limit", 2, nil, []string{"s5", "s4"}},
		{"keep beyond the limit", 2, []string{"s1", "s5", "nope", "../s2", "meta"}, []string{"s5", "s4", "s1"}},
		{"keep only", 0, []string{"s2"}, []string{"s2"}},
		{"all", -1, nil, []string{"s5", "s4", "s3", "s2", "s1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			infos, err := s.Scan(ctx, tt.limit, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, i := range infos {
				ids = append(ids, i.ID)
				if i.ID == "s4" && i.Title != "task 4" {
					t.Errorf("s4 read from the stale copy: %q", i.Title)
				}
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("ids %q, want %q", ids, tt.want)
			}
		})
	}
}

// Rescans re-read only transcripts whose size, mtime or inode changed, and
// the cache holds only what the last scan used.
func TestScanCache(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	paths := make(map[string]string)
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("s%d", i)
		paths[id] = writeSession(t, dir, "p", id, user("u1", "", "task "+id, 0))
		setMtime(t, paths[id], now.Add(time.Duration(i)*time.Minute))
	}
	s := newTestScanner(dir)
	cached := func() map[string]*summary {
		out := make(map[string]*summary)
		for p, sum := range s.cache.All() {
			out[filepath.Base(p)] = sum
		}
		return out
	}
	scanAll(t, s)
	first := cached()
	if len(first) != 3 {
		t.Fatalf("cache holds %d entries, want 3", len(first))
	}

	scanAll(t, s)
	for name, sum := range cached() {
		if first[name] != sum {
			t.Errorf("%s re-read although unchanged", name)
		}
	}

	f, err := os.OpenFile(paths["s2"], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, user("u2", "u1", "and more", 1))
	f.Close()
	got := scanAll(t, s)
	after := cached()
	if after["s2.jsonl"] == first["s2.jsonl"] || got["s2"].PromptCount != 2 {
		t.Errorf("s2 not re-read after an append (prompts %d)", got["s2"].PromptCount)
	}
	if after["s1.jsonl"] != first["s1.jsonl"] || after["s3.jsonl"] != first["s3.jsonl"] {
		t.Error("unchanged files re-read")
	}

	// An editor or sync tool that replaces the file by rename can keep its
	// size and mtime: only the inode tells the new version apart.
	st, err := os.Stat(paths["s3"])
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(paths["s3"]), "s3.tmp")
	writeFile(t, tmp, []byte(user("u1", "", "task x3", 0)+"\n"))
	setMtime(t, tmp, st.ModTime())
	if err := os.Rename(tmp, paths["s3"]); err != nil {
		t.Fatal(err)
	}
	if rst, err := os.Stat(paths["s3"]); err != nil || rst.Size() != st.Size() || !rst.ModTime().Equal(st.ModTime()) {
		t.Fatalf("replacement differs in size or mtime (%v): the test proves nothing", err)
	}
	got = scanAll(t, s)
	if history.SigOf(st).Ino != 0 && got["s3"].FirstPrompt != "task x3" {
		t.Errorf("s3 replaced by rename lists the old summary: first prompt %q", got["s3"].FirstPrompt)
	}

	if err := os.Remove(paths["s1"]); err != nil {
		t.Fatal(err)
	}
	scanAll(t, s)
	if _, ok := cached()["s1.jsonl"]; ok {
		t.Error("cache kept a deleted file")
	}
	if infos, _ := s.Scan(context.Background(), 1, nil); len(infos) != 1 || len(cached()) != 1 {
		t.Errorf("after a scan of 1, cache holds %d entries", len(cached()))
	}
}

// Claude never lists what sits below a project's top level: Task
// subagents live in <id>/subagents/, older ones in agent-*.jsonl.
func TestNestedAndAgentFilesNotListed(t *testing.T) {
	dir := t.TempDir()
	valid := []string{user("u1", "", "a real prompt", 0), answer("a1", "u1", "a real answer", 1)}
	writeSession(t, dir, "p", "main", valid...)
	writeSession(t, dir, "p", "main/subagents/0b0e4fd2-5f4b-4f5e-8f1c-000000000001", valid...)
	writeSession(t, dir, "p", "main/subagents/agent-a1b2c3", valid...)
	writeSession(t, dir, "p", "agent-3ea04571", valid...)
	if err := os.MkdirAll(filepath.Join(dir, "projects", "p", "dir.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := scanAll(t, newTestScanner(dir))
	if len(got) != 1 || got["main"].ID != "main" {
		t.Errorf("listed %v, want only main", slices.Collect(maps.Keys(got)))
	}
}

func TestShortProject(t *testing.T) {
	tests := []struct{ cwd, home, want string }{
		{"/home/u", "/home/u", "~"},
		{"/home/u/", "/home/u", "~"},
		{"/home/u/api", "/home/u", "api"},
		{"/home/u/api/", "/home/u", "api"},
		{"/", "/home/u", "/"},
		{"", "/home/u", ""},
		{`e:\Workspace\src\claude-code-log`, "/home/u", "claude-code-log"},
		{"relative", "", "relative"},
	}
	for _, tt := range tests {
		if got := session.ShortProject(tt.cwd, tt.home); got != tt.want {
			t.Errorf("session.ShortProject(%q, %q) = %q, want %q", tt.cwd, tt.home, got, tt.want)
		}
	}

	dir := t.TempDir()
	writeSession(t, dir, "p", "s1", user("u1", "", "hi", 0, "cwd", "/home/u"))
	s := newTestScanner(dir)
	s.home = "/home/u"
	if got := scanAll(t, s)["s1"]; got.Project != "~" || got.Cwd != "/home/u" {
		t.Errorf("project %q, cwd %q", got.Project, got.Cwd)
	}
}

func TestConversationJoinsSplitMessages(t *testing.T) {
	dir := t.TempDir()
	split := func(uuid, parent, msgID string, parts ...any) string {
		return line(map[string]any{"type": "assistant", "uuid": uuid, "parentUuid": parent,
			"timestamp": t0.Format(time.RFC3339),
			"message":   map[string]any{"id": msgID, "role": "assistant", "content": parts}})
	}
	text := func(s string) any { return map[string]any{"type": "text", "text": s} }
	writeSession(t, dir, "p", "s1",
		user("u1", "", "explain", 0),
		split("a1", "u1", "m1", text("\n\n")),
		split("a2", "a1", "m1", map[string]any{"type": "thinking", "thinking": "hmm"}),
		split("a3", "a2", "m1", text("Part one.")),
		split("a4", "a3", "m1", map[string]any{"type": "tool_use", "id": "t1", "name": "Bash", "input": map[string]any{}}),
		line(map[string]any{"type": "user", "uuid": "r1", "parentUuid": "a4", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}}}}),
		split("a5", "r1", "m1", text("Part two.")),
		split("a6", "a5", "m2", text("A new message.")),
	)
	msgs, err := New(Options{Dir: dir}).Conversation(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []msg
	for _, m := range msgs {
		got = append(got, msg{m.Role, m.Text})
	}
	want := []msg{{"user", "explain"}, {"assistant", "Part one.\n\nPart two."}, {"assistant", "A new message."}}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// After /compact the physical chain restarts at a compact_boundary with
// parentUuid null; logicalParentUuid carries the branch across it.
func TestConversationAcrossCompaction(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "p", "s1",
		user("u1", "", "old question", 0),
		answer("a1", "u1", "old answer", 1),
		user("x1", "a1", "abandoned question", 2),
		user("u2", "a1", "edited question", 3),
		line(map[string]any{"type": "system", "subtype": "compact_boundary", "uuid": "cb", "parentUuid": nil, "logicalParentUuid": "u2"}),
		user("cs", "cb", "This session is being continued from a previous conversation.", 4, "isCompactSummary", true),
		user("u3", "cs", "new question", 5),
		answer("a3", "u3", "new answer", 6),
	)
	msgs, err := New(Options{Dir: dir}).Conversation(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Text)
	}
	want := []string{"old question", "old answer", "edited question", "new question", "new answer"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
