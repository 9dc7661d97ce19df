package cursor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"paddock/internal/procscan"
)

// A chat whose cwd was deleted is listed while a cursor-agent still runs
// it (workdir.Memo.Listable), as a pinned one is, and dropped once it
// ends. An ephemeral cwd is never listed, live or not. A dropped chat
// takes no place in the limit.
func TestLiveChatInDeletedCwd(t *testing.T) {
	const (
		idHere0      = "aaaaaaaa-0000-4000-8000-000000000000"
		idHere1      = "aaaaaaaa-0000-4000-8000-000000000001"
		idDeadGone   = "aaaaaaaa-0000-4000-8000-000000000002"
		idLiveEph    = "aaaaaaaa-0000-4000-8000-000000000003"
		idLiveGone   = "aaaaaaaa-0000-4000-8000-000000000004"
		idPinnedGone = "aaaaaaaa-0000-4000-8000-000000000005"
	)
	root := t.TempDir()
	here := t.TempDir()
	gone := filepath.Join(t.TempDir(), "deleted-project")
	base := time.Now().Add(-time.Hour)
	for i, c := range []struct{ id, cwd string }{
		{idPinnedGone, gone},
		{idHere0, here},
		{idHere1, here},
		{idDeadGone, gone},
		{idLiveEph, "/tmp/oc-manager-cursor/job"},
		{idLiveGone, gone},
	} {
		writeChat(t, root, chatSpec{id: c.id, cwd: c.cwd, mtime: base.Add(time.Duration(i) * time.Minute),
			meta: map[string]any{"title": c.id, "cwd": c.cwd, "hasConversation": true}})
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Fatalf("%s exists (%v); the test needs it gone", gone, err)
	}
	resuming := func(id string, pid int) procscan.AgentProcess {
		return procscan.AgentProcess{PID: pid, Runtime: "cursor", Cwd: "/", Interactive: true, ArgSessionID: id,
			Started: time.Unix(1_700_000_000+int64(pid), 0)}
	}
	both := []procscan.AgentProcess{resuming(idLiveGone, 10), resuming(idLiveEph, 11)}

	tests := []struct {
		name  string
		limit int
		keep  []string
		procs []procscan.AgentProcess
		want  []string // sorted
	}{
		{"all", -1, nil, both, []string{idHere0, idHere1, idLiveGone}},
		{"limited: the dropped take no place", 2, nil, both, []string{idHere1, idLiveGone}},
		{"pinned", -1, []string{idPinnedGone}, both, []string{idHere0, idHere1, idLiveGone, idPinnedGone}},
		{"ended", -1, nil, nil, []string{idHere0, idHere1}},
	}
	// One scanner for all steps: the last step is the same scanner seeing
	// the process end.
	var procs []procscan.AgentProcess
	s := New(Options{Dir: root, Processes: func(context.Context) ([]procscan.AgentProcess, error) { return procs, nil }})
	s.openFiles = func(int) ([]string, error) { return nil, procscan.ErrNotRunning }
	for _, tt := range tests {
		procs = tt.procs
		got, err := s.Scan(context.Background(), tt.limit, tt.keep)
		if err != nil {
			t.Fatal(err)
		}
		var gotIDs []string
		for _, in := range got {
			gotIDs = append(gotIDs, in.ID)
			if in.ID == idLiveGone && (!in.Live || in.PID != 10) {
				t.Errorf("%s: the live chat: Live %v PID %d, want live as pid 10", tt.name, in.Live, in.PID)
			}
		}
		slices.Sort(gotIDs)
		if !slices.Equal(gotIDs, tt.want) {
			t.Errorf("%s: Scan = %v, want %v", tt.name, gotIDs, tt.want)
		}
	}
}
