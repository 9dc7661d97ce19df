package history

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// read returns every line of in as Next reports it: the text ("CLIPPED "
// and the text for a line over the limit) and the error that ended
// reading.
func read(t *testing.T, r *LineReader) (got []string, end error) {
	t.Helper()
	for range 1000 {
		line, clipped, err := r.Next()
		if err != nil {
			return got, err
		}
		if clipped {
			got = append(got, "CLIPPED "+string(line))
		} else {
			got = append(got, string(line))
		}
	}
	t.Fatal("Next never ended")
	return nil, nil
}

func TestNext(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the bufio buffer
	// A string over clipString keeps clipString bytes and says so.
	longJSON := `["` + strings.Repeat("x", 300<<10) + `"]`
	clippedJSON := `["` + strings.Repeat("x", clipString) + `…\n\n[paddock clipped this text: it is 300 KB, the first 256 KB are shown]"]`
	tests := []struct {
		name string
		in   string
		max  int
		want []string
	}{
		{"empty", "", 100, nil},
		{"lines", "a\nb\n", 100, []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", 100, []string{"a", "b"}},
		{"blank lines stay", "\n\na\n", 100, []string{"", "", "a"}},
		{"unterminated last line", "a\nb", 100, []string{"a", "b"}},
		{"only the line ending is trimmed", " a \r\n", 100, []string{" a "}},
		// The limit counts the line with its ending, allowing two bytes for
		// "\r\n": with "\n" alone one byte more fits. A line over it that is
		// not JSON comes back clipped and still no JSON (the byte that
		// showed it, then nothing).
		{"at the limit", "[12]\r\n[123]\n[1234]\nabcde\r\n", 4, []string{"[12]", "[123]", "CLIPPED [1234]", "CLIPPED abcde!"}},
		{"too long, then reading goes on", "ab\n" + long + "\ncd\n", 1 << 10, []string{"ab", "CLIPPED xxxxx!", "cd"}},
		{"too long at the end, unterminated", "ab\n" + long, 1 << 10, []string{"ab", "CLIPPED xxxxx!"}},
		{"long but under the limit", long + "\nz\n", 1 << 20, []string{long, "z"}},
		{"JSON over the limit, clipped", "ab\n" + longJSON + "\ncd\n", 1 << 10, []string{"ab", "CLIPPED " + clippedJSON, "cd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := read(t, NewLineReader(strings.NewReader(tt.in), tt.max))
			if !errors.Is(err, io.EOF) {
				t.Fatalf("ended with %v, want io.EOF", err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("lines = %.40q, want %.40q", got, tt.want)
			}
		})
	}
}

func TestNextAfterEOF(t *testing.T) {
	r := NewLineReader(strings.NewReader("a"), 10)
	for i, want := range []error{nil, io.EOF, io.EOF} {
		if _, _, err := r.Next(); err != want {
			t.Fatalf("call %d: %v, want %v", i, err, want)
		}
	}
}

func TestOffset(t *testing.T) {
	in := "one\r\n" + strings.Repeat("y", 100) + "\nthree"
	r := NewLineReader(strings.NewReader(in), 10)
	var starts []int64
	for {
		start := r.Offset()
		if _, _, err := r.Next(); err != nil {
			break
		}
		starts = append(starts, start)
	}
	want := []int64{0, 5, 106}
	if len(starts) != len(want) || starts[0] != want[0] || starts[1] != want[1] || starts[2] != want[2] {
		t.Errorf("line starts = %v, want %v", starts, want)
	}
	if r.Offset() != int64(len(in)) {
		t.Errorf("Offset at the end = %d, want %d", r.Offset(), len(in))
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	r := NewLineReader(io.MultiReader(strings.NewReader("a\npart"), iotest.ErrReader(boom)), 100)
	got, err := read(t, r)
	if !errors.Is(err, boom) {
		t.Fatalf("ended with %v, want the read error", err)
	}
	if strings.Join(got, "|") != "a" {
		t.Errorf("lines = %q, want only the complete line before the error", got)
	}
	if _, _, err := r.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("after the error: %v, want io.EOF", err)
	}
}

func TestKeepLong(t *testing.T) {
	big := func(typ string) string {
		return `{"type":"` + typ + `","x":"` + strings.Repeat("z", 100<<10) + `"}`
	}
	var seen []string
	keep := func(prefix []byte) bool {
		if len(prefix) != bufSize {
			t.Errorf("keep saw %d bytes, want %d", len(prefix), bufSize)
		}
		seen = append(seen, string(prefix[:12]))
		return bytes.HasPrefix(prefix, []byte(`{"type":"a"`))
	}
	in := `{"type":"b"}` + "\n" + big("a") + "\n" + big("b") + "\n" + `{"type":"c"}` + "\n" + big("b")
	got, err := read(t, NewLineReader(strings.NewReader(in), 1<<20).KeepLong(keep))
	if !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	// A dropped line comes back empty (not too long); a dropped last line
	// without a newline is not returned at all.
	want := []string{`{"type":"b"}`, big("a"), "", `{"type":"c"}`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines = %.60q, want %.60q", got, want)
	}
	if len(seen) != 3 {
		t.Errorf("keep ran %d times, want once per long line (3)", len(seen))
	}
}
