package cursor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

const (
	benchChats      = 500
	benchWorkspaces = 25
	benchLimit      = 50
	benchMessages   = 400
)

// buildBenchTree writes a SYNTHETIC chats/ tree (in the shapes third-party readers document) of
// benchChats chats over benchWorkspaces folders: meta.json,
// prompt_history.json and a store.db each (one real store copied: listing
// never opens it), one in ten with a -wal as an open chat has, one in
// twenty a subagent's.
func buildBenchTree(b *testing.B) string {
	b.Helper()
	root := b.TempDir()
	tmpl := filepath.Join(b.TempDir(), "tmpl")
	writeChat(b, tmpl, chatSpec{id: "tmpl", cwd: "/x",
		store: &storeSpec{meta: map[string]any{"agentId": "tmpl"}, messages: []any{cursorUser("hello"), assistantMsg(textPart("hi"))}}})
	storeBytes, err := os.ReadFile(filepath.Join(tmpl, "chats", wsOf("/x"), "tmpl", "store.db"))
	if err != nil {
		b.Fatal(err)
	}
	cwds := make([]string, benchWorkspaces)
	for i := range cwds {
		cwds[i] = b.TempDir()
	}
	now := time.Now()
	for i := range benchChats {
		cwd := cwds[i%benchWorkspaces]
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		at := now.Add(-time.Duration(i) * time.Minute)
		dir := writeChat(b, root, chatSpec{id: id, cwd: cwd, mtime: at,
			meta: map[string]any{"schemaVersion": 1, "createdAtMs": ms(at.Add(-time.Hour)), "updatedAtMs": ms(at),
				"hasConversation": true, "isSubagent": i%20 == 7, "title": fmt.Sprintf("Chat number %d", i), "cwd": cwd},
			prompts: []any{"first prompt of the chat", map[string]any{"text": "a second, longer prompt with more words in it"}, "last"},
		})
		writeFile(b, filepath.Join(dir, "store.db"), storeBytes)
		setMtime(b, filepath.Join(dir, "store.db"), at)
		if i%10 == 0 {
			writeFile(b, filepath.Join(dir, "store.db-wal"), make([]byte, 4096))
			setMtime(b, filepath.Join(dir, "store.db-wal"), at)
		}
	}
	return root
}

// BenchmarkScan lists the newest 50 of 500 chats. "cold" is a new Scanner
// per list (every listed chat's meta.json and prompt_history.json read);
// "unchanged" reuses one Scanner over an unchanged tree, so the stat pass
// and the signature answer.
func BenchmarkScan(b *testing.B) {
	root := buildBenchTree(b)
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			infos, err := New(Options{Dir: root}).Scan(ctx, benchLimit, nil)
			if err != nil || len(infos) != benchLimit {
				b.Fatalf("Scan = %d, %v", len(infos), err)
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		s := New(Options{Dir: root})
		if _, err := s.Scan(ctx, benchLimit, nil); err != nil {
			b.Fatal(err)
		}
		parses := s.parses.Load()
		for b.Loop() {
			infos, err := s.Scan(ctx, benchLimit, nil)
			if err != nil || len(infos) != benchLimit {
				b.Fatalf("Scan = %d, %v", len(infos), err)
			}
		}
		if s.parses.Load() != parses {
			b.Fatal("unchanged tree parsed again")
		}
	})
}

// BenchmarkConversation previews a chat of benchMessages messages from a
// closed store.db (copied aside first, so Cursor's folder is untouched) and
// from an open one (read in place, its -wal included).
func BenchmarkConversation(b *testing.B) {
	root, proj := b.TempDir(), b.TempDir()
	var msgs []any
	for i := range benchMessages / 2 {
		msgs = append(msgs, cursorUser(fmt.Sprintf("question %d about the code", i)),
			assistantMsg(map[string]any{"type": "reasoning", "text": "thinking about it"},
				textPart(fmt.Sprintf("answer %d, with a paragraph of explanation that goes on for a while to look like a real one.", i)),
				map[string]any{"type": "tool-call", "toolCallId": "c", "toolName": "Read", "args": map[string]any{"path": "x"}}))
	}
	dir := writeChat(b, root, chatSpec{id: "big", cwd: proj, meta: map[string]any{"cwd": proj},
		store: &storeSpec{meta: map[string]any{"agentId": "big"}, messages: msgs}})
	s := New(Options{Dir: root})
	ctx := context.Background()
	run := func(b *testing.B) {
		for b.Loop() {
			got, err := s.Conversation(ctx, "big")
			if err != nil || len(got) != benchMessages {
				b.Fatalf("Conversation = %d, %v", len(got), err)
			}
		}
	}
	b.Run("closed", run)
	w := openWriter(b, filepath.Join(dir, "store.db"))
	defer w.Close()
	fillStore(b, w, &storeSpec{meta: map[string]any{"agentId": "big"}, messages: msgs})
	b.Run("open", run)
}
