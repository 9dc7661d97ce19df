package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/session"
)

// longConversation is a conversation long enough to be cached on disk.
func longConversation(tag string) []session.Message {
	msgs := make([]session.Message, diskCacheMin)
	for i := range msgs {
		msgs[i] = session.Message{Role: session.RoleUser, Text: fmt.Sprintf("%s %d", tag, i), Time: t0}
	}
	return msgs
}

// TestDiskCacheServesARestartedCatalog: a second catalog (paddock after a
// restart) reads a long conversation from the cache, not from its history,
// until the history changes; the cache is safe to delete.
func TestDiskCacheServesARestartedCatalog(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "s1.jsonl")
	if err := os.WriteFile(hist, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cacheDir := filepath.Join(dir, "cache")
	reads := 0
	scanner := func() *fakeScanner {
		return &fakeScanner{
			name: "claude",
			scanFn: func(context.Context, int, []string) ([]session.Info, error) {
				return []session.Info{{ID: "s1", Path: hist, Updated: t0}}, nil
			},
			conversationFn: func(context.Context, string) ([]session.Message, error) {
				reads++
				return longConversation(fmt.Sprint("read", reads)), nil
			},
		}
	}
	ctx := context.Background()
	k := key("claude", "s1")
	open := func() *Catalog {
		c := New(Options{CacheDir: cacheDir}, scanner())
		c.Rescan(ctx)
		return c
	}
	want := func(c *Catalog, tag string, wantReads int) {
		t.Helper()
		msgs, err := c.Messages(ctx, k)
		if err != nil || len(msgs) != diskCacheMin || msgs[0].Text != tag+" 0" || !msgs[0].Time.Equal(t0) || reads != wantReads {
			t.Fatalf("messages %v… (%d) %v, reads %d; want %q from %d reads", texts(msgs)[:1], len(msgs), err, reads, tag, wantReads)
		}
	}
	want(open(), "read1", 1)
	want(open(), "read1", 1) // a new catalog: from the disk
	if err := os.WriteFile(hist, []byte("x\ny\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want(open(), "read2", 2) // the history changed
	if err := os.RemoveAll(cacheDir); err != nil {
		t.Fatal(err)
	}
	want(open(), "read3", 3) // deleted: read again, and cached again
	want(open(), "read3", 3)
	// A file that does not decode is a miss.
	files, _ := filepath.Glob(filepath.Join(cacheDir, "*.gob"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	if err := os.WriteFile(files[0], []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	want(open(), "read4", 4)
}

func TestDiskCacheStaysWithinItsBound(t *testing.T) {
	dir := t.TempDir()
	d, err := newDiskCache(dir, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	sig := fileSignature{Path: "/h", Size: 1}
	for i := range 100 {
		if err := d.put(key("claude", fmt.Sprint(i)), sig, longConversation(fmt.Sprint("session ", i))); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		fi, _ := f.Info()
		total += fi.Size()
	}
	if total > 64<<10 || len(files) == 0 {
		t.Fatalf("%d files, %d bytes; want at most 64 KiB", len(files), total)
	}
	// The newest survive, the oldest went.
	if _, ok := d.get(key("claude", "99"), sig); !ok {
		t.Fatal("the newest conversation was pruned")
	}
	if _, ok := d.get(key("claude", "0"), sig); ok {
		t.Fatal("the oldest conversation was kept past the bound")
	}
	// Short conversations are not worth a file.
	if err := d.put(key("claude", "short"), sig, longConversation("x")[:3]); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.get(key("claude", "short"), sig); ok {
		t.Fatal("a short conversation was cached")
	}
	if got := slices.IndexFunc(files, func(e os.DirEntry) bool { return e.Name()[0] == '.' }); got >= 0 {
		t.Fatalf("a temporary file was left: %s", files[got].Name())
	}
}
