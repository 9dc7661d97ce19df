package history

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/history/historytest"
)

// numbered is k lines of 9 bytes: "line 000\n", "line 001\n"…
func numbered(k int) []byte {
	var b bytes.Buffer
	for i := range k {
		fmt.Fprintf(&b, "line %03d\n", i)
	}
	return b.Bytes()
}

func write(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func open(t *testing.T, path string) *TailFile {
	t.Helper()
	f, err := OpenTail(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestGrow: each window is the file's end after its first newline, the
// windows double while they are under half the file, and each byte is
// read once however often the window grows.
func TestGrow(t *testing.T) {
	long := numbered(200) // 1800 bytes
	cases := []struct {
		name  string
		data  []byte
		first int64
		sizes []int64 // the windows Grow yields
	}{
		{"doubling", long, 64, []int64{64, 128, 256, 512}},
		{"one window", long, 600, []int64{600}},
		{"half the file at once", long, 900, nil},
		{"just under half", long, 899, []int64{899}},
		{"short lines", []byte("a\nbb\nccc\ndddd\neeeee\nffffff\n"), 3, []int64{3, 6, 12}},
		{"no newline in the windows", bytes.Repeat([]byte("y"), 100), 8, []int64{8, 16, 32}},
		{"empty file", nil, 64, nil},
		{"no first window", long, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := open(t, write(t, c.data))
			var got []int64
			for lines := range f.Window().Grow(c.first) {
				w := c.first << len(got)
				got = append(got, w)
				part := c.data[int64(len(c.data))-w:]
				var want []byte
				if i := bytes.IndexByte(part, '\n'); i >= 0 {
					want = part[i+1:]
				}
				if !bytes.Equal(lines, want) || (lines == nil) != (want == nil) {
					t.Errorf("window %d: %q, want %q", w, lines, want)
				}
				if f.Read() != w {
					t.Errorf("window %d: %d bytes read in all", w, f.Read())
				}
			}
			if !slices.Equal(got, c.sizes) {
				t.Errorf("windows %v, want %v", got, c.sizes)
			}
		})
	}
}

// TestWhole: after any number of windows, the whole read is the file's
// first Size bytes, a line appended since Open left out, and it reads only
// what the windows lack.
func TestWhole(t *testing.T) {
	data := numbered(200) // 1800 bytes: windows of 64 to 512 bytes
	cases := []struct {
		first   int64
		windows int   // how many windows the caller reads
		read    int64 // bytes they read
	}{
		{900, 0, 0}, // none: half the file at once
		{64, 1, 64},
		{64, 2, 128},
		{64, 4, 512},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.windows, " windows"), func(t *testing.T) {
			path := write(t, data)
			f := open(t, path)
			w := f.Window()
			k := 0
			for range w.Grow(c.first) {
				if k++; k == c.windows {
					break // as a caller whose parser answered
				}
			}
			if k != c.windows || f.Read() != c.read {
				t.Fatalf("%d windows, %d bytes read; want %d windows, %d bytes", k, f.Read(), c.windows, c.read)
			}
			if err := os.WriteFile(path, append(slices.Clone(data), "line 200\n"...), 0o644); err != nil {
				t.Fatal(err)
			}
			r, end := w.Whole()
			got, err := io.ReadAll(io.NewSectionReader(r, 0, end))
			if err != nil || !bytes.Equal(got, data) || end != int64(len(data)) {
				t.Fatalf("whole read: %d bytes to %d, %v; want the %d first", len(got), end, err, len(data))
			}
			if f.Read() != int64(len(data)) {
				t.Errorf("%d bytes read in all, want %d", f.Read(), len(data))
			}
		})
	}
}

// TestShrunk: a file cut short under the windows stops them, and the
// whole read is of the file as it is now, as a full read would see it.
func TestShrunk(t *testing.T) {
	data := numbered(200)
	path := write(t, data)
	f := open(t, path)
	w := f.Window()
	k := 0
	for range w.Grow(64) {
		k++
		if err := os.Truncate(path, 100); err != nil {
			t.Fatal(err)
		}
	}
	if k != 1 {
		t.Errorf("%d windows after the file shrank, want 1", k)
	}
	r, end := w.Whole()
	got, err := io.ReadAll(io.NewSectionReader(r, 0, end))
	if err != nil || end != math.MaxInt64 || !bytes.Equal(got, data[:100]) {
		t.Errorf("whole read: %q to %d, %v; want the file's 100 bytes now", got, end, err)
	}
}

