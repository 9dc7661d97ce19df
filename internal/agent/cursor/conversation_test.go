package cursor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/session"
)

func msgsEqual(t *testing.T, id string, got []session.Message, want []session.Message) {
	t.Helper()
	checkConversation(t, id, got)
	if !slices.Equal(got, want) {
		t.Errorf("%s conversation:\n got  %q\n want %q", id, got, want)
	}
}

func u(text string) session.Message { return session.Message{Role: session.RoleUser, Text: text} }
func a(text string) session.Message { return session.Message{Role: session.RoleAssistant, Text: text} }

// SYNTHETIC store.db in the documented shape: the preview
// shows what was typed and the readable answers only, in root
// blob order, archived (compacted) messages first; binary blobs skipped.
func TestConversationFromStore(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	tests := []struct {
		name  string
		store storeSpec
		want  []session.Message
	}{
		{
			name: "turns",
			store: storeSpec{
				meta: map[string]any{"agentId": "turns", "name": "Turns", "mode": "agent", "createdAt": 1781256145540, "lastUsedModel": "gpt-5"},
				messages: []any{
					map[string]any{"role": "system", "content": "You are a coding agent."},
					// Context only: Cursor's injected preamble, no prompt.
					userMsg("<user_info>OS: linux</user_info>\n<rules>be nice</rules>"),
					cursorUser("fix the bug\nin main.go"),
					assistantMsg(
						map[string]any{"type": "reasoning", "text": "thinking hard", "signature": "sig"},
						textPart("Looking at main.go."),
						map[string]any{"type": "tool-call", "toolCallId": "call_1\nx", "toolName": "Read", "args": map[string]any{"path": "main.go"}},
					),
					map[string]any{"role": "tool", "content": []any{map[string]any{"type": "tool-result", "toolCallId": "call_1\nx", "toolName": "Read", "result": "package main"}}},
					assistantMsg(map[string]any{"type": "tool-call", "toolCallId": "c2", "toolName": "Edit"}), // tool call only: no message
					assistantMsg(textPart("Fixed it."), textPart("Run the tests.")),
					// A binary (protobuf) record in the list: skipped.
					[]byte{0x12, 0x05, 0xba, 0x01, 0x02, 0x08, 0x01},
					[]byte{0x0a, 0x03, 'a', 'b', 'c'},
					// Plain string content, no tags: what was typed.
					map[string]any{"role": "user", "content": "thanks"},
					map[string]any{"role": "assistant", "content": "  You're welcome.  "},
					map[string]any{"role": "assistant", "content": nil},
					map[string]any{"role": "user", "content": []any{map[string]any{"type": "image", "image": "data:..."}}},
					// Broken JSON blob.
					[]byte(`{"role":"user","content":`),
				},
			},
			want: []session.Message{u("fix the bug\nin main.go"), a("Looking at main.go."), a("Fixed it.\n\nRun the tests."), u("thanks"), a("You're welcome.")},
		},
		{
			name: "compacted",
			store: storeSpec{
				meta:     map[string]any{"agentId": "compacted"},
				archived: []any{cursorUser("old question"), assistantMsg(textPart("old answer"))},
				messages: []any{userMsg("<user_query>new question</user_query>"), assistantMsg(textPart("new answer"))},
			},
			want: []session.Message{u("old question"), a("old answer"), u("new question"), a("new answer")},
		},
		{
			// The same prompt typed twice is one blob (content-addressed)
			// listed twice in the root: shown twice.
			name: "repeated",
			store: storeSpec{
				meta:     map[string]any{"agentId": "repeated"},
				messages: []any{cursorUser("go on"), assistantMsg(textPart("one")), cursorUser("go on"), assistantMsg(textPart("two"))},
			},
			want: []session.Message{u("go on"), a("one"), u("go on"), a("two")},
		},
		{
			// No latestRootBlobId: the JSON blobs in insertion order.
			name: "no-root",
			store: storeSpec{
				noRoot:   true,
				meta:     map[string]any{"agentId": "no-root"},
				messages: []any{cursorUser("q1"), []byte{0x0a, 0x20, 1, 2, 3}, assistantMsg(textPart("r1"))},
			},
			want: []session.Message{u("q1"), a("r1")},
		},
		{
			name:  "no-meta-row",
			store: storeSpec{noMeta: true, messages: []any{cursorUser("q2"), assistantMsg(textPart("r2"))}},
			want:  []session.Message{u("q2"), a("r2")},
		},
		{
			name:  "empty",
			store: storeSpec{meta: map[string]any{"agentId": "empty"}},
			want:  nil,
		},
	}
	for _, tc := range tests {
		writeChat(t, root, chatSpec{id: tc.name, cwd: proj, store: &tc.store,
			meta: map[string]any{"title": tc.name, "cwd": proj, "hasConversation": true}})
	}
	s := New(Options{Dir: root})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Conversation(context.Background(), tc.name)
			if err != nil {
				t.Fatal(err)
			}
			msgsEqual(t, tc.name, got, tc.want)
		})
	}
	if _, err := s.Conversation(context.Background(), "nope"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("missing chat: %v", err)
	}
	if _, err := s.Conversation(context.Background(), "../turns"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("bad id: %v", err)
	}
}

