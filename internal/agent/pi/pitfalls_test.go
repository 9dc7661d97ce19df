package pi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

// The pitfalls known for Pi, one test each, on synthetic files
// in Pi 0.73.1's format (helpers_test.go).

const proj = "/home/u/proj"

// Regression (test_isolation_dir_sessions_do_not_starve_heap_history): // legacy isolation folders (corral-<ident>/, pickup-<ident>/) hold the
// newest files; one limit over the whole tree would push every per-cwd
// session out. Each side gets its own quota.
func TestIsolationFoldersDoNotStarveHistory(t *testing.T) {
	agent := t.TempDir()
	var heap, iso []string
	for i := range 5 { // older: the per-cwd folder
		id := fmt.Sprintf("heap-%d", i)
		heap = append(heap, id)
		writeChat(t, agent, id, proj, i*10, "task "+id)
	}
	for i := range 6 { // newer: isolation folders, two kinds, one nested
		id := fmt.Sprintf("iso-%d", i)
		iso = append(iso, id)
		folder := []string{"corral-ab12cd34", "pickup-9f8e7d6c", "--home-u-proj--/corral-77aa88bb"}[i%3]
		p := filepath.Join(agent, "sessions", folder, ts(1000+i*10)+"_"+id+".jsonl")
		writeFile(t, p, chat(id, proj, 1000+i*10, "task "+id))
		setMtime(t, p, t0.Add(time.Duration(1001+i*10)*time.Minute))
	}
	s := newTestScanner(agent)
	got, err := s.Scan(context.Background(), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"iso-5", "iso-4", "iso-3", "heap-4", "heap-3", "heap-2"}
	if !slices.Equal(ids(got), want) {
		t.Errorf("Scan(3) = %v, want %v (3 per side, newest first)", ids(got), want)
	}
	// No isolation folders: one quota, nothing extra.
	agent2 := t.TempDir()
	for i := range 5 {
		writeChat(t, agent2, fmt.Sprintf("h%d", i), proj, i*10, "x")
	}
	got, _ = newTestScanner(agent2).Scan(context.Background(), 3, nil)
	if len(got) != 3 {
		t.Errorf("Scan(3) without isolation folders = %v", ids(got))
	}
}

// Regression (test_keep_ids_survive_scan_limit): pinned ids come back
// however old, on either side, and do not use up a quota. keep matches
// header ids, also when the file name does not carry the id.
func TestKeepIDsSurviveLimit(t *testing.T) {
	agent := t.TempDir()
	for i := range 5 {
		writeChat(t, agent, fmt.Sprintf("heap-%d", i), proj, i*10, "x")
	}
	// The oldest session of all, in a file named after a placeholder.
	old := filepath.Join(agent, "sessions", "--home-u-proj--", "2026-01-01T00-00-00-000Z_abcd1234.jsonl")
	writeFile(t, old, chat("0199aaaa-0000-7000-8000-000000000001", proj, -500, "pinned long ago"))
	setMtime(t, old, t0.Add(-499*time.Minute))
	isoOld := filepath.Join(agent, "sessions", "corral-ab12cd34", "x_iso-old.jsonl")
	writeFile(t, isoOld, chat("iso-old", proj, -400, "pinned isolated"))
	setMtime(t, isoOld, t0.Add(-399*time.Minute))
	isoNew := filepath.Join(agent, "sessions", "corral-ab12cd34", "x_iso-new.jsonl")
	writeFile(t, isoNew, chat("iso-new", proj, 900, "fresh isolated"))
	setMtime(t, isoNew, t0.Add(901*time.Minute))

	s := newTestScanner(agent)
	keep := []string{"0199aaaa-0000-7000-8000-000000000001", "iso-old", "no-such-session", "heap-4", "../etc"}
	got, err := s.Scan(context.Background(), 2, keep)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"iso-new", "heap-4", "heap-3", "iso-old", "0199aaaa-0000-7000-8000-000000000001"}
	if !slices.Equal(ids(got), want) {
		t.Errorf("Scan(2, keep) = %v, want %v", ids(got), want)
	}
	// limit 0: only what is kept.
	got, _ = s.Scan(context.Background(), 0, []string{"iso-old"})
	if !slices.Equal(ids(got), []string{"iso-old"}) {
		t.Errorf("Scan(0, keep) = %v", ids(got))
	}
}