// TestReadAt reads the file's first Size bytes through a window in the
// middle of the file: before it, across its edge, inside it, at and past
// the end.
func TestReadAt(t *testing.T) {
	data := numbered(20) // 180 bytes; the window holds the last 64
	f := open(t, write(t, data))
	w := f.Window()
	for range w.Grow(64) {
		break
	}
	cases := []struct {
		off, n int64
		want   []byte
		err    error
	}{
		{0, 10, data[:10], nil},
		{100, 30, data[100:130], nil},
		{116, 64, data[116:], nil},
		{150, 10, data[150:160], nil},
		{170, 20, data[170:], io.EOF},
		{10, 200, data[10:], io.EOF},
		{180, 5, nil, io.EOF},
		{300, 5, nil, io.EOF},
	}
	for _, c := range cases {
		p := make([]byte, c.n)
		k, err := w.ReadAt(p, c.off)
		if !bytes.Equal(p[:k], c.want) || !errors.Is(err, c.err) {
			t.Errorf("ReadAt(%d bytes at %d) = %q, %v; want %q, %v", c.n, c.off, p[:k], err, c.want, c.err)
		}
	}
}

// TestReadOnly: a tail read, windows and whole, leaves the file exactly as
// it was.
func TestReadOnly(t *testing.T) {
	path := write(t, numbered(200))
	before := historytest.TreeState(t, filepath.Dir(path))
	f := open(t, path)
	w := f.Window()
	for range w.Grow(64) {
	}
	r, end := w.Whole()
	if _, err := io.Copy(io.Discard, io.NewSectionReader(r, 0, end)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	historytest.SameTree(t, before, historytest.TreeState(t, filepath.Dir(path)))
}

func TestOpenMissing(t *testing.T) {
	if _, err := OpenTail(filepath.Join(t.TempDir(), "gone.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open = %v, want fs.ErrNotExist", err)
	}
}

// normalized is data as a LineReader hands it on: each line with its
// ending, a line over MaxLine clipped.
func normalized(t *testing.T, data []byte) []byte {
	t.Helper()
	var out []byte
	ls := NewLineReader(bytes.NewReader(data), MaxLine)
	for {
		line, _, err := ls.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, line...), ls.EOL()...)
	}
}

// TestGrowLongLines: with lines over MaxLine, each window is the file's
// end from its first line start on, as a LineReader hands it on (the long
// lines clipped), and what a window holds of a line whose start it has
// not found is never more than MaxLine.
func TestGrowLongLines(t *testing.T) {
	long := func(c string) []byte {
		return []byte(`{"text":"` + strings.Repeat(c, MaxLine+MaxLine/2) + `"}` + "\n")
	}
	short := []byte(`{"text":"short"}` + "\n")
	cases := []struct {
		name  string
		parts [][]byte
	}{
		{"long line last", [][]byte{short, short, long("a")}},
		{"long line between", [][]byte{short, long("b"), short, short}},
		{"two long lines", [][]byte{short, long("c"), long("d"), short}},
		{"only a long line", [][]byte{long("e")}},
		{"a long line without a newline", [][]byte{short, bytes.TrimSuffix(long("f"), []byte("\n"))}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := bytes.Join(c.parts, nil)
			f := open(t, write(t, data))
			w := f.Window()
			windows := 0
			for lines := range w.Grow(1 << 10) {
				windows++
				from := int64(len(data)) - (1<<10)<<(windows-1)
				var want []byte
				if i := bytes.IndexByte(data[from:], '\n'); i >= 0 {
					want = normalized(t, data[from+int64(i)+1:])
				}
				if !bytes.Equal(lines, want) {
					t.Fatalf("window %d: %d bytes, want %d", windows, len(lines), len(want))
				}
				if held := len(w.b.head) + len(lines); held > 2*MaxLine {
					t.Fatalf("window %d holds %d bytes", windows, held)
				}
			}
			r, end := w.Whole()
			got, err := io.ReadAll(io.NewSectionReader(r, 0, end))
			if err != nil {
				t.Fatal(err)
			}
			if want := normalized(t, data); !bytes.Equal(normalized(t, got), want) {
				t.Errorf("whole read: %d bytes, want %d as lines", len(got), len(want))
			}
			if f.Read() > 2*int64(len(data)) {
				t.Errorf("read %d bytes of %d", f.Read(), len(data))
			}
		})
	}
}

// TestBackBefore reads a file backwards in parts of every size: the
// lines handed back, in front of each other, are the file's.
func TestBackBefore(t *testing.T) {
	data := []byte("a\nbb\n\nccc\r\ndddd\neeeee")
	for step := int64(1); step <= int64(len(data))+1; step++ {
		f := open(t, write(t, data))
		b := f.Back()
		var got []byte
		for from := int64(len(data)); from > 0; {
			from = max(from-step, 0)
			r, err := b.Before(from)
			if err != nil {
				t.Fatal(err)
			}
			if r == nil {
				continue
			}
			part, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(part)+len(got)) != int64(len(data))-b.Start() {
				t.Fatalf("step %d: lines from %d are %q%q", step, b.Start(), part, got)
			}
			got = append(part, got...)
		}
		if !bytes.Equal(got, data) || f.Read() != int64(len(data)) {
			t.Errorf("step %d: %q, %d bytes read; want the file, each byte once", step, got, f.Read())
		}
	}
}
