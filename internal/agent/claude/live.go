package claude

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"paddock/internal/procscan"
)

// pidFile is one ~/.claude/sessions/<pid>.json: Claude Code writes it while
// an interactive session runs and removes it on exit. A crash leaves it
// behind, so the pid it names must still be alive and still be the same
// process (same start time) before the session counts as live.
type pidFile struct {
	pid        int
	sessionID  string
	procStart  string
	status     string
	waitingFor string
	tmux       string
	updatedAt  float64
}

// maxPidFileBytes bounds what is read of one registry file; real ones are
// well under 1 KB.
const maxPidFileBytes = 64 << 10

// readPidFiles reads every <Dir>/sessions/*.json once, grouped by session
// id. Unreadable or corrupt files, and files without a numeric pid and a
// session id, are skipped: they cannot prove anything is live.
func readPidFiles(dir string) map[string][]pidFile {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(map[string][]pidFile)
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || e.IsDir() {
			continue
		}
		p, ok := readPidFile(filepath.Join(dir, name))
		if ok && p.pid > 0 && p.sessionID != "" {
			out[p.sessionID] = append(out[p.sessionID], p)
		}
	}
	return out
}

func readPidFile(path string) (pidFile, bool) {
	f, err := os.Open(path)
	if err != nil {
		return pidFile{}, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPidFileBytes))
	if err != nil {
		return pidFile{}, false
	}
	var raw map[string]any
	if json.Unmarshal(data, &raw) != nil {
		return pidFile{}, false
	}
	p := pidFile{
		sessionID:  str(raw["sessionId"]),
		procStart:  str(raw["procStart"]),
		status:     str(raw["status"]),
		waitingFor: str(raw["waitingFor"]),
		tmux:       str(raw["tmux"]),
	}
	if n, ok := raw["pid"].(float64); ok && n > 0 && n <= math.MaxInt32 && n == math.Trunc(n) {
		p.pid = int(n)
	}
	if p.procStart == "" {
		// Tolerate a number where the current version writes a string.
		if n, ok := raw["procStart"].(float64); ok && n >= 0 && n == math.Trunc(n) {
			p.procStart = strconv.FormatFloat(n, 'f', 0, 64)
		}
	}
	p.updatedAt, _ = raw["updatedAt"].(float64)
	return p, true
}

// str returns v when it is a string, "" for null or any other type.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// live reports whether the process of p is running now.
//
// procStart is the process start time in clock ticks since boot (field 22
// of /proc/<pid>/stat); it must match, or the pid has been reused by some
// other process since a crash. Registry files without procStart (older
// Claude versions) can only be checked for a living pid.
func (p pidFile) live() bool {
	if !procscan.Alive(p.pid) {
		return false
	}
	if p.procStart == "" {
		return true
	}
	start, err := procscan.StartTicks(p.pid)
	return err == nil && start == p.procStart
}

// liveFor returns the live registry entry of a session, if any. When stale
// files from crashed runs sit beside the current one, the live one wins;
// among several live ones the most recently updated.
func liveFor(files []pidFile) (pidFile, bool) {
	var best pidFile
	found := false
	for _, p := range files {
		if (!found || p.updatedAt > best.updatedAt) && p.live() {
			best, found = p, true
		}
	}
	return best, found
}

// coarseState maps the registry's status to session.Info.State; unknown
// values become "" rather than leaking an unplanned state into the UI.
func coarseState(status string) string {
	switch status {
	case "idle", "busy", "waiting":
		return status
	}
	return ""
}
