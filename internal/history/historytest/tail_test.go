package historytest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/session"
)

var conv = []session.Message{
	{Role: "user", Text: "one", Time: time.Unix(1, 0)},
	{Role: "assistant", Text: "reply one", Time: time.Unix(2, 0)},
	{Role: "user", Text: "two", Time: time.Unix(3, 0)},
	{Role: "assistant", Text: "reply two"},
}

// exact answers a tail read as the property wants, reading read bytes.
func exact(full []session.Message, n int, read int64) *TailRead {
	return &TailRead{Msgs: full[max(len(full)-n, 0):], Complete: n >= len(full), Read: read}
}

// TestTailCheck: a right reader passes and its reads from a window are
// counted; each way of breaking the property is reported.
func TestTailCheck(t *testing.T) {
	errRead := errors.New("read failed")
	cases := []struct {
		name    string
		fullErr error
		maxRead int64
		read    func(n int, window int64) (*TailRead, error)
		want    string // in the error; "" for none
		fromWin int
	}{
		{"right", nil, 100, func(n int, w int64) (*TailRead, error) { return exact(conv, n, min(w, 100)), nil }, "", 4},
		{"one message short", nil, 0, func(n int, w int64) (*TailRead, error) {
			tr := exact(conv, n, 0)
			if n == 3 {
				tr.Msgs = tr.Msgs[1:]
			}
			return tr, nil
		}, "tail(n=3, window=50)", 0},
		{"complete wrongly", nil, 0, func(n int, w int64) (*TailRead, error) {
			tr := exact(conv, n, 0)
			tr.Complete = n >= 2
			return tr, nil
		}, "complete true", 0},
		{"a time off", nil, 0, func(n int, w int64) (*TailRead, error) {
			tr := exact(conv, n, 0)
			tr.Msgs = slices.Clone(tr.Msgs)
			tr.Msgs[0].Time = tr.Msgs[0].Time.Add(time.Second)
			return tr, nil
		}, "tail(n=1, window=50)", 0},
		{"a byte read twice", nil, 100, func(n int, w int64) (*TailRead, error) { return exact(conv, n, 101), nil }, "read 101 bytes of a 100-byte file, more than 100", 0},
		{"twice, but allowed", nil, 0, func(n int, w int64) (*TailRead, error) { return exact(conv, n, 101), nil }, "", 0},
		{"an error", nil, 0, func(n int, w int64) (*TailRead, error) { return nil, errRead }, "read failed", 0},
		{"an answer where the whole read fails", fs.ErrNotExist, 0, func(n int, w int64) (*TailRead, error) { return exact(conv, n, 0), nil }, "the whole read fails", 0},
		{"another error", fs.ErrNotExist, 0, func(n int, w int64) (*TailRead, error) { return nil, errRead }, "the whole read fails", 0},
		{"an answer with the error", fs.ErrNotExist, 0, func(n int, w int64) (*TailRead, error) { return exact(conv, n, 0), fs.ErrNotExist }, "the whole read fails", 0},
		{"failing alike", fs.ErrNotExist, 0, func(n int, w int64) (*TailRead, error) { return nil, fs.ErrNotExist }, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			full := conv
			if c.fullErr != nil {
				full = nil
			}
			_, fromWindow := TailCheck{Name: "f", Full: full, FullErr: c.fullErr, Size: 100, MaxRead: c.maxRead,
				Ns: []int{1, 3, 4, 10}, Windows: []int64{50, 200}, Read: c.read}.Run(r)
			got := strings.Join(r.errs, "\n")
			if c.want == "" && got != "" || !strings.Contains(got, c.want) || len(r.errs) > 1 {
				t.Errorf("reported %q, want one error with %q", got, c.want)
			}
			if c.want == "" && fromWindow != c.fromWin {
				t.Errorf("%d reads from a window, want %d", fromWindow, c.fromWin)
			}
		})
	}
}

// lines reads a file of one message a line, whole and from its end
// (reading a window's worth, or all when whole).
func lines(whole bool, windows map[string][]int64) Tailer {
	full := func(path string) ([]session.Message, error) {
		data, err := os.ReadFile(path)
		var msgs []session.Message
		for l := range strings.Lines(string(data)) {
			msgs = append(msgs, session.Message{Role: "user", Text: strings.TrimSuffix(l, "\n")})
		}
		return msgs, err
	}
	return Tailer{Full: full, EachByteOnce: true, Tail: func(path string, n int, window int64) (*TailRead, error) {
		msgs, err := full(path)
		st, _ := os.Stat(path)
		name := filepath.Base(path)
		if ws := windows[name]; len(ws) == 0 || ws[len(ws)-1] != window {
			windows[name] = append(ws, window)
		}
		read := st.Size()
		if !whole {
			read = min(window, st.Size()-1)
		}
		return exact(msgs, n, read), err
	}}
}

// TestFiles: each case is checked on a file holding its data, with the
// windows for its size, and the check fails when no read answered from a
// window.
func TestFiles(t *testing.T) {
	cases := []TailCase{{"a", []byte("one\n")}, {"b", []byte("two\nthree\n")}, {"long", []byte(strings.Repeat("x", 200) + "\n")}}
	for _, whole := range []bool{false, true} {
		r := &recorder{TB: t}
		windows := map[string][]int64{} // by file
		lines(whole, windows).Files(r, cases, 1000, 100)
		got := strings.Join(r.errs, "\n")
		if whole != strings.Contains(got, "only 0 tail reads of 3 files answered from a window") || !whole && got != "" {
			t.Errorf("whole reads %v: reported %q", whole, got)
		}
		// The file with a line over maxLine is read at the first window
		// only.
		small := []int64{64, 200, 1 << 10, 4 << 10, 1000}
		if !slices.Equal(windows["000.jsonl"], small) || !slices.Equal(windows["001.jsonl"], small) || !slices.Equal(windows["002.jsonl"], []int64{1000}) {
			t.Errorf("windows %v", windows)
		}
	}
}

