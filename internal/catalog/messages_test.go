package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/session"
)

func texts(msgs []session.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.Text)
	}
	return out
}

func TestMessagesCachedByFileSignature(t *testing.T) {
	tests := []struct {
		name      string
		change    func(t *testing.T, path string) // nil: file untouched
		wantTexts []string
		wantReads int // Conversation calls after the second Messages
	}{
		{"unchanged file: cache hit", nil, []string{"one", "two"}, 1},
		{"appended: re-read", func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("three\n"); err != nil {
				t.Fatal(err)
			}
		}, []string{"one", "two", "three"}, 2},
		{"replaced by rename, same size and mtime: re-read", func(t *testing.T, path string) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := path + ".tmp"
			if err := os.WriteFile(tmp, []byte("uno\ndos\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, []string{"uno", "dos"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.txt")
			if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			ts := &txtScanner{name: "txt", dirs: []string{dir}}
			c := New(Options{}, ts)
			ctx := context.Background()
			c.Rescan(ctx)
			k := key("txt", "s")

			first, err := c.Messages(ctx, k)
			if err != nil || !slices.Equal(texts(first), []string{"one", "two"}) {
				t.Fatalf("first Messages = %v, %v", texts(first), err)
			}
			if tt.change != nil {
				tt.change(t, path)
			}
			got, err := c.Messages(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(texts(got), tt.wantTexts) {
				t.Errorf("second Messages = %v, want %v", texts(got), tt.wantTexts)
			}
			if n := ts.conversations(); n != tt.wantReads {
				t.Errorf("Conversation called %d times, want %d", n, tt.wantReads)
			}
		})
	}
}

func TestMessagesWALIsPartOfTheSignature(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	if err := os.WriteFile(db, []byte("db"), 0o600); err != nil {
		t.Fatal(err)
	}
	reads := 0
	fs := &fakeScanner{
		name: "opencode",
		scanFn: func(context.Context, int, []string) ([]session.Info, error) {
			return []session.Info{{ID: "ses_1", Path: db, Updated: t0}}, nil
		},
		conversationFn: func(context.Context, string) ([]session.Message, error) {
			reads++
			return []session.Message{{Role: session.RoleUser, Text: fmt.Sprint(reads)}}, nil
		},
	}
	c := New(Options{}, fs)
	ctx := context.Background()
	c.Rescan(ctx)
	k := key("opencode", "ses_1")
	for range 2 {
		if _, err := c.Messages(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	if reads != 1 {
		t.Fatalf("reads = %d before any WAL, want 1", reads)
	}
	// A new row lands in the WAL; the database file is untouched.
	if err := os.WriteFile(db+"-wal", []byte("frame"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Messages(ctx, k); err != nil {
		t.Fatal(err)
	}
	if reads != 2 {
		t.Fatalf("reads = %d after the WAL grew, want 2", reads)
	}
}

func TestMessagesNotCached(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "h.jsonl")
	if err := os.WriteFile(existing, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		path    string
		convErr error
	}{
		{"no history path", "", nil},
		{"history file missing", filepath.Join(dir, "gone.jsonl"), nil},
		{"conversation failed", existing, errors.New("truncated")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reads := 0
			fs := &fakeScanner{
				name: "claude",
				scanFn: func(context.Context, int, []string) ([]session.Info, error) {
					return []session.Info{{ID: "a", Path: tt.path, Updated: t0}}, nil
				},
				conversationFn: func(context.Context, string) ([]session.Message, error) {
					reads++
					return []session.Message{{Role: session.RoleUser, Text: "hi"}}, tt.convErr
				},
			}
			c := New(Options{}, fs)
			ctx := context.Background()
			c.Rescan(ctx)
			for range 2 {
				_, err := c.Messages(ctx, key("claude", "a"))
				if !errors.Is(err, tt.convErr) {
					t.Fatalf("err = %v, want %v", err, tt.convErr)
				}
			}
			if reads != 2 {
				t.Errorf("Conversation called %d times, want 2 (nothing to cache against)", reads)
			}
		})
	}
}

func TestMessagesCopiesAndBounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shared.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := conversationCacheSize + 1
	reads := map[string]int{}
	var sessions []session.Info
	for i := range n {
		sessions = append(sessions, session.Info{ID: fmt.Sprintf("s%02d", i), Path: path, Updated: t0.Add(time.Duration(i) * time.Second)})
	}
	scannerMsgs := []session.Message{{Role: session.RoleAssistant, Text: "answer"}}
	fs := &fakeScanner{
		name:   "claude",
		scanFn: func(context.Context, int, []string) ([]session.Info, error) { return sessions, nil },
		// Returns the same backing array every time, as a scanner reusing
		// a buffer might.
		conversationFn: func(_ context.Context, id string) ([]session.Message, error) {
			reads[id]++
			return scannerMsgs, nil
		},
	}
	c := New(Options{}, fs)
	ctx := context.Background()
	c.Rescan(ctx)

	got, err := c.Messages(ctx, key("claude", "s00"))
	if err != nil {
		t.Fatal(err)
	}
	got[0].Text = "edited by the caller"
	scannerMsgs[0].Text = "edited by the scanner"
	again, _ := c.Messages(ctx, key("claude", "s00"))
	if again[0].Text != "answer" || reads["s00"] != 1 {
		t.Fatalf("cached copy = %q after %d reads, want the original from one read", again[0].Text, reads["s00"])
	}

	// Fill past the bound: s00 was used first and is evicted by the last.
	for i := 1; i < n; i++ {
		if _, err := c.Messages(ctx, key("claude", fmt.Sprintf("s%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	c.Messages(ctx, key("claude", fmt.Sprintf("s%02d", n-1)))
	c.Messages(ctx, key("claude", "s00"))
	if reads["s00"] != 2 || reads[fmt.Sprintf("s%02d", n-1)] != 1 {
		t.Fatalf("reads = s00:%d last:%d, want s00 evicted (2) and the newest kept (1)", reads["s00"], reads[fmt.Sprintf("s%02d", n-1)])
	}
}

func TestMessagesUnknownSession(t *testing.T) {
	c := New(Options{}, newListScanner("claude"))
	for _, k := range []session.Key{key("claude", "nope"), key("pi", "x")} {
		if _, err := c.Messages(context.Background(), k); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Messages(%v) err = %v, want ErrNotFound", k, err)
		}
	}
}
