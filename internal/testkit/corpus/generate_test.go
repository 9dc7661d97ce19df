package corpus

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestGenerate: the generated machine has the sessions asked for, most of
// them Claude Code's and Codex's, spread over the days asked for; grown
// sessions hold at least their size; the markers are in exactly the
// marked sessions, never in a first prompt; the same seed writes the same
// bytes, another seed marks other sessions.
func TestGenerate(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	o := Options{Sessions: 60, Big: 1, BigSize: 1 << 20, Grown: 4, GrownMin: 64 << 10, GrownMax: 128 << 10, Marked: 3, Now: now}
	gen := func(seed uint64) (string, Report) {
		home := t.TempDir()
		o.Seed = seed
		c, rep, err := Generate(home, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return home, rep
	}
	home, rep := gen(7)
	if rep.Counts["claude"] != 21 || rep.Counts["codex"] != 21 || rep.Counts["opencode"] != 5 || rep.Counts["pi"] != 4 {
		t.Errorf("counts %v", rep.Counts)
	}
	if len(rep.Big) != 1 || rep.Grown != 4 || len(rep.Marked) != 3 {
		t.Fatalf("report %+v", rep)
	}
	if fi, err := os.Stat(rep.Big[0]); err != nil || fi.Size() < 1<<20 {
		t.Errorf("the big session: %v %v", fi, err)
	}
	var oldest, newest time.Time
	var withMarker []string
	_ = filepath.Walk(home, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		if oldest.IsZero() || fi.ModTime().Before(oldest) {
			oldest = fi.ModTime()
		}
		if fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
		data, _ := os.ReadFile(path)
		if bytes.Contains(data, []byte(Marker)) {
			withMarker = append(withMarker, path)
			if !bytes.Contains(data, []byte(Phrase)) {
				t.Errorf("%s has the word but not the phrase", path)
			}
		}
		return nil
	})
	slices.Sort(withMarker)
	if !slices.Equal(withMarker, rep.Marked) {
		t.Errorf("the marker is in %q, want %q", withMarker, rep.Marked)
	}
	if span := newest.Sub(oldest); span < 80*24*time.Hour || span > 90*24*time.Hour {
		t.Errorf("the sessions span %s, want about 90 days", span)
	}
	again, rep2 := gen(7)
	if a, b := sums(t, home), sums(t, again); a != b || len(a) == 0 || !slices.Equal(rel(home, rep.Marked), rel(again, rep2.Marked)) {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Errorf("first difference:\n%s\n%s", al[i], bl[i])
				break
			}
		}
		t.Error("the same seed wrote other files")
	}
	other, rep3 := gen(8)
	if slices.Equal(rel(home, rep.Marked), rel(other, rep3.Marked)) {
		t.Error("another seed marked the same sessions")
	}
}

// sums is every file under root (but the SQLite databases, whose pages
// SQLite lays out as it likes) with its hash, the root's path taken out
// of names and contents.
func sums(t *testing.T, root string) string {
	t.Helper()
	norm := strings.NewReplacer(root, "HOME", claudeProjectDir(root), "-HOME")
	var lines []string
	_ = filepath.Walk(root, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() || strings.Contains(path, ".db") || strings.Contains(path, ".sqlite") {
			return err
		}
		data, _ := os.ReadFile(path)
		sum := sha256.Sum256([]byte(norm.Replace(string(data))))
		// Cursor's folders are named by a hash of the project's path.
		name := md5Dir.ReplaceAllString(norm.Replace(path), "/MD5/")
		lines = append(lines, fmt.Sprintf("%s %x %d", name, sum, fi.ModTime().Unix()))
		return nil
	})
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

var md5Dir = regexp.MustCompile(`/[0-9a-f]{32}/`)

func rel(root string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		r, _ := filepath.Rel(root, p)
		out[i] = strings.ReplaceAll(r, claudeProjectDir(root), "-HOME")
	}
	return out
}