// TestReadsLittle: reads of a quarter of the file pass, more fail, and so
// does a file whose whole read fails.
func TestReadsLittle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(strings.Repeat("a line of 20 bytes.\n", 200)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		window int64
		fail   bool // both reads fail
		want   string
	}{
		{"a quarter", 1000, false, ""},
		{"more", 1001, false, "more than 1000"},
		{"unreadable", 1000, true, "0 of 2 reads answered"},
	}
	for _, c := range cases {
		r := &recorder{TB: t}
		tr := lines(false, map[string][]int64{})
		if c.fail {
			tr.Full = func(string) ([]session.Message, error) { return nil, fs.ErrPermission }
			tr.Tail = func(string, int, int64) (*TailRead, error) { return nil, fs.ErrPermission }
		}
		tr.ReadsLittle(r, path, c.window)
		got := strings.Join(r.errs, "\n")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: reported %q, want %q", c.name, got, c.want)
		}
	}
}

func TestCheckTailConversation(t *testing.T) {
	right := func(_ context.Context, _ string, n int) ([]session.Message, bool, error) {
		tr := exact(conv, max(n, 1), 0)
		return tr.Msgs, tr.Complete, nil
	}
	cases := []struct {
		name string
		tail func(context.Context, string, int) ([]session.Message, bool, error)
		want string
	}{
		{"right", right, ""},
		{"n < 1 read as 0", func(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
			if n < 1 {
				return nil, false, nil
			}
			return right(ctx, id, n)
		}, "TailConversation(s, -1)"},
		{"not found", func(context.Context, string, int) ([]session.Message, bool, error) {
			return nil, false, session.ErrNotFound
		}, "TailConversation(s, -1)"},
	}
	for _, c := range cases {
		r := &recorder{TB: t}
		CheckTailConversation(r, c.tail, "s", conv, []int{-1, 0, 1, 4, 5})
		got := strings.Join(r.errs, "\n")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: reported %q, want %q", c.name, got, c.want)
		}
	}
}

// TestCheckTailErrors: a scanner that answers as it should passes, and
// each wrong answer is reported.
func TestCheckTailErrors(t *testing.T) {
	right := func(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
		switch {
		case id == "empty":
			return nil, true, nil
		case id != "s":
			return nil, false, session.ErrNotFound
		case ctx.Err() != nil:
			return nil, false, ctx.Err()
		}
		return conv[len(conv)-1:], false, nil
	}
	cases := []struct {
		name string
		tail func(context.Context, string, int) ([]session.Message, bool, error)
		want string
	}{
		{"right", right, ""},
		{"found", func(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
			if id == "../s" {
				return nil, true, nil
			}
			return right(ctx, id, n)
		}, `TailConversation("../s") = <nil>, want ErrNotFound`},
		{"context ignored", func(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
			return right(context.Background(), id, n)
		}, `TailConversation("s") canceled`},
		{"empty not complete", func(ctx context.Context, id string, n int) ([]session.Message, bool, error) {
			msgs, complete, err := right(ctx, id, n)
			return msgs, complete && id != "empty", err
		}, `TailConversation("empty")`},
	}
	for _, c := range cases {
		r := &recorder{TB: t}
		CheckTailErrors(r, c.tail, "s", []string{"", "nope", "../s"}, "empty")
		got := strings.Join(r.errs, "\n")
		if c.want == "" && got != "" || !strings.Contains(got, c.want) || len(r.errs) > 1 {
			t.Errorf("%s: reported %q, want one error with %q", c.name, got, c.want)
		}
	}
}

func TestJSONLFiles(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a.jsonl", "b.json", "d/c.jsonl", "d/e/f.jsonl", "g.jsonl/h.txt"} {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := JSONLFiles(t, filepath.Join(root, "d"), root)
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(root, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"d/c.jsonl", "d/e/f.jsonl", "a.jsonl", "d/c.jsonl", "d/e/f.jsonl"}
	if !slices.Equal(rel, want) {
		t.Errorf("JSONLFiles = %v, want %v", rel, want)
	}
}

func TestWindows(t *testing.T) {
	cases := []struct {
		name string
		got  []int64
		want []int64
	}{
		{"small file", TailWindows(30), []int64{1, 3, 5, 7, 11, 8, 13, 21, 34}},
		{"32 KiB", TailWindows(32 << 10)[:7], []int64{1, 3, 5, 7, 11, 8, 13}},
		{"long file", TailWindows(33 << 10), []int64{1, 3, 5}},
		{"over 1 MiB", TailWindows(1<<20 + 1), nil},
		// Lines start at 0, 2 and 5 of 9 bytes.
		{"edges", EdgeWindows([]byte("a\nbb\nccc\n")), []int64{7, 8, 9, 10, 11, 5, 6, 7, 8, 9, 2, 3, 4, 5, 6}},
		{"no newline at the end", EdgeWindows([]byte("ab\nc")), []int64{2, 3, 4, 5, 6, 1, 2, 3}},
	}
	for _, c := range cases {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