// Regression (test_v1_session_without_parent_ids_still_lists_and_
// previews): a v1 file has no version, no id and no parentId; Pi only
// migrates it when it opens it, and paddock never writes. It must list
// and preview in file order, not come out empty.
func TestV1SessionWithoutParentIDs(t *testing.T) {
	agent := t.TempDir()
	lines := []map[string]any{
		{"type": "session", "id": "v1-session", "timestamp": ts(0), "cwd": proj, "provider": "anthropic", "modelId": "claude-sonnet-4-5", "thinkingLevel": "off"},
		{"type": "message", "timestamp": ts(1), "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "first v1 prompt"}}, "timestamp": 1}},
		{"type": "message", "timestamp": ts(2), "message": map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "thinking", "thinking": "hidden"}, map[string]any{"type": "text", "text": "v1 answer"},
			map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "ls"}}}}},
		{"type": "message", "timestamp": ts(3), "message": map[string]any{"role": "toolResult", "toolCallId": "c1", "content": []any{map[string]any{"type": "text", "text": "file.txt"}}}},
		{"type": "message", "timestamp": ts(4), "message": map[string]any{"role": "bashExecution", "command": "pwd", "output": "/home/u/proj"}},
		{"type": "compaction", "timestamp": ts(5), "summary": "what happened", "firstKeptEntryIndex": 1, "tokensBefore": 100},
		{"type": "message", "timestamp": ts(6), "message": map[string]any{"role": "user", "content": "second v1 prompt (string content)"}},
		{"type": "message", "timestamp": ts(7), "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "v1 second answer"}}}},
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(jsonLine(l))
	}
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "v1.jsonl"), b.String())

	s := newTestScanner(agent)
	listed := scanAll(t, s)
	info, ok := listed["v1-session"]
	if !ok {
		t.Fatalf("v1 session not listed: %v", listed)
	}
	if info.FirstPrompt != "first v1 prompt" || info.LastPrompt != "second v1 prompt (string content)" ||
		info.PromptCount != 2 || info.Model != "claude-sonnet-4-5" {
		t.Errorf("info %+v", info)
	}
	msgs, err := s.Conversation(context.Background(), "v1-session")
	if err != nil {
		t.Fatal(err)
	}
	checkConversation(t, msgs)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+": "+m.Text)
	}
	want := []string{"user: first v1 prompt", "assistant: v1 answer",
		"user: second v1 prompt (string content)", "assistant: v1 second answer"}
	if !slices.Equal(got, want) {
		t.Errorf("conversation %q, want %q", got, want)
	}
}

// A v2/v3 file is a tree; the conversation is the current
// leaf's parentId chain, never an abandoned branch, even one written later
// in the file than the branch point.
func TestBranchShowsOnlyTheCurrentLeaf(t *testing.T) {
	agent := t.TempDir()
	file := headerLine("branched", proj, 0) +
		jsonLine(map[string]any{"type": "model_change", "id": "m0", "parentId": nil, "timestamp": ts(0), "provider": "mock", "modelId": "mock-model"}) +
		msgLine("u1", "m0", "user", "shared start", 1) +
		msgLine("a1", "u1", "assistant", "shared answer", 2) +
		msgLine("u2", "a1", "user", "abandoned prompt", 3) +
		msgLine("a2", "u2", "assistant", "abandoned answer", 4) +
		// /tree back to a1: a summary of the left branch, then the new one.
		jsonLine(map[string]any{"type": "branch_summary", "id": "b1", "parentId": "a1", "timestamp": ts(5), "fromId": "a2", "summary": "left branch"}) +
		msgLine("u3", "b1", "user", "current prompt", 6) +
		msgLine("a3", "u3", "assistant", "current answer", 7) +
		// Bookkeeping after the last message is the leaf; its chain still
		// runs through the current branch.
		jsonLine(map[string]any{"type": "label", "id": "l1", "parentId": "a3", "timestamp": ts(8), "targetId": "u3", "label": "bookmark"})
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "x_branched.jsonl"), file)

	s := newTestScanner(agent)
	msgs, err := s.Conversation(context.Background(), "branched")
	if err != nil {
		t.Fatal(err)
	}
	got := userTexts(msgs)
	if want := []string{"shared start", "current prompt"}; !slices.Equal(got, want) {
		t.Errorf("user messages %q, want %q", got, want)
	}
	if len(msgs) != 4 || msgs[3].Text != "current answer" || msgs[1].Text != "shared answer" {
		t.Errorf("conversation %+v", msgs)
	}

	// A torn line in the middle breaks the chain: the walk carries on at
	// the entry before the orphan instead of dropping the start.
	broken := headerLine("broken", proj, 0) +
		msgLine("u1", "", "user", "before the tear", 1) +
		msgLine("a1", "u1", "assistant", "answer before", 2) +
		`{"type":"message","id":"u2","parentId":"a1","timest` + "\n" +
		msgLine("a2", "u2", "assistant", "answer after the tear", 4) +
		msgLine("u3", "a2", "user", "after the tear", 5)
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "x_broken.jsonl"), broken)
	msgs, err = s.Conversation(context.Background(), "broken")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Text)
	}
	if want := []string{"before the tear", "answer before", "answer after the tear", "after the tear"}; !slices.Equal(texts, want) {
		t.Errorf("conversation across a torn line %q, want %q", texts, want)
	}

	// A parent cycle (hand-edited file) ends the walk instead of looping.
	cycle := headerLine("cycle", proj, 0) +
		msgLine("u1", "a1", "user", "in a loop", 1) +
		msgLine("a1", "u1", "assistant", "loop answer", 2)
	writeFile(t, filepath.Join(agent, "sessions", "--home-u-proj--", "x_cycle.jsonl"), cycle)
	if msgs, err := s.Conversation(context.Background(), "cycle"); err != nil || len(msgs) != 2 {
		t.Errorf("cycle: %+v, %v", msgs, err)
	}
}

