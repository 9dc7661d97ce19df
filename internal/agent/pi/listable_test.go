package pi

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"paddock/internal/procscan"
)

// A session whose cwd was deleted is listed while Pi still runs it (the
// user is working in it; workdir.Memo.Listable), and dropped once it ends.
// An ephemeral cwd is never listed, live or not. A dropped session takes
// no place in the limit.
func TestLiveSessionInDeletedCwd(t *testing.T) {
	agent := t.TempDir()
	here := t.TempDir()
	gone := filepath.Join(t.TempDir(), "deleted-project")
	writeChat(t, agent, "here-0", here, 0, "x")
	writeChat(t, agent, "here-1", here, 10, "x")
	writeChat(t, agent, "dead-gone", gone, 20, "x")
	writeChat(t, agent, "live-ephemeral", "/tmp/oc-manager-pi/job", 25, "x")
	writeChat(t, agent, "live-gone", gone, 30, "x")
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("%s exists (%v); the test needs it gone", gone, err)
	}
	running := func(id string, pid int) procscan.AgentProcess {
		p := hiddenPi(pid, "/")
		p.SessionID = id
		return p
	}

	tests := []struct {
		name  string
		limit int
		procs []procscan.AgentProcess
		want  []string
	}{
		{"all", -1, []procscan.AgentProcess{running("live-gone", 10), running("live-ephemeral", 11)},
			[]string{"live-gone", "here-1", "here-0"}},
		{"limited: the dropped take no place", 2, []procscan.AgentProcess{running("live-gone", 10), running("live-ephemeral", 11)},
			[]string{"live-gone", "here-1"}},
		{"ended", -1, nil, []string{"here-1", "here-0"}},
	}
	// One scanner for all steps: the last step is the same scanner seeing
	// the process end.
	var procs []procscan.AgentProcess
	s := New(Options{Dir: agent, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	for _, tt := range tests {
		procs = tt.procs
		got, err := s.Scan(context.Background(), tt.limit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(got), tt.want) {
			t.Errorf("%s: Scan = %v, want %v", tt.name, ids(got), tt.want)
		}
		for _, in := range got {
			if in.ID == "live-gone" && (!in.Live || in.PID != 10) {
				t.Errorf("%s: live-gone Live %v PID %d, want live as pid 10", tt.name, in.Live, in.PID)
			}
		}
	}
}
