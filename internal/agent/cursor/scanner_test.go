package cursor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"paddock/internal/session"
)

// checkInfo asserts what holds for every listed chat.
func checkInfo(t *testing.T, info session.Info) {
	t.Helper()
	if info.Runtime != "cursor" || info.Key().String() != "cursor:"+info.ID {
		t.Errorf("%s: runtime %q", info.ID, info.Runtime)
	}
	if strings.ContainsAny(info.Title, "\n\r\t") || utf8.RuneCountInString(info.Title) > maxTitleRunes {
		t.Errorf("%s: title %q is not one short line", info.ID, info.Title)
	}
	for _, s := range []string{info.Title, info.FirstPrompt, info.LastPrompt} {
		if !utf8.ValidString(s) || s != strings.TrimSpace(s) || s == "None" || s == "null" || strings.Contains(s, "<user_query>") {
			t.Errorf("%s: bad text %q", info.ID, s)
		}
	}
	if (info.PromptCount == 0) != (info.FirstPrompt == "") {
		t.Errorf("%s: %d prompts but first %q", info.ID, info.PromptCount, info.FirstPrompt)
	}
	if info.Updated.IsZero() || (info.TimeSource != session.TimeFromFile && info.TimeSource != session.TimeFromEvent) {
		t.Errorf("%s: updated %v from %q", info.ID, info.Updated, info.TimeSource)
	}
}

// checkConversation asserts the preview rules: roles only
// user/assistant, no empty text, no "None", timestamps ascending.
func checkConversation(t *testing.T, id string, msgs []session.Message) {
	t.Helper()
	var last time.Time
	for _, m := range msgs {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant {
			t.Errorf("%s: role %q", id, m.Role)
		}
		if m.Text == "" || m.Text == "None" || m.Text != strings.TrimSpace(m.Text) || !utf8.ValidString(m.Text) {
			t.Errorf("%s: bad text %q", id, m.Text)
		}
		if !m.Time.IsZero() {
			if m.Time.Before(last) {
				t.Errorf("%s: time goes back at %q", id, m.Text)
			}
			last = m.Time
		}
	}
}