// The identity is the header id, not the file name (and
// not an 8-character placeholder ident that happens to prefix it). One id
// in two files is one session: the newest file.
func TestIdentityIsTheHeaderID(t *testing.T) {
	agent := t.TempDir()
	id := "01a22934-ef19-72f8-b96e-4320731443a9"
	placeholder := filepath.Join(agent, "sessions", "--home-u-proj--", "2026-11-20T09-00-00-000Z_01a22934.jsonl")
	writeFile(t, placeholder, chat(id, proj, 0, "named by placeholder"))
	setMtime(t, placeholder, t0.Add(time.Minute))
	// The same session copied out of an isolation folder, older.
	copied := filepath.Join(agent, "sessions", "corral-01a22934", "2026-11-20T09-00-00-000Z_"+id+".jsonl")
	writeFile(t, copied, chat(id, proj, 0, "old copy"))
	setMtime(t, copied, t0)

	s := newTestScanner(agent)
	got, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != id || got[0].Path != placeholder || got[0].FirstPrompt != "named by placeholder" {
		t.Fatalf("Scan = %+v, want one session %s from %s", got, id, placeholder)
	}
	ctx := context.Background()
	for _, wrong := range []string{"01a22934", "01a22934-ef19", id + "x"} {
		if _, err := s.Session(ctx, wrong); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", wrong, err)
		}
		if _, err := s.Conversation(ctx, wrong); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Conversation(%q) = %v, want ErrNotFound", wrong, err)
		}
	}
	if info, err := s.Session(ctx, id); err != nil || info.Path != placeholder {
		t.Errorf("Session(%s) = %+v, %v", id, info, err)
	}
	// The accessors the hosted Resume recipe (pi --session FILE) needs.
	if f, err := s.FileOf(ctx, id); err != nil || f != placeholder {
		t.Errorf("FileOf = %q, %v", f, err)
	}
	if got, err := IDOf(copied); err != nil || got != id {
		t.Errorf("IDOf(%s) = %q, %v", copied, got, err)
	}
	if _, err := IDOf(filepath.Join(agent, "missing.jsonl")); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("IDOf(missing) = %v", err)
	}
	if _, err := s.FileOf(ctx, "nope"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("FileOf(nope) = %v", err)
	}
}

