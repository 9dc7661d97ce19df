package kimi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
)

const errID = "session_errors"

// A session whose wire is partly or wholly unreadable is listed with a
// reason the user can read (Info.Error); one read whole carries none.
func TestHistoryErrors(t *testing.T) {
	good := strings.Join(append([]string{recMeta(t0)}, turn("s1", "hello", "hi", t0+1)...), "\n") + "\n"
	tests := []struct {
		name, state, content, want, title string
	}{
		{name: "whole", content: good, title: "hello"},
		{name: "garbage", content: "\x00\x01 not json\n{oops\n", want: "none of its 2 lines could be read"},
		{name: "garbage without a newline", content: "garbage", want: "its only line could not be read"},
		{name: "partly bad", content: strings.Replace(good, "\n", "\n{bad\nnot json\n", 1), want: "2 lines could not be read", title: "hello"},
		{name: "state file broken", state: `{"title": "Half`, content: good, want: "its state file could not be read", title: "hello"},
		// A last line without a newline is a record Kimi may still be
		// writing, not a broken one.
		{name: "last line being written", content: good + `{"type":"context.append_message","agentId":"main","message":{"role":"user","content":[{"type":"text","text":"torn`, title: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			wire := fake{bucket: bucket, id: errID, state: tt.state}.write(t, home)
			writeFile(t, wire, tt.content)
			checkListedError(t, home, wire, tt.want, tt.title, true)
		})
	}
	for _, u := range historytest.Unreadables() {
		t.Run(u.Name, func(t *testing.T) {
			home := t.TempDir()
			wire := fake{bucket: bucket, id: errID}.write(t, home)
			if err := os.MkdirAll(filepath.Dir(wire), 0o755); err != nil {
				t.Fatal(err)
			}
			u.Make(t, wire, []byte(good))
			st, _ := os.Stat(wire)
			checkListedError(t, home, wire, u.Want, "", st != nil && st.Mode().IsRegular())
		})
	}
}

// checkListedError scans home twice (the second from the cache) and
// checks that session errID, whose wire is at path, is listed with the
// Error want and the title, dated by its wire's mtime when nothing could
// be read, and that Session (when lookup) says the same.
func checkListedError(t *testing.T, home, path, want, title string, lookup bool) {
	t.Helper()
	s := newTest(home)
	lst, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		info, ok := byID(scanAll(t, s))[errID]
		if !ok {
			t.Fatal("not listed")
		}
		if info.Error != want || info.Title != title {
			t.Errorf("listed with Error %q, title %q; want %q, %q", info.Error, info.Title, want, title)
		}
		if title == "" && !info.Updated.Equal(lst.ModTime()) {
			t.Errorf("Updated %v, want the wire's mtime %v", info.Updated, lst.ModTime())
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

// A workspace directory that cannot be read is a source problem, named
// by Problems until a scan reads it.
func TestSourceProblems(t *testing.T) {
	home := t.TempDir()
	fake{bucket: bucket, id: errID, wire: append([]string{recMeta(t0)}, turn("s1", "hello", "hi", t0+1)...)}.write(t, home)
	loop := filepath.Join(home, "sessions", "wd_loop_0123456789ab")
	if err := os.Symlink(filepath.Base(loop), loop); err != nil {
		t.Fatal(err)
	}
	s := newTest(home)
	if got := scanAll(t, s); len(got) != 1 {
		t.Fatalf("listed %v", ids(got))
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
