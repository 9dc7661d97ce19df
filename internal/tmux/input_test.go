package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// tricky are strings tmux, a shell or a terminal could take for something
// other than text.
var tricky = []string{
	"-a",
	"--",
	"-l",
	";",
	"a;",
	`a\;`,
	`\;`,
	`\`,
	"echo hi; kill-server",
	"{ kill-server }",
	"'single' \"double\" `id` $(id)",
	"$HOME ${PATH} $0",
	"#{pane_id} #(id) ##",
	"C-c",
	"Enter",
	"~user %1 @1 =a:",
	"日本語 ❯ › é 🙂",
	"tab\tinside",
	"  leading and trailing  ",
}

// TestSendTextVerbatim: each tricky string, typed and submitted, reaches
// the program exactly.
func TestSendTextVerbatim(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	out := filepath.Join(t.TempDir(), "out")
	p := start(t, s, Window{Name: "cat", Env: []string{"OUT=" + out}, Argv: sh(`exec cat > "$OUT"`)})
	ctx := within(t, 30*time.Second)
	for _, text := range tricky {
		if err := s.SendText(ctx, p, text); err != nil {
			t.Fatalf("SendText(%q): %v", text, err)
		}
		if err := s.SendKeys(ctx, p, "Enter"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SendKeys(ctx, p, "C-d"); err != nil {
		t.Fatal(err)
	}
	// cat leaves at end of input. tmux 3.3a now and then reports such an
	// exit as SIGHUP (signal 1; about one run in sixty under load, with
	// or without settle's nudge): both mean it ended.
	if exit := waitDead(t, s, p); exit.Code != 0 && exit.Signal != 1 {
		t.Fatalf("cat exited %v", exit)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(tricky, "\n") + "\n"; string(data) != want {
		t.Errorf("received:\n%q\nwant:\n%q", data, want)
	}
	if !s.Running(ctx) {
		t.Error("the server did not survive the text")
	}
}

// rawReader runs `head -c n` on a terminal in raw mode (no line length
// limit, no special characters), writing to a file.
func rawReader(t *testing.T, s *Server, name string, n int) (Pane, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	p := start(t, s, Window{Name: name, Env: []string{"OUT=" + out},
		Argv: sh(`stty raw -echo && echo ready && exec head -c ` + strconv.Itoa(n) + ` > "$OUT"`)})
	waitScreen(t, s, p, "ready")
	return p, out
}

// TestSendTextLong: text over one send-keys (chunked at rune boundaries,
// with ';' ending chunks) arrives whole up to MaxText; beyond it is
// ErrTooLong and nothing is sent.
func TestSendTextLong(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	var b strings.Builder
	for i := 0; b.Len() < MaxText-16; i++ {
		fmt.Fprintf(&b, "%d;日-", i)
	}
	text := b.String()
	for len(text) < MaxText { // pad to exactly the limit
		text += ";"
	}
	p, out := rawReader(t, s, "long", len(text))
	ctx := within(t, 30*time.Second)
	for _, bad := range []string{strings.Repeat("x", MaxText+1), strings.Repeat("y", 100_000)} {
		if err := s.SendText(ctx, p, bad); !errors.Is(err, ErrTooLong) {
			t.Fatalf("%d bytes: %v, want ErrTooLong", len(bad), err)
		}
	}
	if err := s.SendText(ctx, p, text); err != nil {
		t.Fatal(err)
	}
	waitDead(t, s, p)
	if data, _ := os.ReadFile(out); string(data) != text {
		t.Errorf("received %d bytes, want %d; equal prefix %d", len(data), len(text), commonPrefix(string(data), text))
	}
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// TestSendTextRefusesControls: line breaks and control characters are
// refused before anything reaches the pane.
func TestSendTextRefusesControls(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	p := start(t, s, Window{Name: "cat", Argv: []string{"cat"}})
	ctx := context.Background()
	for _, text := range []string{"rm -rf x\n", "a\rb", "\x03", "\x1b[201~", "a\x04", "bad\xff"} {
		if err := s.SendText(ctx, p, text); !errors.Is(err, ErrBadText) {
			t.Errorf("SendText(%q): %v, want ErrBadText", text, err)
		}
	}
	if screen, _ := s.Capture(ctx, p, CaptureOptions{}); screen != "" {
		t.Errorf("refused text reached the pane: %q", screen)
	}
}

// TestPasteIntoCat: multi-line text arrives exactly, newlines included,
// and the buffer is not left on the server.
func TestPasteIntoCat(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	out := filepath.Join(t.TempDir(), "out")
	p := start(t, s, Window{Name: "tee", Argv: []string{"tee", out}})
	ctx := within(t, 30*time.Second)
	text := "first line\n  second; line;\n\tthird $HOME #{pane_id}\r\nfourth 日本\n" + strings.Join(tricky, "\n") + "\n"
	if err := s.Paste(ctx, p, text); err != nil {
		t.Fatal(err)
	}
	if err := s.SendKeys(ctx, p, "C-d"); err != nil {
		t.Fatal(err)
	}
	waitDead(t, s, p)
	data, _ := os.ReadFile(out)
	if want := strings.ReplaceAll(text, "\r\n", "\n"); string(data) != want {
		t.Errorf("received:\n%q\nwant:\n%q", data, want)
	}
	if bufs := rawTmux(t, s, "list-buffers"); bufs != "" {
		t.Errorf("buffers left: %q", bufs)
	}
	for _, bad := range []string{"a\x1b[201~\nrm -rf x\n", "x\x00", strings.Repeat("z\n", MaxText)} {
		if err := s.Paste(ctx, p, bad); !errors.Is(err, ErrBadText) && !errors.Is(err, ErrTooLong) {
			t.Errorf("Paste(%.20q): %v", bad, err)
		}
	}
	// A pane that is gone: an error, and no buffer (with the text) left.
	if err := s.Paste(ctx, Pane{Session: "tee", Window: p.Window, ID: "%999"}, "secret\ntext"); !errors.Is(err, ErrNoPane) {
		t.Errorf("paste to a missing pane: %v", err)
	} else if strings.Contains(err.Error(), "secret") {
		t.Errorf("error repeats the text: %v", err)
	}
	if bufs := rawTmux(t, s, "list-buffers"); bufs != "" {
		t.Errorf("buffers left after a failed paste: %q", bufs)
	}
}

// bash starts an interactive bash (bracketed paste on: bash ≥ 5.1) with a
// known prompt, or skips.
func bash(t *testing.T, s *Server, name, dir string) Pane {
	t.Helper()
	bin, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	ver, _ := exec.Command(bin, "-c", `echo "${BASH_VERSINFO[0]}.${BASH_VERSINFO[1]}"`).Output()
	var major, minor int
	fmt.Sscanf(string(ver), "%d.%d", &major, &minor)
	if major < 5 || major == 5 && minor < 1 {
		t.Skipf("bash %s has bracketed paste off by default", strings.TrimSpace(string(ver)))
	}
	p := start(t, s, Window{Name: name, Dir: dir, Env: []string{"PS1=ready$ "},
		Argv: []string{bin, "--norc", "--noprofile"}})
	waitScreen(t, s, p, "ready$")
	return p
}

// TestPasteIntoBashRunsNothingBeforeEnter: a two-line paste into bash is
// one bracketed paste: neither line runs until Enter, then both do.
func TestPasteIntoBashRunsNothingBeforeEnter(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	dir := t.TempDir()
	p := bash(t, s, "bash", dir)
	ctx := within(t, 30*time.Second)
	if err := s.Paste(ctx, p, "touch one\ntouch two"); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, p, "touch two")
	time.Sleep(300 * time.Millisecond)
	for _, f := range []string{"one", "two"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Fatalf("%s ran before Enter", f)
		}
	}
	if err := s.SendKeys(ctx, p, "Enter"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"one", "two"} {
		waitExists(t, filepath.Join(dir, f))
	}
}

// TestSendKeys: the allowlist refuses anything that could be a tmux
// command, sending nothing; allowed keys act (Enter runs, C-c interrupts).
func TestSendKeys(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	p := bash(t, s, "keys", t.TempDir())
	ctx := within(t, 30*time.Second)
	for _, keys := range [][]string{
		{"kill-server"},
		{";"},
		{"Enter;"},
		{"Enter", ";", "kill-server"},
		{"C-c;kill-server"},
		{"send-keys", "-t", "%0", "x"},
		{""},
		{},
		make([]string, maxKeys+1),
	} {
		err := s.SendKeys(ctx, p, keys...)
		if !errors.Is(err, ErrBadKey) {
			t.Errorf("SendKeys(%q): %v, want ErrBadKey", keys, err)
		}
	}
	if !s.Running(ctx) {
		t.Fatal("server gone")
	}
	// Nothing was sent by the refused calls: no Enter, so one prompt.
	if screen, _ := s.Capture(ctx, p, CaptureOptions{}); strings.Count(screen, "ready$") != 1 {
		t.Fatalf("refused keys reached the pane:\n%s", screen)
	}

	if err := s.SendText(ctx, p, "sleep 30"); err != nil {
		t.Fatal(err)
	}
	if err := s.SendKeys(ctx, p, "Enter"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "sleep in the foreground", func() (bool, string) {
		cmd, err := s.CurrentCommand(ctx, p)
		return err == nil && cmd == "sleep", cmd
	})
	if err := s.SendKeys(ctx, p, "C-c"); err != nil {
		t.Fatal(err)
	}
	eventually(t, "bash back after C-c", func() (bool, string) {
		cmd, err := s.CurrentCommand(ctx, p)
		return err == nil && cmd == "bash", cmd
	})
	// Text then keys: arrows, BTab, digits and letters are accepted.
	if err := s.SendKeys(ctx, p, "e", "c", "h", "o", "Space", "4", "2", "Left", "Right", "Enter"); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, p, "\n42\n")
}

// TestConcurrentSends: senders to the same pane from many goroutines
// (chunked texts, pastes, keys) each arrive whole, while others capture,
// list and query status.
func TestConcurrentSends(t *testing.T) {
	t.Parallel()
	s := newServer(t, Options{})
	const senders, size = 8, 20 << 10 // 3 chunks each
	p, out := rawReader(t, s, "many", senders*size)
	other := start(t, s, Window{Name: "other", Argv: []string{"cat"}})
	ctx := within(t, 60*time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 4*senders)
	for i := range senders {
		wg.Go(func() {
			letter := string(rune('a' + i))
			if i%2 == 0 {
				errs <- s.SendText(ctx, p, strings.Repeat(letter, size))
			} else {
				// Raw mode: the paste's (absent) newlines do not matter.
				errs <- s.Paste(ctx, p, strings.Repeat(letter, size))
			}
		})
		wg.Go(func() {
			_, err := s.Capture(ctx, p, CaptureOptions{ScrollBack: 100})
			errs <- err
		})
		wg.Go(func() {
			_, err := s.List(ctx)
			errs <- err
		})
		wg.Go(func() {
			errs <- s.SendText(ctx, other, "x")
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	waitDead(t, s, p)
	data, _ := os.ReadFile(out)
	runs := regexp.MustCompile(`a+|b+|c+|d+|e+|f+|g+|h+`).FindAllString(string(data), -1)
	if len(data) != senders*size || len(runs) != senders {
		t.Fatalf("received %d bytes in %d runs, want %d bytes in %d runs (interleaved)", len(data), len(runs), senders*size, senders)
	}
	for _, r := range runs {
		if len(r) != size {
			t.Errorf("a run of %d %q, want %d", len(r), r[:1], size)
		}
	}
}
