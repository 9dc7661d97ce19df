package history

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

// Reason gives the user the kind of a real failure, never its text
// (which names the path).
func TestReason(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	_, loopErr := os.Open(loop)
	_, missingErr := os.Open(filepath.Join(dir, "missing"))
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, dirErr := d.Read(make([]byte, 1))
	d.Close()
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+junk+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, sqlErr := db.Exec("SELECT * FROM sqlite_master")
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()

	tests := []struct {
		name string
		err  error
		want string
	}{
		{"symlink loop", loopErr, "too many levels of symbolic links"},
		{"missing", missingErr, "no such file or directory"},
		{"a directory read", dirErr, "is a directory"},
		{"not a database", sqlErr, "it is not a SQLite database"},
		{"wrapped", fmt.Errorf("codex: read %s: %w", junk, sqlErr), "it is not a SQLite database"},
		{"deadline", ctx.Err(), "reading it took too long"},
		{"not regular", fmt.Errorf("%s: %w", junk, ErrNotRegular), "it is not a regular file"},
		{"anything else", errors.New("parse /secret/path: bad"), "an unexpected error (the log has the details)"},
		{"none", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil && tt.want != "" {
				t.Fatal("the failure did not happen")
			}
			if got := Reason(tt.err); got != tt.want {
				t.Errorf("Reason(%v) = %q, want %q", tt.err, got, tt.want)
			}
			if got := Reason(tt.err); strings.Contains(got, dir) {
				t.Errorf("Reason names the path: %q", got)
			}
		})
	}
}

func TestPartlyRead(t *testing.T) {
	tests := []struct {
		bad, good int
		stopped   error
		want      string
	}{
		{0, 5, nil, ""},
		{0, 0, nil, ""},
		{1, 0, nil, "its only line could not be read"},
		{4, 0, nil, "none of its 4 lines could be read"},
		{1, 9, nil, "1 line could not be read"},
		{3, 9, nil, "3 lines could not be read"},
		{0, 9, ErrNotRegular, "reading stopped early: it is not a regular file"},
		{2, 9, ErrNotRegular, "2 lines could not be read; reading stopped early: it is not a regular file"},
	}
	for _, tt := range tests {
		if got := PartlyRead(tt.bad, tt.good, "line", tt.stopped); got != tt.want {
			t.Errorf("PartlyRead(%d, %d, %v) = %q, want %q", tt.bad, tt.good, tt.stopped, got, tt.want)
		}
	}
}

func TestStatHistory(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mk := func(name string, make func(path string) error) string {
		p := filepath.Join(dir, name)
		if err := make(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		path   string
		ok     bool
		reason string // Reason(err) when ok
	}{
		{"regular", file, true, ""},
		{"link to a file", mk("link.jsonl", func(p string) error { return os.Symlink(file, p) }), true, ""},
		{"missing", filepath.Join(dir, "missing.jsonl"), false, ""},
		{"dangling link", mk("dangling.jsonl", func(p string) error { return os.Symlink("nowhere", p) }), false, ""},
		{"directory", mk("dir.jsonl", func(p string) error { return os.Mkdir(p, 0o755) }), false, ""},
		{"link loop", mk("loop.jsonl", func(p string) error { return os.Symlink("loop.jsonl", p) }), true, "too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ok, err := StatHistory(tt.path, nil)
			if ok != tt.ok {
				t.Fatalf("ok = %v (err %v), want %v", ok, err, tt.ok)
			}
			if !ok {
				return
			}
			if st == nil || Reason(err) != tt.reason {
				t.Errorf("st %v, reason %q; want %q", st, Reason(err), tt.reason)
			}
		})
	}
}

// A scan's problems replace the last scan's only when it ends; a scan
// cut short leaves them.
func TestProblems(t *testing.T) {
	var p Problems
	p.Add("/outside/a/scan", "dropped")
	if got := p.Last(); len(got) != 0 {
		t.Fatalf("Last before any scan = %v", got)
	}
	p.Begin()
	p.Add("/b", "cannot be read: permission denied")
	p.Add("/a", "cannot be read: input/output error")
	p.Add("/a", "a second reason for the same source")
	p.End()
	want := []session.SourceProblem{{Source: "/a", Reason: "cannot be read: input/output error"}, {Source: "/b", Reason: "cannot be read: permission denied"}}
	if got := p.Last(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Last = %v, want %v", got, want)
	}
	p.Begin() // cut short: never ends
	if got := p.Last(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Last during a scan = %v, want the last scan's", got)
	}
	p.Begin()
	p.End()
	if got := p.Last(); len(got) != 0 {
		t.Errorf("Last after a clean scan = %v", got)
	}
}