// A store.db that exists but cannot be read is an error (the catalog keeps
// its last good preview), never an empty conversation.
func TestConversationUnreadableStore(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	dir := writeChat(t, root, chatSpec{id: "broken", cwd: proj, meta: map[string]any{"cwd": proj}})
	writeFile(t, filepath.Join(dir, "store.db"), []byte("this is not a database, just some bytes that go on for a while....."))
	// Wrong schema: a database without the blobs table.
	dir2 := writeChat(t, root, chatSpec{id: "schema", cwd: proj, meta: map[string]any{"cwd": proj}})
	db := openWriter(t, filepath.Join(dir2, "store.db"))
	if _, err := db.Exec("DROP TABLE blobs"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s := New(Options{Dir: root})
	for _, id := range []string{"broken", "schema"} {
		msgs, err := s.Conversation(context.Background(), id)
		if err == nil || errors.Is(err, session.ErrNotFound) {
			t.Errorf("%s: %v, %v; want a read error", id, msgs, err)
		}
	}
	// Listing is unaffected: it never opens store.db.
	if got := scanAll(t, s); len(got) != 2 {
		t.Errorf("listed %d chats, want 2", len(got))
	}
}

// The preview must see what is still in store.db-wal (Cursor keeps
// the WAL for as long as a chat is open); opened with mode=ro, never
// immutable. SYNTHETIC: a writer connection stands in for Cursor.
func TestConversationSeesWAL(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	dir := writeChat(t, root, chatSpec{id: "live", cwd: proj, meta: map[string]any{"cwd": proj, "hasConversation": true},
		store: &storeSpec{meta: map[string]any{"agentId": "live"}, messages: []any{cursorUser("first")}}})
	path := filepath.Join(dir, "store.db")

	// Cursor runs: its connection keeps -wal and -shm, and writes a new
	// turn that is not checkpointed.
	w := openWriter(t, path)
	defer w.Close()
	fillStore(t, w, &storeSpec{meta: map[string]any{"agentId": "live"},
		messages: []any{cursorUser("first"), assistantMsg(textPart("answer in the WAL"))}})
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() == 0 {
		t.Fatalf("the writer left no WAL: %v", err)
	}

	s := New(Options{Dir: root})
	got, err := s.Conversation(context.Background(), "live")
	if err != nil {
		t.Fatal(err)
	}
	msgsEqual(t, "live", got, []session.Message{u("first"), a("answer in the WAL")})

	// Another uncheckpointed turn: seen at once.
	fillStore(t, w, &storeSpec{meta: map[string]any{"agentId": "live"},
		messages: []any{cursorUser("first"), assistantMsg(textPart("answer in the WAL")), cursorUser("second")}})
	got, err = s.Conversation(context.Background(), "live")
	if err != nil {
		t.Fatal(err)
	}
	msgsEqual(t, "live", got, []session.Message{u("first"), a("answer in the WAL"), u("second")})
}
