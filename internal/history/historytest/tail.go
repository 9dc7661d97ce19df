package historytest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddock/internal/session"
)

// TailNs are the page sizes a tail check asks for: from one message to
// more than any fixture holds.
func TailNs() []int { return []int{1, 2, 3, 5, 10, 50, 1000} }

// TailWindows returns first windows for a tail read of a file of size
// bytes, for readers that double a window down to the file's start. One
// that doubles from 1, 3 and 5 bytes starts inside and between many lines
// and grows many times (it passes 64 bytes, the real first window and every
// other power of two on the way); files up to 32 KiB also get
// Fibonacci-spaced ones up to their size. Files over 1 MiB (a line over a
// scanner's limit) get none: each read of them reads megabytes, so they are
// checked at the real window only.
func TailWindows(size int64) []int64 {
	switch {
	case size > 1<<20:
		return nil
	case size > 32<<10:
		return []int64{1, 3, 5}
	}
	ws := []int64{1, 3, 5, 7, 11}
	for a, b := int64(8), int64(13); a < size+8; a, b = b, a+b {
		ws = append(ws, a)
	}
	return ws
}

// EdgeWindows returns first windows that start at and around (two bytes
// either way) every line of data: where the rules that look back past a
// window's start decide.
func EdgeWindows(data []byte) []int64 {
	var ws []int64
	for off := range data {
		if off > 0 && data[off-1] != '\n' {
			continue
		}
		for d := -2; d <= 2; d++ {
			if w := int64(len(data) - off + d); w >= 1 {
				ws = append(ws, w)
			}
		}
	}
	return ws
}

// TailRead is what one tail read answered.
type TailRead struct {
	Msgs     []session.Message
	Complete bool
	Read     int64 // bytes read from the file
}

// TailCheck is the tail property of one history file: for every page size
// n and first window, a tail read returns exactly the last n messages of
// the whole read, and complete exactly when they are all of it.
type TailCheck struct {
	Name string            // the file, for messages
	Full []session.Message // what the whole read returned
	// FullErr is the whole read's error: when set, every tail read must
	// fail with it too, and answer nothing.
	FullErr error
	Size    int64 // the file's size
	// MaxRead, when set, is the most bytes a read may read: Size for a
	// window that grows by reading only what it lacks.
	MaxRead int64
	Ns      []int
	Windows []int64
	// Read reads the last n messages with a first window of window bytes;
	// a nil answer with its error.
	Read func(n int, window int64) (*TailRead, error)
}

// Run checks every page size with every window. It stops at the first
// failure, since the others are most often the same mistake, and returns
// how many reads answered and, of those, how many read less than the file:
// answered from a window.
func (c TailCheck) Run(tb testing.TB) (reads, fromWindow int) {
	tb.Helper()
	for _, w := range c.Windows {
		for _, n := range c.Ns {
			got, err := c.Read(n, w)
			if c.FullErr != nil || err != nil {
				if !errors.Is(err, c.FullErr) || got != nil {
					tb.Errorf("%s: tail(n=%d, window=%d) = %+v, %v; the whole read fails with %v", c.Name, n, w, got, err, c.FullErr)
					return reads, fromWindow
				}
				continue
			}
			want := c.Full[max(len(c.Full)-n, 0):]
			if !slices.Equal(got.Msgs, want) || got.Complete != (len(c.Full) <= n) {
				tb.Errorf("%s: tail(n=%d, window=%d) = %d messages %q, complete %v;\nwant %d of %d %q, complete %v",
					c.Name, n, w, len(got.Msgs), Texts(got.Msgs), got.Complete, len(want), len(c.Full), Texts(want), len(c.Full) <= n)
				return reads, fromWindow
			}
			if c.MaxRead > 0 && got.Read > c.MaxRead {
				tb.Errorf("%s: tail(n=%d, window=%d) read %d bytes of a %d-byte file, more than %d", c.Name, n, w, got.Read, c.Size, c.MaxRead)
				return reads, fromWindow
			}
			reads++
			if got.Read < c.Size {
				fromWindow++
			}
		}
	}
	return reads, fromWindow
}

// Tailer is a scanner's two reads of a history file, whole and from its
// end, which the tail checks compare.
type Tailer struct {
	// Full reads the file at path whole, as Conversation does.
	Full func(path string) ([]session.Message, error)
	// Tail is TailCheck.Read of the file at path.
	Tail func(path string, n int, window int64) (*TailRead, error)
	// EachByteOnce: no tail read reads more than the file (TailCheck.MaxRead).
	EachByteOnce bool
}

// Check returns the tail property of the file at path with every page
// size of TailNs and, for the caller to set, no windows.
func (tr Tailer) Check(tb testing.TB, path string) TailCheck {
	tb.Helper()
	st, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	c := TailCheck{Name: filepath.Base(path), Size: st.Size(), Ns: TailNs(),
		Read: func(n int, window int64) (*TailRead, error) { return tr.Tail(path, n, window) }}
	c.Full, c.FullErr = tr.Full(path)
	if tr.EachByteOnce {
		c.MaxRead = c.Size
	}
	return c
}

