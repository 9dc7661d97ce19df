package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/history/historytest"
)

const errID = "0199a213-81c0-7800-8aa1-bbab2a035a53"

// A rollout that is partly or wholly unreadable is listed with a reason
// the user can read (Info.Error); one read whole carries none.
func TestHistoryErrors(t *testing.T) {
	mustLine := func(v any) string {
		b, err := jsonLine(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	good := mustLine(meta(0, errID, "/home/u/api"))
	for _, l := range turn(1, "hello", "hi") {
		good += mustLine(l)
	}
	tests := []struct {
		name, content, want, title string
	}{
		{name: "whole", content: good, title: "hello"},
		{name: "garbage", content: "\x00\x01 not json\n{oops\n", want: "none of its 2 lines could be read"},
		{name: "garbage without a newline", content: "garbage", want: "its only line could not be read"},
		{name: "partly bad", content: strings.Replace(good, "\n", "\n{bad\nnot json\n", 1), want: "2 lines could not be read", title: "hello"},
		// A last line without a newline is a record Codex may still be
		// writing, not a broken one.
		{name: "last line being written", content: good + `{"timestamp":"2026-01-02T10:00:09Z","type":"event_msg","payload":{"type":"agent_mess`, title: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHome(t)
			path := filepath.Join(h.dir, "sessions", "2026", "01", "02", "rollout-2026-01-02T10-00-00-"+errID+".jsonl")
			writeFile(t, path, tt.content)
			checkListedError(t, h.dir, path, tt.want, tt.title, true)
		})
	}
	for _, u := range historytest.Unreadables() {
		t.Run(u.Name, func(t *testing.T) {
			h := newHome(t)
			path := filepath.Join(h.dir, "sessions", "2026", "01", "02", "rollout-2026-01-02T10-00-00-"+errID+".jsonl")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			u.Make(t, path, []byte(good))
			st, _ := os.Stat(path)
			checkListedError(t, h.dir, path, u.Want, "", st != nil && st.Mode().IsRegular())
		})
	}
}

// checkListedError scans dir twice (the second from the cache) and
// checks that the session errID, at path, is listed with the Error want
// and the title, dated by its file's mtime when nothing could be read,
// and that Session (when lookup) says the same.
func checkListedError(t *testing.T, dir, path, want, title string, lookup bool) {
	t.Helper()
	s := newTestScanner(dir)
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

// A session index that cannot be read is a source problem, named by
// Problems until a scan reads it; the sessions are still listed.
func TestSourceProblems(t *testing.T) {
	h := newHome(t)
	h.rollout(errID, time.Time{}, lines(meta(0, errID, "/home/u/api"), turn(1, "hello", "hi"))...)
	index := filepath.Join(h.dir, indexFile)
	if err := os.Symlink(indexFile, index); err != nil {
		t.Fatal(err)
	}
	s := newTestScanner(h.dir)
	if got := scanAll(t, s); len(got) != 1 {
		t.Fatalf("listed %v", ids(got))
	}
	probs := s.Problems()
	if len(probs) != 1 || probs[0].Source != index || probs[0].Reason != "cannot be read: too many levels of symbolic links; session names may be stale" {
		t.Fatalf("Problems = %+v", probs)
	}
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	scanAll(t, s)
	if probs := s.Problems(); len(probs) != 0 {
		t.Errorf("Problems after the loop went = %+v", probs)
	}
}
