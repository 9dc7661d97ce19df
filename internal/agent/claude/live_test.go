package claude

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"paddock/internal/procscan"
	"paddock/internal/testkit/sharedtest"
)

// writePidFile writes <dir>/sessions/<name>.json, starting from the registry
// file Claude Code 2.1.328 wrote (fixture) so the real field set is parsed.
func writePidFile(t *testing.T, dir, name string, base map[string]any, set map[string]any) {
	t.Helper()
	f := make(map[string]any, len(base)+len(set))
	for k, v := range base {
		f[k] = v
	}
	for k, v := range set {
		f[k] = v
	}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sessions", name+".json"), data)
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLiveness(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process start times come from /proc")
	}
	raw, err := os.ReadFile(sharedtest.Fixtures(t, "real", "claude-2.1.328", "sessions-pid.json"))
	if err != nil {
		t.Fatal(err)
	}
	var base map[string]any
	if err := json.Unmarshal(raw, &base); err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	start, err := procscan.StartTicks(self)
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	for _, id := range []string{"idle", "waiting", "reused-pid", "dead-pid", "corrupt", "stale-and-live", "no-proc-start", "bad-types", "unknown-status"} {
		writeSession(t, dir, "p", id, user("u1", "", "task "+id, 0))
	}
	pid := strconv.Itoa(self)
	// This test process plays the running Claude.
	writePidFile(t, dir, pid, base, map[string]any{"pid": self, "procStart": start, "sessionId": "idle"})
	writePidFile(t, dir, "2", base, map[string]any{"pid": self, "procStart": start, "sessionId": "waiting",
		"status": "waiting", "waitingFor": "permission prompt", "tmux": "work:@3.%7"})
	// Same pid, another start time: the pid was reused after a crash.
	writePidFile(t, dir, "3", base, map[string]any{"pid": self, "procStart": start + "1", "sessionId": "reused-pid"})
	// A pid beyond pid_max is never alive.
	writePidFile(t, dir, "4", base, map[string]any{"pid": 1 << 30, "procStart": start, "sessionId": "dead-pid"})
	writeFile(t, filepath.Join(dir, "sessions", "5.json"), []byte(`{"pid":`+pid+`,"sessionId":"corrupt",`))
	// A crash left an old file for the session beside the current one.
	writePidFile(t, dir, "6", base, map[string]any{"pid": 1 << 30, "procStart": "1", "sessionId": "stale-and-live", "status": "busy"})
	writePidFile(t, dir, "7", base, map[string]any{"pid": self, "procStart": start, "sessionId": "stale-and-live", "status": "busy"})
	// Older versions wrote no procStart: a living pid is all there is.
	writePidFile(t, dir, "8", nil, map[string]any{"pid": self, "sessionId": "no-proc-start"})
	writePidFile(t, dir, "9", nil, map[string]any{"pid": "123", "procStart": nil, "sessionId": "bad-types", "status": 7})
	writePidFile(t, dir, "10", base, map[string]any{"pid": self, "procStart": start, "sessionId": "unknown-status", "status": "compacting"})
	writeFile(t, filepath.Join(dir, "sessions", pid+".abc.key"), []byte("not json"))

	type want struct {
		live               bool
		state, waiting, tm string
	}
	tests := map[string]want{
		"idle":           {true, "idle", "", "cc:@0.%0"},
		"waiting":        {true, "waiting", "permission prompt", "work:@3.%7"},
		"reused-pid":     {},
		"dead-pid":       {},
		"corrupt":        {},
		"stale-and-live": {true, "busy", "", "cc:@0.%0"},
		"no-proc-start":  {live: true},
		"bad-types":      {},
		"unknown-status": {true, "", "", "cc:@0.%0"},
	}
	s := newTestScanner(dir)
	got := scanAll(t, s)
	for id, w := range tests {
		info := got[id]
		wantPID := 0
		if w.live {
			wantPID = self
		}
		if info.Live != w.live || info.PID != wantPID || info.State != w.state || info.WaitingFor != w.waiting || info.Tmux != w.tm {
			t.Errorf("%s: live %v pid %d state %q waiting %q tmux %q; want %+v", id, info.Live, info.PID, info.State, info.WaitingFor, info.Tmux, w)
		}
	}

	one, err := s.Session(context.Background(), "waiting")
	if err != nil || !one.Live || one.State != "waiting" {
		t.Errorf("Session(waiting) = %+v, %v", one, err)
	}
}

// The recorded registry file names a pid of the recording machine; here it
// is (almost surely) not that process, and must not count as live.
func TestLivenessRecordedPidFile(t *testing.T) {
	src := sharedtest.Fixtures(t, "real", "claude-2.1.328", "sessions-pid.json")
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		PID       int    `json:"pid"`
		SessionID string `json:"sessionId"`
		ProcStart string `json:"procStart"`
	}
	if err := json.Unmarshal(raw, &reg); err != nil {
		t.Fatal(err)
	}
	if got, _ := procscan.StartTicks(reg.PID); procscan.Alive(reg.PID) && got == reg.ProcStart {
		t.Skip("the recorded pid and start time happen to match a process here")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "sessions", strconv.Itoa(reg.PID)+".json"), raw)
	writeSession(t, dir, "p", reg.SessionID, user("u1", "", "hi", 0))
	info := scanAll(t, newTestScanner(dir))[reg.SessionID]
	if info.Live || info.PID != 0 || info.State != "" {
		t.Errorf("recorded session shown live: %+v", info)
	}
	if info.ID == "" {
		t.Error("session not listed")
	}
}
