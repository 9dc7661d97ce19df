//go:build linux

package cursor

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"paddock/internal/procscan"
)

// A real process holding a chat's store.db open (as Cursor does) is found
// through /proc/<pid>/fd (procscan.OpenFiles), and is no longer once it
// exits. The fake Processes names its pid, as a procscan.Matcher's Agents
// would.
func TestLivenessRealOpenStore(t *testing.T) {
	root, proj := liveTree(t)
	f, err := os.Open(storeOf(root, proj, idTop2))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "60")
	cmd.ExtraFiles = []*os.File{f}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	exited := false
	defer func() {
		if !exited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	procs := func(context.Context) ([]procscan.AgentProcess, error) {
		return []procscan.AgentProcess{{PID: pid, Runtime: "cursor", Cwd: proj}}, nil
	}
	s := New(Options{Dir: root, Processes: procs})
	if info := scanAll(t, s)[idTop2]; !info.Live || info.PID != pid {
		t.Errorf("while open: live %v pid %d, want pid %d", info.Live, info.PID, pid)
	}
	for id, info := range scanAll(t, s) {
		if id != idTop2 && info.Live {
			t.Errorf("%s live too", id)
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	exited = true
	if info := scanAll(t, s)[idTop2]; info.Live {
		t.Errorf("after exit: still live (pid %d)", info.PID)
	}
}
