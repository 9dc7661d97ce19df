package usage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFollowLines: a grown file is read from where the last read
// stopped; a line still being written waits for its newline; a file
// rewritten in place (same inode, other bytes) is read from its start.
func TestFollowLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	read := func(m Mark) (Mark, bool, []string) {
		t.Helper()
		var lines []string
		next, reset, err := FollowLines(t.Context(), path, m, func(off int64, l []byte) { lines = append(lines, string(l)) })
		if err != nil {
			t.Fatal(err)
		}
		return next, reset, lines
	}
	os.WriteFile(path, []byte("one\ntwo\nthr"), 0o600)
	m, reset, got := read(Mark{Name: "h"})
	if reset || strings.Join(got, ",") != "one,two" || m.Offset != 8 {
		t.Fatalf("first read: %v %v %+v", got, reset, m)
	}
	os.WriteFile(path, []byte("one\ntwo\nthree\nfour\n"), 0o600)
	m, reset, got = read(m)
	if reset || strings.Join(got, ",") != "three,four" {
		t.Fatalf("after the append: %v %v", got, reset)
	}
	m2, _, got := read(m)
	if len(got) != 0 || m2 != m {
		t.Errorf("nothing appended: %v, %+v", got, m2)
	}
	os.WriteFile(path, []byte("ONE\ntwo\nthree\nfour\nfive\n"), 0o600)
	_, reset, got = read(m)
	if !reset || len(got) != 5 {
		t.Errorf("rewritten: reset %v, %v; want every line again", reset, got)
	}
	os.WriteFile(path, []byte("one\n"), 0o600)
	_, reset, got = read(m)
	if !reset || len(got) != 1 {
		t.Errorf("truncated: reset %v, %v", reset, got)
	}
}
