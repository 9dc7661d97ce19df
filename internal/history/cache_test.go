package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The cache answers a file's value only at the signature it was read at:
// an append, a touch, a replacement by rename (a new inode) and removal
// all miss, and Prune keeps exactly the paths a scan saw.
func TestSummaryCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.jsonl")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("one\n")
	var c SummaryCache[Sig, string]
	if _, ok := c.Get(path, StatSig(path)); ok || c.Len() != 0 {
		t.Fatal("the zero cache holds something")
	}
	c.Put(path, StatSig(path), "v1")
	at := StatSig(path)

	tests := []struct {
		name   string
		change func()
		hit    bool
	}{
		{"unchanged", func() {}, true},
		{"appended", func() {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("two\n")
			f.Close()
		}, false},
		{"touched", func() {
			if err := os.Chtimes(path, time.Now(), time.Unix(1, 0)); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"replaced by rename, same size and mtime", func() {
			tmp := filepath.Join(dir, "tmp")
			if err := os.WriteFile(tmp, []byte("one\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(tmp, at.Mtime(), at.Mtime()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, at.Ino == 0}, // without inodes a same-size, same-mtime copy is the same file
		{"removed", func() { os.Remove(path) }, false},
	}
	for _, tt := range tests {
		write("one\n")
		if err := os.Chtimes(path, at.Mtime(), at.Mtime()); err != nil {
			t.Fatal(err)
		}
		at = StatSig(path)
		c.Put(path, at, "v1")
		tt.change()
		v, ok := c.Get(path, StatSig(path))
		if ok != tt.hit || ok && v != "v1" {
			t.Errorf("%s: Get = %q, %v; want a hit %v", tt.name, v, ok, tt.hit)
		}
		if v, sig, ok := c.Last(path); !ok || v != "v1" || sig != at {
			t.Errorf("%s: Last = %q, %+v, %v; want what was put at %+v", tt.name, v, sig, ok, at)
		}
	}
}

func TestSummaryCachePrune(t *testing.T) {
	tests := []struct {
		name string
		put  []string
		seen []string
		want []string
	}{
		{"empty", nil, []string{"a"}, nil},
		{"all seen", []string{"a", "b"}, []string{"a", "b"}, []string{"a", "b"}},
		{"some seen", []string{"a", "b", "c"}, []string{"b", "x"}, []string{"b"}},
		{"none seen", []string{"a", "b"}, nil, nil},
	}
	for _, tt := range tests {
		var c SummaryCache[Sig, int]
		for i, p := range tt.put {
			c.Put(p, Sig{Size: int64(i)}, i)
		}
		seen := make(map[string]bool)
		for _, p := range tt.seen {
			seen[p] = true
		}
		seen["never put"] = false
		c.Prune(seen)
		var got []string
		for p := range c.All() {
			got = append(got, p)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.want) || c.Len() != len(tt.want) {
			t.Errorf("%s: kept %q (Len %d), want %q", tt.name, got, c.Len(), tt.want)
		}
	}
}

func TestSummaryCachePaths(t *testing.T) {
	var c SummaryCache[[2]Sig, string]
	c.Put("a", [2]Sig{}, "x")
	c.Put("b", [2]Sig{{Size: 1}}, "y")
	c.Put("c", [2]Sig{}, "x")
	got := c.Paths(func(v string) bool { return v == "x" })
	slices.Sort(got)
	if !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("Paths = %q", got)
	}
	c.Forget("a", "nothing")
	if got := c.Paths(func(v string) bool { return v == "x" }); !slices.Equal(got, []string{"c"}) {
		t.Errorf("after Forget(a), Paths = %q", got)
	}
	if _, ok := c.Get("b", [2]Sig{}); ok {
		t.Error("a composite signature matched another")
	}
}