// Only files that start with a session header are sessions.
// Anything else under sessions/ (a print-mode JSON dump, an empty file, a
// header without a usable id) is never listed and never found.
func TestFirstLineMustBeTheHeader(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "sessions", "--home-u-proj--")
	body := msgLine("u1", "", "user", "a prompt", 1) + msgLine("a1", "u1", "assistant", "an answer", 2)
	files := map[string]string{
		"no-header.jsonl":    body,
		"json-mode.jsonl":    `{"type":"agent_start"}` + "\n" + body,
		"header-later.jsonl": "\n" + headerLine("later", proj, 0) + body,
		"empty.jsonl":        "",
		"null-id.jsonl":      `{"type":"session","version":3,"id":null,"cwd":"/home/u/proj"}` + "\n" + body,
		"number-id.jsonl":    `{"type":"session","version":3,"id":42,"cwd":"/home/u/proj"}` + "\n" + body,
		"slash-id.jsonl":     headerLine("../../etc", proj, 0) + body,
		"torn-header.jsonl":  `{"type":"session","version":3,"id":"torn"`,
		"only-header.jsonl":  headerLine("only-header", proj, 0),
		"not-json.txt":       headerLine("wrong-suffix", proj, 0) + body,
		"good.jsonl":         headerLine("good", proj, 0) + body,
	}
	for name, data := range files {
		writeFile(t, filepath.Join(dir, name), data)
	}
	s := newTestScanner(agent)
	listed := scanAll(t, s)
	if len(listed) != 1 || listed["good"].ID != "good" {
		t.Errorf("listed %v, want only good", listed)
	}
	for _, id := range []string{"later", "torn", "only-header", "wrong-suffix", "../../etc"} {
		if _, err := s.Session(context.Background(), id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// A present key may hold null (or the wrong type). Such
// fields read as absent: nothing crashes and nothing shows "None" or
// "null".
func TestNullFields(t *testing.T) {
	agent := t.TempDir()
	file := `{"type":"session","version":3,"id":"nulls","timestamp":null,"cwd":null,"parentSession":null}` + "\n" +
		`{"type":null,"id":"n0","parentId":null,"timestamp":null}` + "\n" +
		`{"type":"message","id":"n1","parentId":"n0","timestamp":"` + ts(1) + `","message":null}` + "\n" +
		`{"type":"message","id":"n2","parentId":"n1","timestamp":"` + ts(2) + `","message":{"role":null,"content":"x"}}` + "\n" +
		`{"type":"message","id":"n3","parentId":"n2","timestamp":"` + ts(3) + `","message":{"role":"user","content":null}}` + "\n" +
		`{"type":"message","id":"n4","parentId":"n3","timestamp":"` + ts(4) + `","message":{"role":"user","content":[null,{"type":"text","text":null},{"type":null},{"type":"text","text":"real prompt"}],"timestamp":null}}` + "\n" +
		`{"type":"message","id":"n5","parentId":"n4","timestamp":"` + ts(5) + `","message":{"role":"assistant","content":[{"type":"text","text":"real answer"}],"model":null,"usage":null,"stopReason":null}}` + "\n" +
		`{"type":"session_info","id":"n6","parentId":"n5","timestamp":null,"name":null}` + "\n" +
		`{"type":"model_change","id":"n7","parentId":"n6","timestamp":12,"provider":null,"modelId":null}` + "\n" +
		`{"type":"message","id":"n8","parentId":"n7","timestamp":"not a time","message":{"role":"assistant","content":"string answer","timestamp":"x"}}` + "\n"
	writeFile(t, filepath.Join(agent, "sessions", "x", "nulls.jsonl"), file)
	s := newTestScanner(agent)
	info, ok := scanAll(t, s)["nulls"]
	if !ok {
		t.Fatal("not listed")
	}
	if info.Cwd != "" || info.Project != "" || info.Title != "real prompt" || info.Model != "" || info.PromptCount != 1 {
		t.Errorf("info %+v", info)
	}
	msgs, err := s.Conversation(context.Background(), "nulls")
	if err != nil {
		t.Fatal(err)
	}
	checkConversation(t, msgs)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Role+": "+m.Text)
	}
	if want := []string{"user: real prompt", "assistant: real answer", "assistant: string answer"}; !slices.Equal(got, want) {
		t.Errorf("conversation %q, want %q", got, want)
	}
}

