// Package fuzzseed gathers the seed corpora of paddock's fuzz targets from
// every recording it has: the repository's own testdata/ and, when it is
// there, ../shared/fixtures. A fuzz target never skips for a missing
// ../shared: it says so in its log and seeds from testdata/ alone, unless
// SHARED_REQUIRED=1 (set by CI) turns the absence into a failure.
//
// Seeds are bounded: every seed costs the fuzz engine a traced run before
// it starts (about 10 ms in a package that links SQLite), so a target takes
// a spread of lines from every file rather than all of them.
package fuzzseed

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// File is one recorded file: Rel is its slash-separated path from the
// repository root ("testdata/…") or from ../shared ("shared/fixtures/…").
type File struct {
	Rel  string
	Data []byte
}

// maxFileBytes skips files no seed should come from (databases' WAL
// images, model request logs).
const maxFileBytes = 4 << 20

// root is the repository root, found from this file's own place.
func root(tb testing.TB) string {
	tb.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("fuzzseed: cannot locate source file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Files returns every file up to 4 MiB under testdata/ and
// ../shared/fixtures whose Rel path keep accepts, in path order.
func Files(tb testing.TB, keep func(rel string) bool) []File {
	tb.Helper()
	repo := root(tb)
	out := walk(tb, filepath.Join(repo, "testdata"), "testdata", keep)
	shared := filepath.Join(repo, "..", "shared", "fixtures")
	if st, err := os.Stat(shared); err != nil || !st.IsDir() {
		msg := "../shared/fixtures not found (a user's clone has none): seeding from testdata/ alone"
		if os.Getenv("SHARED_REQUIRED") == "1" {
			tb.Fatal("SHARED_REQUIRED=1 but " + msg)
		}
		tb.Log(msg)
		return out
	}
	return append(out, walk(tb, shared, "shared/fixtures", keep)...)
}

func walk(tb testing.TB, dir, prefix string, keep func(string) bool) []File {
	var out []File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = prefix + "/" + filepath.ToSlash(rel)
		if !keep(rel) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > maxFileBytes {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, File{Rel: rel, Data: data})
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		tb.Fatalf("fuzzseed: %v", err)
	}
	return out
}

// Lines returns up to perFile lines of each file (without their newline,
// none longer than maxLen), spread evenly over the file so its head, middle
// and tail all seed, and never the same line twice.
func Lines(files []File, perFile, maxLen int) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	for _, f := range files {
		var lines [][]byte
		for l := range bytes.SplitSeq(f.Data, []byte("\n")) {
			if l = bytes.TrimRight(l, "\r"); len(l) > 0 && len(l) <= maxLen {
				lines = append(lines, l)
			}
		}
		for _, i := range spread(len(lines), perFile) {
			if k := string(lines[i]); !seen[k] {
				seen[k] = true
				out = append(out, slices.Clone(lines[i]))
			}
		}
	}
	return out
}

// Chunks returns up to perFile runs of n consecutive lines of each file
// (joined by newlines, each at most maxLen bytes), spread evenly over it:
// seeds for targets that read a whole file, whose meaning is in how lines
// follow each other.
func Chunks(files []File, n, perFile, maxLen int) [][]byte {
	var out [][]byte
	for _, f := range files {
		lines := bytes.SplitAfter(f.Data, []byte("\n"))
		if len(f.Data) <= maxLen {
			out = append(out, slices.Clone(f.Data))
			continue
		}
		starts := (len(lines) + n - 1) / n
		for _, i := range spread(starts, perFile) {
			chunk := bytes.Join(lines[i*n:min((i+1)*n, len(lines))], nil)
			if len(chunk) > maxLen {
				chunk = chunk[:maxLen]
			}
			out = append(out, slices.Clone(chunk))
		}
	}
	return out
}

// spread picks up to k indexes of [0, n), evenly spaced, first and last
// included.
func spread(n, k int) []int {
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if k == 1 {
		return []int{0}
	}
	out := make([]int, k)
	for i := range out {
		out[i] = i * (n - 1) / (k - 1)
	}
	return out
}

// Of accepts the recordings of one agent (testdata/<agent>-<version>/,
// ../shared/fixtures/real/<agent>-…/ and public/<agent>/) whose name ends
// in one of suffixes.
func Of(agent string, suffixes ...string) func(rel string) bool {
	return func(rel string) bool {
		if !strings.HasPrefix(rel, "testdata/"+agent+"-") && !strings.HasPrefix(rel, "shared/fixtures/real/"+agent+"-") &&
			!strings.HasPrefix(rel, "shared/fixtures/public/"+agent+"/") {
			return false
		}
		for _, s := range suffixes {
			if strings.HasSuffix(rel, s) {
				return true
			}
		}
		return false
	}
}
