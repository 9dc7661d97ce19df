package catalog

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"paddock/internal/session"
)

// reportingScanner is a listScanner that also names what its last scan
// could not read (the scanners' Problems).
type reportingScanner struct {
	*listScanner
	probs []session.SourceProblem
}

func (r *reportingScanner) Problems() []session.SourceProblem { return slices.Clone(r.probs) }

// A runtime whose scan fails and the sources a scanner could not read are
// Problems, in safe words (never the error's text, which names paths), a
// change of them makes subscribers re-read, and they go when the scans
// read again.
func TestProblems(t *testing.T) {
	claude := newListScanner("claude", info("claude", "c1", t0))
	codex := &reportingScanner{listScanner: newListScanner("codex", info("codex", "x1", t0))}
	c := New(Options{}, claude, codex)
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	ctx := context.Background()
	c.Rescan(ctx)
	drain(ch)
	if probs := c.Problems(); len(probs) != 0 {
		t.Fatalf("Problems of clean scans = %+v", probs)
	}

	claude.fail(&fs.PathError{Op: "open", Path: "/home/secret/.claude/projects", Err: syscall.EACCES})
	codex.probs = []session.SourceProblem{{Source: "/home/u/.codex/sessions/2026", Reason: "cannot be read: permission denied"}}
	c.Rescan(ctx)
	want := []session.SourceProblem{
		{Runtime: "claude", Reason: "its history cannot be read (permission denied); showing the sessions read before"},
		{Runtime: "codex", Source: "/home/u/.codex/sessions/2026", Reason: "cannot be read: permission denied"},
	}
	if got := c.Problems(); !slices.Equal(got, want) {
		t.Fatalf("Problems = %+v\nwant %+v", got, want)
	}
	if got := drain(ch); len(got) != 1 || !got[0].Full {
		t.Errorf("new problems published %+v, want one full change", got)
	}
	c.Rescan(ctx)
	if got := drain(ch); len(got) != 0 {
		t.Errorf("the same problems again published %+v, want nothing", got)
	}
	for _, p := range c.Problems() {
		if strings.Contains(p.Reason, "secret") {
			t.Errorf("a reason names the path: %q", p.Reason)
		}
	}

	claude.set(info("claude", "c1", t0))
	codex.probs = nil
	c.Rescan(ctx)
	if got := c.Problems(); len(got) != 0 {
		t.Errorf("Problems after recovery = %+v", got)
	}
	if got := drain(ch); len(got) != 1 || !got[0].Full {
		t.Errorf("recovery published %+v, want one full change", got)
	}
}

// A directory the file watcher cannot watch is a problem of the runtimes
// that asked for it (one line for many directories), until it can be
// watched; a missing one is none.
func TestWatchProblems(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	loop2 := filepath.Join(dir, "loop2")
	if err := os.Symlink("loop2", loop2); err != nil {
		t.Fatal(err)
	}
	good := t.TempDir()
	watch := func(dirs ...string) func() []string { return func() []string { return dirs } }
	claude := &fakeScanner{name: "claude", watchDirsFn: watch(good, loop, filepath.Join(dir, "missing"))}
	codex := &fakeScanner{name: "codex", watchDirsFn: watch(loop, loop2)}
	c := New(Options{SweepInterval: 2 * time.Second}, claude, codex)
	ch, unsubscribe := c.Subscribe()
	defer unsubscribe()
	startRun(t, c)
	if err := c.WaitLoaded(context.Background()); err != nil {
		t.Fatal(err)
	}
	const later = "; changes there show within 2s"
	want := []session.SourceProblem{
		{Runtime: "claude", Source: loop, Reason: "cannot be watched: too many levels of symbolic links" + later},
		{Runtime: "codex", Reason: "2 of its directories cannot be watched: too many levels of symbolic links" + later},
	}
	waitFor(t, "the watch problems", func() bool { return slices.Equal(c.Problems(), want) })

	// The loops become directories: the next sync watches them, and the
	// problems go, with a full change for the board.
	drain(ch)
	for _, l := range []string{loop, loop2} {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(l, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "no problems", func() bool { return len(c.Problems()) == 0 })
	waitChange(t, ch, "a full change", func(ch Change) bool { return ch.Full })
}

func TestWatchUnavailable(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{syscall.EMFILE, "file watching is unavailable (too many open files); the board updates every 5s"},
		{nil, "file watching stopped; the board updates every 5s"},
	} {
		if got := watchUnavailable(tt.err, 5*time.Second); got.Reason != tt.want || got.Runtime != "" {
			t.Errorf("watchUnavailable(%v) = %+v, want %q", tt.err, got, tt.want)
		}
	}
	if got := watchReason(syscall.ENOSPC); got != "the system's limit of watched directories is reached" {
		t.Errorf("watchReason(ENOSPC) = %q", got)
	}
}
