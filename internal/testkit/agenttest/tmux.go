package agenttest

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"paddock/internal/testkit/agentenv"
)

// Spec is what to run in a Term: Name, Argv, the complete Env (nothing is
// inherited from the test process: a developer's real API keys must never
// reach a CLI under test), Dir, and the window's Width and Height (default
// 200×50).
type Spec = agentenv.Spec

// Term is one program running in a tmux pane on a private tmux server
// (agentenv.Tmux). It is closed by tb.Cleanup: every process it started is
// killed by PID.
type Term struct {
	// TypePause is the pause between typing text and pressing Enter in
	// Type. The TUIs treat text and Enter arriving together as a paste
	// (Codex then inserts a newline instead of submitting); 0.5 s was
	// reliable for all of them in the recordings.
	TypePause time.Duration

	tb   testing.TB
	tmux *agentenv.Tmux
	pane *agentenv.Pane

	done      chan struct{} // closed by Close; stops the watchdog
	watchdog  sync.WaitGroup
	closeOnce sync.Once
	killOnce  sync.Once
}

// Start runs spec in a new tmux server on a socket in a fresh temporary
// directory. tmux missing means skip (or fail under E2E_REQUIRED=1), like a
// missing CLI.
func Start(tb testing.TB, spec Spec) *Term {
	tb.Helper()
	if len(spec.Argv) == 0 {
		tb.Fatal("agenttest: Start with an empty Argv")
	}
	x, err := agentenv.NewTmux(agentenv.TmuxOptions{})
	check(tb, err)
	t := &Term{TypePause: agentenv.DefaultTypePause, tb: tb, tmux: x, done: make(chan struct{})}
	tb.Cleanup(t.Close)
	if t.pane, err = x.Start(spec); err != nil {
		tb.Fatalf("agenttest: %v", err)
	}
	t.startWatchdog()
	return t
}

// PID is the process id of the program in the pane.
func (t *Term) PID() int { return t.pane.PID() }

// Socket is the tmux server's socket (for `tmux -S`), and Target the pane
// (e.g. "%0"): what paddock itself needs to send keys to the session.
func (t *Term) Socket() string { return t.tmux.Socket() }
func (t *Term) Target() string { return t.pane.Target() }

// Type types text literally, pauses TypePause, then presses Enter. It fails
// the test if tmux does; call it from the test's goroutine.
func (t *Term) Type(text string) {
	t.tb.Helper()
	t.pane.TypePause = t.TypePause
	if err := t.pane.Type(text); err != nil {
		t.fatal("%v", err)
	}
}

// Key presses keys by tmux name: "Enter", "Escape", "C-c", "C-d", "Down",
// "y", …
func (t *Term) Key(names ...string) {
	t.tb.Helper()
	if err := t.pane.Key(names...); err != nil {
		t.fatal("%v", err)
	}
}

// Answer presses keys in an open dialog (matched by dialog) until it goes
// away: a TUI that just drew a dialog may not take keys yet, so it waits a
// second first and presses again, up to three times, before failing.
func (t *Term) Answer(dialog *regexp.Regexp, keys ...string) {
	t.tb.Helper()
	for try := 1; ; try++ {
		time.Sleep(time.Second)
		t.Key(keys...)
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
			s, err := t.Screen()
			if err == nil && !dialog.MatchString(s) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		if try == 3 {
			t.fatal("dialog %q did not go away after pressing %q %d times", dialog, keys, try)
		}
		t.tb.Logf("%s: dialog %q still shown after %q; pressing again", t.pane.Name(), dialog, keys)
	}
}

// Screen is the visible pane as text: wrapped lines joined, trailing blanks
// trimmed.
func (t *Term) Screen() (string, error) { return t.pane.Screen() }

// WaitScreen polls the screen until re matches and returns it. It gives up
// when ctx ends, or when the program has exited without the screen
// matching; the error then carries the last screen.
func (t *Term) WaitScreen(ctx context.Context, re *regexp.Regexp) (string, error) {
	return t.pane.WaitScreen(ctx, re)
}

// Expect is WaitScreen that fails the test on error.
func (t *Term) Expect(ctx context.Context, re *regexp.Regexp) string {
	t.tb.Helper()
	s, err := t.WaitScreen(ctx, re)
	if err != nil {
		t.tb.Fatal(err)
	}
	return s
}

// WaitExit waits for the program to end and returns how ("status 0",
// "signal 15"). The pane stays (remain-on-exit), so Screen still shows the
// last words.
func (t *Term) WaitExit(ctx context.Context) (string, error) { return t.pane.WaitExit(ctx) }

func (t *Term) fatal(format string, args ...any) {
	t.tb.Helper()
	s, _ := t.Screen()
	t.tb.Fatalf("agenttest: %s: %s; last screen:\n%s", t.pane.Name(), fmt.Sprintf(format, args...), s)
}

// startWatchdog kills the program shortly before the test's deadline, so a
// hung CLI fails the test with its last screen instead of go test's
// goroutine dump. It stops when the Term closes.
func (t *Term) startWatchdog() {
	d, ok := t.tb.(interface{ Deadline() (time.Time, bool) })
	if !ok {
		return
	}
	deadline, ok := d.Deadline()
	if !ok {
		return
	}
	// Leave room for cleanup and for the failure to be reported.
	margin := min(10*time.Second, time.Until(deadline)/10)
	t.watchdog.Add(1)
	go func() {
		defer t.watchdog.Done()
		timer := time.NewTimer(time.Until(deadline) - margin)
		defer timer.Stop()
		select {
		case <-t.done:
		case <-timer.C:
			s, _ := t.Screen()
			t.tb.Errorf("agenttest: %s still running at the test deadline (%s); killed it. Last screen:\n%s",
				t.pane.Name(), deadline.Format(time.TimeOnly), s)
			t.kill()
		}
	}()
}

// Close kills the program, everything it started, and the tmux server, by
// PID, and removes the socket directory. If the test failed, the last screen
// goes to the test log. Registered with tb.Cleanup by Start.
func (t *Term) Close() {
	t.closeOnce.Do(func() {
		close(t.done)
		t.watchdog.Wait()
		if t.tb.Failed() && t.pane != nil {
			s, err := t.Screen()
			if err != nil {
				s = t.pane.LastScreen()
			}
			t.tb.Logf("agenttest: last screen of %s:\n%s", t.pane.Name(), s)
		}
		t.kill()
	})
}

// kill stops every owned process (agentenv.Tmux.Close).
func (t *Term) kill() {
	t.killOnce.Do(func() {
		if err := t.tmux.Close(); err != nil {
			t.tb.Errorf("agenttest: %v", err)
		}
	})
}