// The title is the last session_info name, wherever it is
// in the file (here far before the tail that listing parses whole), else
// the first user message. An empty name does not clear a name (Pi's
// getSessionName skips it).
func TestTitleFromLastSessionInfo(t *testing.T) {
	agent := t.TempDir()
	var b strings.Builder
	b.WriteString(headerLine("named", proj, 0))
	b.WriteString(msgLine("u0", "", "user", "the first prompt", 1))
	b.WriteString(msgLine("a0", "u0", "assistant", "ok", 2))
	for range headLines { // the names come after the head that is parsed whole
		b.WriteString(jsonLine(map[string]any{"type": "custom", "id": "f", "parentId": "a0", "timestamp": ts(2), "customType": "x"}))
	}
	b.WriteString(msgLine("u1", "a0", "user", "a middle prompt", 2))
	b.WriteString(nameLine("s1", "u1", "first name", 3))
	b.WriteString(nameLine("s2", "s1", "  the real name  ", 4))
	b.WriteString(nameLine("s3", "s2", "", 5))
	parent := "s3"
	big := strings.Repeat("tool output ", 2000)
	for i := range 20 { // ~480 KB after the names: they are mid-file
		id := fmt.Sprintf("t%d", i)
		b.WriteString(jsonLine(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": ts(10 + i),
			"message": map[string]any{"role": "toolResult", "toolCallId": "c", "content": []any{map[string]any{"type": "text", "text": big}}}}))
		parent = id
	}
	b.WriteString(msgLine("u9", parent, "user", "a later prompt", 40))
	writeFile(t, filepath.Join(agent, "sessions", "x", "named.jsonl"), b.String())

	writeFile(t, filepath.Join(agent, "sessions", "x", "unnamed.jsonl"),
		chat("unnamed", proj, 0, "  multi\n line   first prompt ", "second"))

	listed := scanAll(t, newTestScanner(agent))
	if got := listed["named"]; got.Title != "the real name" || got.TitleSource != session.TitleCustom ||
		got.FirstPrompt != "the first prompt" || got.LastPrompt != "a later prompt" || got.PromptCount != 3 {
		t.Errorf("named: %+v", got)
	}
	if got := listed["unnamed"]; got.Title != "multi line first prompt" || got.TitleSource != session.TitlePrompt {
		t.Errorf("unnamed: title %q (%s)", got.Title, got.TitleSource)
	}
}

