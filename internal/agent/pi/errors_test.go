package pi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
)

const errID = "0199a213-81c0-7800-8aa1-cccccccccccc"

// A session file that is partly or wholly unreadable is listed with a
// reason the user can read (Info.Error), under its header's id or, with
// no header to read, the id its name carries; one read whole carries
// none.
func TestHistoryErrors(t *testing.T) {
	for _, other := range []string{`{"type":"agent_start"}` + "\n", "garbage"} {
		dir := t.TempDir()
		writeFile(t, sessionFile(dir, proj, errID, 0), other)
		if got := scanAll(t, newTestScanner(dir)); len(got) != 0 {
			t.Errorf("%q listed: %v", other, got)
		}
	}
	good := chat(errID, proj, 0, "hello")
	tests := []struct {
		name, content, want, title string
	}{
		{name: "whole", content: good, title: "hello"},
		{name: "garbage", content: "\x00\x01 not json\n{oops\n", want: "its first line is not a session header, so nothing of it could be read"},
		// JSON of another shape is some other file, and a first line
		// without a newline may be a header still being written: neither
		// is a session (TestFirstLineMustBeTheHeader).
		{name: "partly bad", content: strings.Replace(good, "\n", "\n{bad\nnot json\n", 1), want: "2 lines could not be read", title: "hello"},
		// A last line without a newline is an entry Pi may still be
		// writing, not a broken one.
		{name: "last line being written", content: good + `{"type":"message","id":"u9","parentId":"a0","timestamp":"2026-11-20T09:09:00.000Z","message":{"role":"us`, title: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := sessionFile(dir, proj, errID, 0)
			writeFile(t, path, tt.content)
			checkListedError(t, dir, path, tt.want, tt.title, true)
		})
	}
	for _, u := range historytest.Unreadables() {
		t.Run(u.Name, func(t *testing.T) {
			dir := t.TempDir()
			path := sessionFile(dir, proj, errID, 0)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			u.Make(t, path, []byte(good))
			st, _ := os.Stat(path)
			checkListedError(t, dir, path, u.Want, "", st != nil && st.Mode().IsRegular())
		})
	}
}

// checkListedError scans dir twice (the second from the cache) and
// checks that the session errID, at path, is listed with the Error want
// and the title, dated by its file's mtime when nothing could be read,
// and that Session and Conversation (when lookup) find it.
func checkListedError(t *testing.T, dir, path, want, title string, lookup bool) {
	t.Helper()
	s := newTestScanner(dir)
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
	s = newTestScanner(dir) // a lookup before any scan walks the files
	info, err := s.Session(context.Background(), errID)
	if err != nil || info.Error != want {
		t.Errorf("Session = Error %q, %v; want %q", info.Error, err, want)
	}
}

// A session folder that cannot be read is a source problem, named by
// Problems until a scan reads it. The walk follows no symlinked folder,
// so only permissions can make a folder unreadable: skipped as root.
func TestSourceProblems(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: a folder's permissions do not stop root listing it")
	}
	dir := t.TempDir()
	writeChat(t, dir, errID, proj, 0, "hello")
	locked := filepath.Join(dir, "sessions", "--locked--")
	if err := os.Mkdir(locked, 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(locked, 0o755)
	s := newTestScanner(dir)
	if got := scanAll(t, s); len(got) != 1 {
		t.Fatalf("listed %v", got)
	}
	probs := s.Problems()
	if len(probs) != 1 || probs[0].Source != locked || probs[0].Reason != "cannot be read: permission denied" {
		t.Fatalf("Problems = %+v", probs)
	}
	if err := os.Chmod(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	scanAll(t, s)
	if probs := s.Problems(); len(probs) != 0 {
		t.Errorf("Problems once the folder is readable = %+v", probs)
	}
}
