package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"paddock/internal/session"
)

// tailTxtScanner is txtScanner with a TailReader: it reads the file's
// lines itself, so txtScanner.conversations counts only full reads.
type tailTxtScanner struct {
	*txtScanner
	mu    sync.Mutex
	tails int
	err   error // returned by TailConversation when set
	// buf is handed back by every TailConversation, as a scanner reusing
	// its buffer would: the catalog must not keep or return it.
	buf []session.Message
}

func (ts *tailTxtScanner) TailConversation(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.tails++
	if ts.err != nil {
		return nil, false, ts.err
	}
	info, err := ts.Session(ctx, id)
	if err != nil {
		return nil, false, err
	}
	data, err := os.ReadFile(info.Path)
	if err != nil {
		return nil, false, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	from := max(len(lines)-n, 0)
	ts.buf = ts.buf[:0]
	for _, l := range lines[from:] {
		ts.buf = append(ts.buf, session.Message{Role: session.RoleUser, Text: l})
	}
	return ts.buf, from == 0, nil
}

func (ts *tailTxtScanner) tailReads() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.tails
}

// numbered is "m1\nm2\n…mN\n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("m" + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

func appendLine(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// tailRig is a catalog over one *.txt session of lines lines, with a
// TailReader, listed by a rescan.
func tailRig(t *testing.T, lines int, opts Options) (*Catalog, *tailTxtScanner, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.txt")
	if err := os.WriteFile(path, []byte(numbered(lines)), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := &tailTxtScanner{txtScanner: &txtScanner{name: "txt", dirs: []string{dir}}}
	c := New(opts, ts)
	c.Rescan(context.Background())
	return c, ts, path
}

func TestRecentMessagesSources(t *testing.T) {
	ctx := context.Background()
	k := key("txt", "s")
	tests := []struct {
		name  string
		lines int
		n     int
		// before runs ahead of the RecentMessages under test.
		before    func(t *testing.T, c *Catalog, path string)
		wantTexts []string
		wantTotal int
		wantTails int // TailConversation calls, before included
		wantFull  int // Conversation calls, before included
	}{
		{"long, not cached: the tail, total unknown", 10, 3, nil,
			[]string{"m8", "m9", "m10"}, -1, 1, 0},
		{"short: the tail is the whole, total known", 2, 3, nil,
			[]string{"m1", "m2"}, 2, 1, 0},
		{"n below 1 is 1", 10, 0, nil,
			[]string{"m10"}, -1, 1, 0},
		{"whole conversation cached: no tail read, total known", 10, 3,
			func(t *testing.T, c *Catalog, _ string) {
				if _, err := c.Messages(ctx, k); err != nil {
					t.Fatal(err)
				}
			},
			[]string{"m8", "m9", "m10"}, 10, 0, 1},
		{"cached whole is stale after an append: the tail", 10, 3,
			func(t *testing.T, c *Catalog, path string) {
				if _, err := c.Messages(ctx, k); err != nil {
					t.Fatal(err)
				}
				appendLine(t, path, "m11")
			},
			[]string{"m9", "m10", "m11"}, -1, 1, 1},
		{"tail cached for the same file and n", 10, 3,
			func(t *testing.T, c *Catalog, _ string) {
				if _, _, err := c.RecentMessages(ctx, k, 3); err != nil {
					t.Fatal(err)
				}
			},
			[]string{"m8", "m9", "m10"}, -1, 1, 0},
		{"a cached longer tail answers a shorter one", 10, 2,
			func(t *testing.T, c *Catalog, _ string) {
				if _, _, err := c.RecentMessages(ctx, k, 5); err != nil {
					t.Fatal(err)
				}
			},
			[]string{"m9", "m10"}, -1, 1, 0},
		{"a cached shorter tail does not answer a longer one", 10, 4,
			func(t *testing.T, c *Catalog, _ string) {
				if _, _, err := c.RecentMessages(ctx, k, 2); err != nil {
					t.Fatal(err)
				}
			},
			[]string{"m7", "m8", "m9", "m10"}, -1, 2, 0},
		{"cached tail is stale after an append", 10, 3,
			func(t *testing.T, c *Catalog, path string) {
				if _, _, err := c.RecentMessages(ctx, k, 3); err != nil {
					t.Fatal(err)
				}
				appendLine(t, path, "m11")
			},
			[]string{"m9", "m10", "m11"}, -1, 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ts, path := tailRig(t, tt.lines, Options{})
			if tt.before != nil {
				tt.before(t, c, path)
			}
			got, total, err := c.RecentMessages(ctx, k, tt.n)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(texts(got), tt.wantTexts) || total != tt.wantTotal {
				t.Errorf("RecentMessages = %v, total %d; want %v, total %d", texts(got), total, tt.wantTexts, tt.wantTotal)
			}
			if n := ts.tailReads(); n != tt.wantTails {
				t.Errorf("TailConversation called %d times, want %d", n, tt.wantTails)
			}
			if n := ts.conversations(); n != tt.wantFull {
				t.Errorf("Conversation called %d times, want %d", n, tt.wantFull)
			}
		})
	}
}

// A tail is never taken for the whole conversation: Messages after it
// reads everything. A tail that was the whole conversation is.
func TestRecentMessagesTailIsNotTheWhole(t *testing.T) {
	ctx := context.Background()
	k := key("txt", "s")
	for _, tt := range []struct {
		lines    int
		wantFull int
	}{{10, 1}, {2, 0}} {
		c, ts, _ := tailRig(t, tt.lines, Options{})
		if _, _, err := c.RecentMessages(ctx, k, 3); err != nil {
			t.Fatal(err)
		}
		all, err := c.Messages(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) != tt.lines || ts.conversations() != tt.wantFull {
			t.Errorf("%d lines: Messages gave %d after %d full reads, want %d after %d", tt.lines, len(all), ts.conversations(), tt.lines, tt.wantFull)
		}
	}
}

func TestRecentMessagesFromDiskCache(t *testing.T) {
	ctx := context.Background()
	k := key("txt", "s")
	cacheDir := t.TempDir()
	lines := diskCacheMin + 10 // shorter ones are not worth a file
	c, _, path := tailRig(t, lines, Options{CacheDir: cacheDir})
	if _, err := c.Messages(ctx, k); err != nil {
		t.Fatal(err)
	}
	// A new catalog (paddock restarted) over the same cache and file.
	ts := &tailTxtScanner{txtScanner: &txtScanner{name: "txt", dirs: []string{filepath.Dir(path)}}}
	c2 := New(Options{CacheDir: cacheDir}, ts)
	c2.Rescan(ctx)
	got, total, err := c2.RecentMessages(ctx, k, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"m" + strconv.Itoa(lines-1), "m" + strconv.Itoa(lines)}
	if !slices.Equal(texts(got), want) || total != lines || ts.tailReads() != 0 || ts.conversations() != 0 {
		t.Fatalf("got %v total %d after %d tail and %d full reads; want the disk cache's", texts(got), total, ts.tailReads(), ts.conversations())
	}
}

// Callers and scanners may both change their slices afterwards; neither
// reaches what the catalog keeps.
func TestRecentMessagesCopies(t *testing.T) {
	ctx := context.Background()
	k := key("txt", "s")
	tests := []struct {
		name  string
		lines int
		warm  func(c *Catalog) // fills the cache the second call reads
	}{
		{"tail", 10, func(*Catalog) {}},
		{"tail that is the whole", 3, func(*Catalog) {}},
		{"whole conversation", 10, func(c *Catalog) { c.Messages(ctx, k) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ts, _ := tailRig(t, tt.lines, Options{})
			tt.warm(c)
			first, _, err := c.RecentMessages(ctx, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			want := texts(first)
			first[0].Text = "edited by the caller"
			for i := range ts.buf {
				ts.buf[i].Text = "edited by the scanner"
			}
			again, _, err := c.RecentMessages(ctx, k, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(texts(again), want) {
				t.Fatalf("second answer %v, want %v", texts(again), want)
			}
			if ts.tailReads() > 1 {
				t.Fatalf("%d tail reads: the second answer did not come from the cache", ts.tailReads())
			}
		})
	}
}

func TestRecentMessagesWithoutTailReader(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.txt"), []byte(numbered(10)), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := &txtScanner{name: "txt", dirs: []string{dir}}
	c := New(Options{}, ts)
	c.Rescan(ctx)
	for range 2 {
		got, total, err := c.RecentMessages(ctx, key("txt", "s"), 4)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(texts(got), []string{"m7", "m8", "m9", "m10"}) || total != 10 {
			t.Fatalf("got %v total %d", texts(got), total)
		}
	}
	if ts.conversations() != 1 {
		t.Fatalf("Conversation called %d times, want 1 (then cached)", ts.conversations())
	}
}

func TestRecentMessagesErrors(t *testing.T) {
	ctx := context.Background()
	c, ts, _ := tailRig(t, 10, Options{})
	for _, k := range []session.Key{key("txt", "nope"), key("pi", "x")} {
		if _, _, err := c.RecentMessages(ctx, k, 3); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("RecentMessages(%v) err = %v, want ErrNotFound", k, err)
		}
	}
	broken := errors.New("truncated")
	ts.err = broken
	for range 2 {
		if _, _, err := c.RecentMessages(ctx, key("txt", "s"), 3); !errors.Is(err, broken) {
			t.Fatalf("err = %v, want the scanner's", err)
		}
	}
	if n := ts.tailReads(); n != 2 {
		t.Fatalf("TailConversation called %d times, want 2 (a failure is not cached)", n)
	}
}