// A synthetic tree covering the listing rules (in the shapes third-party readers
// document).
func TestScanListingRules(t *testing.T) {
	root := t.TempDir()
	proj := t.TempDir()
	other := t.TempDir()
	now := time.Now().Truncate(time.Millisecond)
	old := now.Add(-48 * time.Hour)

	chats := []chatSpec{
		{id: "c-titled", cwd: proj, mtime: now.Add(-1 * time.Minute),
			meta: map[string]any{"schemaVersion": 1, "createdAtMs": ms(now.Add(-time.Hour)), "updatedAtMs": ms(now.Add(-time.Minute)),
				"hasConversation": true, "isSubagent": false, "title": "Fix the flaky test", "cwd": proj},
			prompts: []any{"first thing", map[string]any{"text": "<user_info>x</user_info><user_query>second thing</user_query>"}, "  last thing  "}},
		// "New Agent" is Cursor's placeholder name: the first prompt titles it.
		{id: "c-default-name", cwd: proj, mtime: now.Add(-2 * time.Minute),
			meta:    map[string]any{"title": "New Agent", "cwd": proj, "hasConversation": true},
			prompts: map[string]any{"prompts": []any{map[string]any{"prompt": "make it\nfaster"}}}},
		// IsSubagent chats are never listed.
		{id: "c-subagent", cwd: proj, mtime: now,
			meta: map[string]any{"title": "Explore the code", "cwd": proj, "isSubagent": true, "hasConversation": true}},
		// HasConversation false is an empty shell.
		{id: "c-empty", cwd: proj, mtime: now,
			meta: map[string]any{"title": "", "cwd": proj, "hasConversation": false}},
		// Regression (JSON null): every field null.
		{id: "c-nulls", cwd: other, mtime: now.Add(-3 * time.Minute),
			meta:    map[string]any{"title": nil, "cwd": nil, "createdAtMs": nil, "updatedAtMs": nil, "hasConversation": nil, "isSubagent": nil},
			prompts: []any{nil, map[string]any{"text": nil}, "real prompt"}},
		// Wrong types everywhere.
		{id: "c-types", cwd: other, mtime: now.Add(-4 * time.Minute),
			metaRaw: `{"title": 7, "cwd": ["x"], "createdAtMs": "soon", "isSubagent": "yes", "hasConversation": 1}`},
		// No meta.json cwd: the workspace folder is md5(cwd) and a sibling
		// chat of the same folder names it.
		{id: "c-sibling-cwd", cwd: other, mtime: now.Add(-5 * time.Minute),
			meta: map[string]any{"title": "No cwd here", "hasConversation": true}},
		{id: "c-names-ws", cwd: other, mtime: now.Add(-6 * time.Minute),
			meta: map[string]any{"title": "Names the folder", "cwd": other, "hasConversation": true}},
		// An older build: store.db only, no meta.json. Listed (nothing says
		// it is a subagent's) without opening the store.
		{id: "c-store-only", cwd: "/no/such/dir/at/all", ws: "0123456789abcdef0123456789abcdef", mtime: now.Add(-7 * time.Minute),
			store: &storeSpec{meta: map[string]any{"agentId": "c-store-only", "name": "Old chat"}, messages: []any{cursorUser("hello")}}},
		// Ephemeral oc-manager- cwds are dropped.
		{id: "c-ephemeral", cwd: "/tmp/oc-manager-codex/x", mtime: now,
			meta: map[string]any{"title": "Manager", "cwd": "/tmp/oc-manager-codex/x", "hasConversation": true}},
		// A cwd that no longer exists: dropped unless pinned.
		{id: "c-gone-cwd", cwd: "/no/such/project", mtime: now,
			meta: map[string]any{"title": "Gone", "cwd": "/no/such/project", "hasConversation": true}},
		{id: "c-gone-pinned", cwd: "/no/such/project2", mtime: now,
			meta: map[string]any{"title": "Pinned", "cwd": "/no/such/project2", "hasConversation": true}},
		// Touched long after its last event: dated by the event.
		{id: "c-stale-mtime", cwd: proj, mtime: now,
			meta: map[string]any{"title": "Old but touched", "cwd": proj, "createdAtMs": ms(old.Add(-time.Hour)), "updatedAtMs": ms(old), "hasConversation": true}},
		// paddock's own title generation (Options.TitleMarker).
		{id: "c-titlegen", cwd: proj, mtime: now,
			meta:    map[string]any{"cwd": proj, "hasConversation": true},
			prompts: []any{"Write a title. [[paddock-title]] for this"}},
		// Junk that is not a chat.
		{id: "not..valid", cwd: proj, meta: map[string]any{"title": "x"}},
	}
	for _, c := range chats {
		writeChat(t, root, c)
	}
	writeFile(t, filepath.Join(root, "chats", wsOf(proj), "stray.txt"), []byte("x"))

	s := New(Options{Dir: root, TitleMarker: "[[paddock-title]]"})
	got := scanAll(t, s, "c-gone-pinned")

	type want struct {
		title, source, cwd, first, last string
		prompts                         int
	}
	wants := map[string]want{
		"c-titled":       {"Fix the flaky test", session.TitleAI, proj, "first thing", "last thing", 3},
		"c-default-name": {"make it faster", session.TitlePrompt, proj, "make it faster", "make it faster", 1},
		"c-nulls":        {"real prompt", session.TitlePrompt, other, "real prompt", "real prompt", 1},
		"c-types":        {"", "", other, "", "", 0},
		"c-sibling-cwd":  {"No cwd here", session.TitleAI, other, "", "", 0},
		"c-names-ws":     {"Names the folder", session.TitleAI, other, "", "", 0},
		"c-store-only":   {"", "", "", "", "", 0},
		"c-gone-pinned":  {"Pinned", session.TitleAI, "/no/such/project2", "", "", 0},
		"c-stale-mtime":  {"Old but touched", session.TitleAI, proj, "", "", 0},
	}
	for id, w := range wants {
		info, ok := got[id]
		if !ok {
			t.Errorf("%s not listed", id)
			continue
		}
		checkInfo(t, info)
		if info.Title != w.title || info.TitleSource != w.source || info.Cwd != w.cwd ||
			info.FirstPrompt != w.first || info.LastPrompt != w.last || info.PromptCount != w.prompts {
			t.Errorf("%s: got title %q (%s) cwd %q first %q last %q n %d; want %+v",
				id, info.Title, info.TitleSource, info.Cwd, info.FirstPrompt, info.LastPrompt, info.PromptCount, w)
		}
	}
	for id := range got {
		if _, ok := wants[id]; !ok {
			t.Errorf("%s listed, but must not be", id)
		}
	}

	titled := got["c-titled"]
	if !titled.Created.Equal(now.Add(-time.Hour)) || titled.Project != filepath.Base(proj) {
		t.Errorf("c-titled: created %v project %q", titled.Created, titled.Project)
	}
	if p := titled.Path; p != "" {
		t.Errorf("c-titled has no store.db, yet path %q", p)
	}
	if p := got["c-store-only"].Path; filepath.Base(p) != "store.db" {
		t.Errorf("c-store-only path %q", p)
	}
	stale := got["c-stale-mtime"]
	if stale.TimeSource != session.TimeFromEvent || !stale.Updated.Equal(old) {
		t.Errorf("c-stale-mtime: %v from %s, want %v from the event", stale.Updated, stale.TimeSource, old)
	}
	fresh := got["c-titled"]
	if fresh.TimeSource != session.TimeFromFile {
		t.Errorf("c-titled: time from %s", fresh.TimeSource)
	}
	if n := s.storeReads.Load(); n != 0 {
		t.Errorf("listing opened store.db %d times; it must read meta.json and prompt_history.json only", n)
	}

	infos, err := s.Scan(context.Background(), -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(infos, func(a, b session.Info) int { return b.Updated.Compare(a.Updated) }) {
		t.Error("not sorted newest effective time first")
	}

	// Session agrees with Scan and refuses what Scan leaves out.
	ctx := context.Background()
	for id := range wants {
		if _, err := s.Session(ctx, id); err != nil {
			t.Errorf("Session(%s): %v", id, err)
		}
	}
	for _, id := range []string{"c-subagent", "c-empty", "c-ephemeral", "c-titlegen", "missing", "../c-titled", "not..valid", ""} {
		if _, err := s.Session(ctx, id); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Session(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

func TestScanLimitAndKeep(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	now := time.Now()
	for i := range 6 {
		writeChat(t, root, chatSpec{id: "chat-" + string(rune('a'+i)), cwd: proj, mtime: now.Add(-time.Duration(i) * time.Hour),
			meta: map[string]any{"title": "t", "cwd": proj, "hasConversation": true}})
	}
	// A subagent's chat beyond the limit must not count or be listed.
	writeChat(t, root, chatSpec{id: "chat-sub", cwd: proj, mtime: now.Add(time.Minute),
		meta: map[string]any{"cwd": proj, "isSubagent": true}})
	s := New(Options{Dir: root})
	infos, err := s.Scan(context.Background(), 2, []string{"chat-f", "chat-missing", "chat-sub"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, i := range infos {
		ids = append(ids, i.ID)
	}
	if want := []string{"chat-a", "chat-b", "chat-f"}; !slices.Equal(ids, want) {
		t.Errorf("Scan(2, keep f) = %v, want %v", ids, want)
	}
	if infos, _ := s.Scan(context.Background(), 0, nil); len(infos) != 0 {
		t.Errorf("Scan(0) = %d sessions", len(infos))
	}
}

// An absent config dir is "not installed": no sessions, no error. A chats/
// that exists but cannot be read is an error, never an empty list.
func TestScanMissingAndUnreadable(t *testing.T) {
	s := New(Options{Dir: filepath.Join(t.TempDir(), "nope")})
	if infos, err := s.Scan(context.Background(), 10, nil); err != nil || len(infos) != 0 {
		t.Errorf("missing dir: %v, %v", infos, err)
	}
	if infos, err := New(Options{}).Scan(context.Background(), 10, nil); err != nil || infos != nil {
		t.Errorf("empty dir option: %v, %v", infos, err)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "chats"), []byte("a file where a folder should be"))
	if _, err := New(Options{Dir: root}).Scan(context.Background(), 10, nil); err == nil {
		t.Error("unreadable chats/: no error")
	}
}

// Scan keeps its last answer under a cheap signature:
// an unchanged tree is not parsed again, a changed file is picked up, and
// results are copies the caller may modify.
func TestScanSignatureCache(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	now := time.Now().Add(-time.Hour)
	dir := writeChat(t, root, chatSpec{id: "sig", cwd: proj, mtime: now,
		meta:  map[string]any{"title": "before", "cwd": proj, "hasConversation": true},
		store: &storeSpec{meta: map[string]any{"agentId": "sig"}, messages: []any{cursorUser("hi")}}})
	writeChat(t, root, chatSpec{id: "other", cwd: proj, mtime: now,
		meta: map[string]any{"title": "other", "cwd": proj, "hasConversation": true}})
	s := New(Options{Dir: root})
	ctx := context.Background()

	first, err := s.Scan(ctx, 10, nil)
	if err != nil || len(first) != 2 {
		t.Fatalf("Scan = %v, %v", first, err)
	}
	parses := s.parses.Load()
	first[0].Title = "changed by the caller"

	again, _ := s.Scan(ctx, 10, nil)
	if s.parses.Load() != parses {
		t.Errorf("unchanged tree parsed again: %d → %d", parses, s.parses.Load())
	}
	for _, info := range again {
		if info.Title == "changed by the caller" {
			t.Error("a caller's change leaked into the cached result")
		}
	}

	// The -wal is in the signature: a write there is a new answer (a new
	// time), without reparsing meta.json.
	wal := filepath.Join(dir, "store.db-wal")
	writeFile(t, wal, []byte("x"))
	later := time.Now()
	setMtime(t, wal, later)
	got := scanAll(t, s)
	if !got["sig"].Updated.Equal(later) {
		t.Errorf("after a -wal write: updated %v, want %v", got["sig"].Updated, later)
	}
	if s.parses.Load() != parses {
		t.Errorf("a -wal write reparsed meta.json: %d → %d", parses, s.parses.Load())
	}
	os.Remove(wal)

	// A changed meta.json is read again, and only that one.
	writeJSON(t, filepath.Join(dir, "meta.json"), map[string]any{"title": "after", "cwd": proj, "hasConversation": true})
	got = scanAll(t, s)
	if got["sig"].Title != "after" {
		t.Errorf("changed meta.json not picked up: %q", got["sig"].Title)
	}
	if d := s.parses.Load() - parses; d != 1 {
		t.Errorf("%d parses after one meta.json changed, want 1", d)
	}
	// Other arguments are other answers.
	if infos, _ := s.Scan(ctx, 1, nil); len(infos) != 1 {
		t.Errorf("Scan(1) after Scan(10) = %d sessions", len(infos))
	}
}
