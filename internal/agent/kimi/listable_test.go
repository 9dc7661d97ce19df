package kimi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/session"
)

// A session whose cwd was deleted is listed, and found by Session, while
// a TUI still holds it (workdir.Memo.Listable), and dropped once it ends.
// An ephemeral cwd is never listed, live or not. A dropped session takes
// no place in the limit.
func TestLiveSessionInDeletedCwd(t *testing.T) {
	home := t.TempDir()
	here := t.TempDir()
	gone := filepath.Join(t.TempDir(), "deleted-project")
	for i, f := range []struct{ id, cwd string }{
		{"session_here0", here},
		{"session_here1", here},
		{"session_deadgone", gone},
		{"session_liveeph", "/tmp/oc-manager-kimi/job"},
		{"session_livegone", gone},
	} {
		ms := t0 + int64(i)*int64(10*time.Minute/time.Millisecond)
		fake{bucket: bucket, id: f.id, state: stateJSON(f.id, f.cwd, "", ms),
			wire:  append([]string{recMeta(ms)}, turn("s", "prompt "+f.id, "answer", ms+1)...),
			mtime: time.UnixMilli(ms + 10)}.write(t, home)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("%s exists (%v); the test needs it gone", gone, err)
	}
	holding := func(id string, pid int) procscan.AgentProcess {
		p := kimiTUI(pid, "/", time.Time{})
		p.SessionID = id
		return p
	}
	both := []procscan.AgentProcess{holding("session_livegone", 10), holding("session_liveeph", 11)}

	tests := []struct {
		name  string
		limit int
		procs []procscan.AgentProcess
		want  []string // sorted
	}{
		{"all", -1, both, []string{"session_here0", "session_here1", "session_livegone"}},
		{"limited: the dropped take no place", 2, both, []string{"session_here1", "session_livegone"}},
		{"ended", -1, nil, []string{"session_here0", "session_here1"}},
	}
	// One scanner for all steps, the real cwd check: the last step is the
	// same scanner seeing the TUI exit.
	var procs []procscan.AgentProcess
	s := New(Options{Home: home, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	for _, tt := range tests {
		procs = tt.procs
		got, err := s.Scan(context.Background(), tt.limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if g := slices.Sorted(slices.Values(ids(got))); !slices.Equal(g, tt.want) {
			t.Errorf("%s: Scan = %v, want %v", tt.name, g, tt.want)
		}
		for _, in := range got {
			if in.ID == "session_livegone" && (!in.Live || in.PID != 10) {
				t.Errorf("%s: session_livegone Live %v PID %d, want live as pid 10", tt.name, in.Live, in.PID)
			}
		}
		in, err := s.Session(context.Background(), "session_livegone")
		switch live := tt.procs != nil; {
		case live && (err != nil || !in.Live || in.PID != 10):
			t.Errorf("%s: Session(session_livegone) = Live %v PID %d, %v; want live as pid 10", tt.name, in.Live, in.PID, err)
		case !live && !errors.Is(err, session.ErrNotFound):
			t.Errorf("%s: Session(session_livegone) = %v, want ErrNotFound once it ended", tt.name, err)
		}
	}
}
