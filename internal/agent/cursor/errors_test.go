package cursor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
)

const errID = "0199a213-81c0-7800-8aa1-dddddddddddd"

// A transcript that is partly or wholly unreadable is listed with a
// reason the user can read (Info.Error); one read whole carries none.
func TestHistoryErrors(t *testing.T) {
	good := `{"role":"user","content":"hello"}` + "\n" + `{"role":"assistant","content":"hi"}` + "\n"
	tests := []struct {
		name, content, want, title string
	}{
		{name: "whole", content: good, title: "hello"},
		{name: "garbage", content: "\x00\x01 not json\n{oops\n", want: "none of its 2 lines could be read"},
		{name: "garbage without a newline", content: "garbage", want: "its only line could not be read"},
		{name: "partly bad", content: strings.Replace(good, "\n", "\n{bad\nnot json\n", 1), want: "2 lines could not be read", title: "hello"},
		// A last line without a newline is one Cursor may still be
		// writing, not a broken one.
		{name: "last line being written", content: good + `{"role":"user","content":"cut of`, title: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "projects", "p", "agent-transcripts", errID+".jsonl")
			writeFile(t, path, []byte(tt.content))
			checkListedError(t, root, path, tt.want, tt.title, true)
		})
	}
	for _, u := range historytest.Unreadables() {
		t.Run(u.Name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "projects", "p", "agent-transcripts", errID+".jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			u.Make(t, path, []byte(good))
			checkListedError(t, root, path, u.Want, "", true)
			if _, err := New(Options{Dir: root}).Conversation(context.Background(), errID); err == nil {
				t.Error("Conversation of an unreadable transcript: no error")
			}
		})
	}
}

// A chat whose meta.json cannot be read is listed with a reason, not
// dropped.
func TestChatFileErrors(t *testing.T) {
	for _, u := range historytest.Unreadables() {
		t.Run(u.Name, func(t *testing.T) {
			root := t.TempDir()
			dir := writeChat(t, root, chatSpec{id: errID, cwd: "/home/u/proj"})
			path := filepath.Join(dir, "meta.json")
			u.Make(t, path, []byte(`{"title":"T","cwd":"/home/u/proj"}`))
			want := "its meta.json cannot be read: " + strings.TrimPrefix(u.Want, "the file cannot be read: ")
			checkListedError(t, root, path, want, "", true)
		})
	}
}

// checkListedError scans root twice (the second from the cache) and
// checks that errID, whose file at path is at fault, is listed with the
// Error want and the title, dated by the file's mtime when nothing could
// be read, and that Session (when lookup) says the same.
func checkListedError(t *testing.T, root, path, want, title string, lookup bool) {
	t.Helper()
	s := New(Options{Dir: root})
	lst, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		info, ok := scanAll(t, s)[errID]
		if !ok {
			t.Fatal("not listed")
		}
		if info.Error != want || info.Title != title {
			t.Errorf("listed with Error %q, title %q; want %q, %q", info.Error, info.Title, want, title)
		}
		if title == "" && !info.Updated.Equal(lst.ModTime()) {
			t.Errorf("Updated %v, want the file's mtime %v", info.Updated, lst.ModTime())
		}
	}
	if !lookup {
		return
	}
	info, err := s.Session(context.Background(), errID)
	if err != nil || info.Error != want {
		t.Errorf("Session = Error %q, %v; want %q", info.Error, err, want)
	}
}

// A store.db a conversation cannot be read from names the chat's Error
// and is a source problem, from the next scan on, until it changes.
func TestStoreErrors(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	dir := writeChat(t, root, chatSpec{id: errID, cwd: proj, meta: map[string]any{"title": "T", "cwd": proj}})
	store := filepath.Join(dir, "store.db")
	writeFile(t, store, []byte(strings.Repeat("not a database ", 300)))
	s := New(Options{Dir: root})
	if info := scanAll(t, s)[errID]; info.Error != "" || info.Title != "T" {
		t.Fatalf("before any read: %+v", info)
	}
	if _, err := s.Conversation(context.Background(), errID); err == nil {
		t.Fatal("Conversation over a junk store.db: no error")
	}
	const want = "its conversation store cannot be read: it is not a SQLite database"
	if info := scanAll(t, s)[errID]; info.Error != want {
		t.Errorf("after a failed read: Error %q, want %q", info.Error, want)
	}
	if probs := s.Problems(); len(probs) != 1 || probs[0].Source != store || probs[0].Reason != "cannot be read: it is not a SQLite database" {
		t.Errorf("Problems = %+v", probs)
	}
	// Replaced by a good one: the error goes with the next scan.
	if err := os.Remove(store); err != nil {
		t.Fatal(err)
	}
	writeChat(t, root, chatSpec{id: errID, cwd: proj, meta: map[string]any{"title": "T", "cwd": proj},
		store: &storeSpec{meta: map[string]any{"agentId": errID}, messages: []any{map[string]any{"role": "user", "content": "hello"}}}})
	if info := scanAll(t, s)[errID]; info.Error != "" {
		t.Errorf("after the store was replaced: Error %q", info.Error)
	}
	if probs := s.Problems(); len(probs) != 0 {
		t.Errorf("Problems after the store was replaced = %+v", probs)
	}
}

// A workspace folder that cannot be read is a source problem, named by
// Problems until a scan reads it.
func TestSourceProblems(t *testing.T) {
	root, proj := t.TempDir(), t.TempDir()
	writeChat(t, root, chatSpec{id: errID, cwd: proj, meta: map[string]any{"title": "T", "cwd": proj}})
	loop := filepath.Join(root, "chats", "0123456789abcdef0123456789abcdef")
	if err := os.Symlink(filepath.Base(loop), loop); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: root})
	if got := scanAll(t, s); len(got) != 1 {
		t.Fatalf("listed %v", got)
	}
	probs := s.Problems()
	if len(probs) != 1 || probs[0].Source != loop || probs[0].Reason != "cannot be read: too many levels of symbolic links" {
		t.Fatalf("Problems = %+v", probs)
	}
	if err := os.Remove(loop); err != nil {
		t.Fatal(err)
	}
	scanAll(t, s)
	if probs := s.Problems(); len(probs) != 0 {
		t.Errorf("Problems after the loop went = %+v", probs)
	}
}