// Sessions in an ephemeral oc-manager-* directory are never
// listed, nor are sessions whose cwd is gone (they cannot be resumed);
// the existence check runs once per cwd per scan.
func TestEphemeralAndMissingCwd(t *testing.T) {
	agent := t.TempDir()
	live := t.TempDir()
	for i := range 5 {
		writeChat(t, agent, fmt.Sprintf("live-%d", i), live, i, "x")
	}
	writeChat(t, agent, "gone", "/no/such/dir/anywhere", 10, "x")
	writeChat(t, agent, "ephemeral", "/tmp/oc-manager-codex/job", 11, "x")
	if err := os.MkdirAll(filepath.Join(live, "oc-manager-pi"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeChat(t, agent, "ephemeral-existing", filepath.Join(live, "oc-manager-pi"), 12, "x")

	s := New(Options{Dir: agent})
	checks := map[string]int{}
	s.dirExists = func(p string) bool { checks[p]++; return isDir(p) }
	got, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"live-4", "live-3", "live-2", "live-1", "live-0"}; !slices.Equal(ids(got), want) {
		t.Errorf("Scan = %v, want %v", ids(got), want)
	}
	if checks[live] != 1 || checks["/no/such/dir/anywhere"] != 1 {
		t.Errorf("cwd checks %v, want one per cwd", checks)
	}
	// Looked up by id, a session whose cwd is gone is still there to read.
	if _, err := s.Session(context.Background(), "gone"); err != nil {
		t.Errorf("Session(gone) = %v", err)
	}
	if _, err := s.Session(context.Background(), "ephemeral"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Session(ephemeral) = %v", err)
	}
	// The project directory is deleted: no session file changed, but the
	// next scan must drop its sessions.
	if err := os.RemoveAll(live); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Scan(context.Background(), -1, nil); len(got) != 0 {
		t.Errorf("after the cwd was removed: %v", ids(got))
	}
}

// A file touched long after its last real event (a sync
// tool, a copy, Pi migrating an old file) is dated by the event.
func TestEffectiveTime(t *testing.T) {
	agent := t.TempDir()
	fresh := writeChat(t, agent, "fresh", proj, 0, "x") // mtime = last answer
	touched := writeChat(t, agent, "touched", proj, 0, "x")
	setMtime(t, fresh, t0.Add(50*time.Minute))
	setMtime(t, touched, t0.Add(5*time.Hour))
	listed := scanAll(t, newTestScanner(agent))
	if got := listed["fresh"]; !got.Updated.Equal(t0.Add(50*time.Minute)) || got.TimeSource != session.TimeFromFile {
		t.Errorf("fresh: %v %s", got.Updated, got.TimeSource)
	}
	if got := listed["touched"]; !got.Updated.Equal(t0.Add(time.Minute)) || got.TimeSource != session.TimeFromEvent {
		t.Errorf("touched: %v %s", got.Updated, got.TimeSource)
	}
	if got := listed["touched"]; !got.Created.Equal(t0) {
		t.Errorf("created %v, want the header's %v", got.Created, t0)
	}

	// A session that ends in a tool result too large for the tail read
	// two hours after its prompt is still active then, not at the prompt.
	long := headerLine("long-tool", proj, 0) + msgLine("u1", "", "user", "run the long job", 1) +
		strings.Repeat(jsonLine(map[string]any{"type": "custom", "id": "c0", "parentId": "u1", "timestamp": ts(1), "customType": "x"}), headLines) +
		msgLine("a1", "u1", "assistant", "running", 2) +
		jsonLine(map[string]any{"type": "message", "id": "r1", "parentId": "a1", "timestamp": ts(120), "message": map[string]any{
			"role": "toolResult", "toolCallId": "c", "content": []any{map[string]any{"type": "text", "text": strings.Repeat("y", 2*tailBytes)}}}})
	p := filepath.Join(agent, "sessions", "x", "long.jsonl")
	writeFile(t, p, long)
	setMtime(t, p, t0.Add(121*time.Minute))
	if got := scanAll(t, newTestScanner(agent))["long-tool"]; !got.Updated.Equal(t0.Add(121*time.Minute)) || got.TimeSource != session.TimeFromFile {
		t.Errorf("long-tool: %v %s, want the file's mtime", got.Updated, got.TimeSource)
	}
}

// Only real human input is a user message and only readable answer text
// an assistant one: no thinking, tool calls or results, user
// shell commands, extension messages, compaction or branch summaries.
func TestOnlyHumanInputAndAnswers(t *testing.T) {
	agent := t.TempDir()
	file := headerLine("roles", proj, 0) +
		msgLine("u1", "", "user", "the prompt", 1) +
		jsonLine(map[string]any{"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts(2), "message": map[string]any{
			"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": "secret reasoning", "thinkingSignature": "sig"},
				map[string]any{"type": "text", "text": "   "},
				map[string]any{"type": "toolCall", "id": "c1", "name": "bash", "arguments": map[string]any{"command": "rm -rf x"}},
			}}}) +
		jsonLine(map[string]any{"type": "message", "id": "r1", "parentId": "a1", "timestamp": ts(3), "message": map[string]any{
			"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": "tool output"}}}}) +
		jsonLine(map[string]any{"type": "message", "id": "b1", "parentId": "r1", "timestamp": ts(4), "message": map[string]any{
			"role": "bashExecution", "command": "ls", "output": "shell output", "exitCode": 0}}) +
		jsonLine(map[string]any{"type": "message", "id": "c2", "parentId": "b1", "timestamp": ts(5), "message": map[string]any{
			"role": "custom", "customType": "ext", "content": "extension text", "display": true}}) +
		jsonLine(map[string]any{"type": "message", "id": "h1", "parentId": "c2", "timestamp": ts(5), "message": map[string]any{
			"role": "hookMessage", "content": "v2 hook text"}}) +
		jsonLine(map[string]any{"type": "custom_message", "id": "cm", "parentId": "h1", "timestamp": ts(6), "customType": "ext", "content": "injected", "display": true}) +
		jsonLine(map[string]any{"type": "compaction", "id": "k1", "parentId": "cm", "timestamp": ts(7), "summary": "compaction summary", "firstKeptEntryId": "u1", "tokensBefore": 9}) +
		jsonLine(map[string]any{"type": "message", "id": "a2", "parentId": "k1", "timestamp": ts(8), "message": map[string]any{
			"role": "assistant", "content": []any{}, "stopReason": "aborted", "errorMessage": "Request was aborted"}}) +
		jsonLine(map[string]any{"type": "message", "id": "a3", "parentId": "a2", "timestamp": ts(9), "message": map[string]any{
			"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "first part"}, map[string]any{"type": "toolCall", "id": "c3"}, map[string]any{"type": "text", "text": "second part"}}}})
	writeFile(t, filepath.Join(agent, "sessions", "x", "roles.jsonl"), file)
	s := newTestScanner(agent)
	msgs, err := s.Conversation(context.Background(), "roles")
	if err != nil {
		t.Fatal(err)
	}
	want := []session.Message{
		{Role: session.RoleUser, Text: "the prompt", Time: t0.Add(time.Minute)},
		{Role: session.RoleAssistant, Text: "first part\n\nsecond part", Time: t0.Add(9 * time.Minute)},
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("conversation %+v, want %+v", msgs, want)
	}
	if info := scanAll(t, s)["roles"]; info.PromptCount != 1 || info.LastPrompt != "the prompt" {
		t.Errorf("info %+v", info)
	}
}