// TailCase is a history file for Tailer.Files.
type TailCase struct {
	Name string
	Data []byte
}

// Files checks the tail property on many files, for a scanner whose
// window grows from first bytes and whose lines may be maxLine long: each
// case is written to a file of its own and checked with every page size
// and windows from a few lines, so that growing and every edge rule run on
// small files, to first. The property is only worth something if windows
// answered, not the fall back to the whole file every time: it fails
// unless there are at least as many reads from a window as cases.
func (tr Tailer) Files(tb testing.TB, cases []TailCase, first int64, maxLine int) {
	tb.Helper()
	dir := tb.TempDir()
	reads, fromWindow := 0, 0
	for i, tc := range cases {
		path := filepath.Join(dir, fmt.Sprintf("%03d.jsonl", i))
		if err := os.WriteFile(path, tc.Data, 0o644); err != nil {
			tb.Fatal(err)
		}
		c := tr.Check(tb, path)
		c.Name, c.Windows = tc.Name, []int64{64, 200, 1 << 10, 4 << 10, first}
		if c.Size > 64<<10 {
			// The smallest windows are for the edge rules on small files;
			// on long ones they only add reads under -race.
			c.Windows = []int64{1 << 10, first}
		}
		if c.Size > int64(maxLine) {
			// An over-long line: every window and page would parse its
			// megabytes again, dozens of times; a few reads show it is
			// skipped alike.
			c.Ns, c.Windows = []int{1, 1000}, []int64{first}
		}
		r, w := c.Run(tb)
		reads, fromWindow = reads+r, fromWindow+w
	}
	tb.Logf("%d files, %d of %d reads answered from a window", len(cases), fromWindow, reads)
	if fromWindow < len(cases) {
		tb.Errorf("only %d tail reads of %d files answered from a window", fromWindow, len(cases))
	}
}

// ReadsLittle checks that the newest page of the long file at path comes
// from a small window at its end, read from first bytes: a quarter of the
// file at most, and the answer right.
func (tr Tailer) ReadsLittle(tb testing.TB, path string, first int64) {
	tb.Helper()
	c := tr.Check(tb, path)
	c.Ns, c.Windows, c.MaxRead = []int{1, 50}, []int64{first}, c.Size/4
	if reads, _ := c.Run(tb); reads != 2 {
		tb.Errorf("%d of 2 reads answered", reads)
	}
}

// CheckTailConversation checks the property through a scanner's
// TailConversation (tail, at the scanner's own window) for every n of ns:
// the last n (n < 1 counts as 1) of msgs, what Conversation returned, and
// complete exactly when they are all.
func CheckTailConversation(tb testing.TB, tail func(ctx context.Context, id string, n int) ([]session.Message, bool, error),
	id string, msgs []session.Message, ns []int) {
	tb.Helper()
	for _, n := range ns {
		got, complete, err := tail(context.Background(), id, n)
		want := msgs[max(len(msgs)-max(n, 1), 0):]
		if err != nil || !slices.Equal(got, want) || complete != (len(want) == len(msgs)) {
			tb.Errorf("TailConversation(%s, %d) = %q, %v, %v; want %q, %v", id, n, Texts(got), complete, err, Texts(want), len(want) == len(msgs))
			return
		}
	}
}

// CheckTailErrors checks a scanner's TailConversation (tail) where it
// answers no messages: ErrNotFound for every id of missing, the
// context's error for a read of id under a canceled context, and an empty,
// complete page for empty, a session with no messages.
func CheckTailErrors(tb testing.TB, tail func(ctx context.Context, id string, n int) ([]session.Message, bool, error),
	id string, missing []string, empty string) {
	tb.Helper()
	for _, m := range missing {
		if _, _, err := tail(context.Background(), m, 5); !errors.Is(err, session.ErrNotFound) {
			tb.Errorf("TailConversation(%q) = %v, want ErrNotFound", m, err)
		}
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := tail(canceled, id, 5); !errors.Is(err, context.Canceled) {
		tb.Errorf("TailConversation(%q) canceled: %v", id, err)
	}
	if msgs, complete, err := tail(context.Background(), empty, 5); err != nil || len(msgs) != 0 || !complete {
		tb.Errorf("TailConversation(%q) = %q, %v, %v; want an empty, complete page", empty, Texts(msgs), complete, err)
	}
}

// JSONLFiles returns every .jsonl file under roots, in walk order.
func JSONLFiles(tb testing.TB, roots ...string) []string {
	tb.Helper()
	var paths []string
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
				paths = append(paths, path)
			}
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return paths
}

// Texts shortens messages for a test's message: role initial and the
// text's start.
func Texts(msgs []session.Message) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Role[:min(len(m.Role), 1)] + ":" + m.Text[:min(len(m.Text), 24)]
	}
	return out
}
