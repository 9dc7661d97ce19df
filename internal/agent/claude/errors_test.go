package claude

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"paddock/internal/history/historytest"
)

// A transcript that is partly or wholly unreadable is listed with a
// reason the user can read (Info.Error); one read whole carries none.
func TestHistoryErrors(t *testing.T) {
	good := user("u1", "", "hello", 0) + "\n" + answer("a1", "u1", "hi", 1) + "\n"
	tests := []struct {
		name, content, want, title string
	}{
		{name: "whole", content: good, title: "hello"},
		{name: "garbage", content: "\x00\x01 not json\n{oops\n", want: "none of its 2 lines could be read"},
		{name: "garbage without a newline", content: "garbage", want: "its only line could not be read"},
		{name: "partly bad", content: user("u1", "", "hello", 0) + "\n{bad\n" + answer("a1", "u1", "hi", 1) + "\nnot json\n",
			want: "2 lines could not be read", title: "hello"},
		// A last line without a newline is a record Claude may still be
		// writing, not a broken one.
		{name: "last line being written", content: good + `{"type":"user","uuid":"u2","message":{"content":"cut of`, title: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "projects", "p", "s1.jsonl")
			writeFile(t, path, []byte(tt.content))
			checkListedError(t, dir, path, tt.want, tt.title, true)
		})
	}
	for _, u := range historytest.Unreadables() {
		t.Run(u.Name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "projects", "p", "s1.jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			u.Make(t, path, []byte(good))
			// Only a regular file is looked up by id: a pipe is never
			// opened.
			st, _ := os.Stat(path)
			checkListedError(t, dir, path, u.Want, "", st != nil && st.Mode().IsRegular())
		})
	}
}

// checkListedError scans dir twice (the second from the cache) and
// checks that session s1, at path, is listed with the Error want and the
// title, dated by its file's mtime when nothing could be read, and that
// Session (when lookup) says the same.
func checkListedError(t *testing.T, dir, path, want, title string, lookup bool) {
	t.Helper()
	s := New(Options{Dir: dir, KeepMissingCwd: true})
	lst, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		info, ok := scanAll(t, s)["s1"]
		if !ok {
			t.Fatal("not listed")
		}
		if info.Error != want || info.Title != title {
			t.Errorf("listed with Error %q, title %q; want %q, %q", info.Error, info.Title, want, title)
		}
		if title == "" && !info.Updated.Equal(lst.ModTime()) {
			t.Errorf("Updated %v, want the file's mtime %v", info.Updated.Format(time.RFC3339Nano), lst.ModTime())
		}
	}
	if !lookup {
		return
	}
	info, err := s.Session(context.Background(), "s1")
	if err != nil || info.Error != want {
		t.Errorf("Session = Error %q, %v; want %q", info.Error, err, want)
	}
}

// A project directory that cannot be read is a source problem, named by
// Problems until a scan reads it.
func TestSourceProblems(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "p", "good", user("u1", "", "hello", 0))
	loop := filepath.Join(dir, "projects", "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	s := New(Options{Dir: dir, KeepMissingCwd: true})
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
