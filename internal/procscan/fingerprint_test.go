package procscan

import (
	"context"
	"testing"
	"time"
)

// heldFiles stands for the agents whose scanners bind by open files.
func heldFiles(rt string) bool { return rt == "codex" || rt == "cursor" }

func TestFingerprints(t *testing.T) {
	base := []AgentProcess{
		{PID: 10, Runtime: "claude", StartTicks: "100", Cwd: "/w", TTY: "/dev/pts/1", Argv: []string{"claude"}, Interactive: true},
		{PID: 20, Runtime: "codex", StartTicks: "200", Cwd: "/w", Argv: []string{"codex"}, Inner: []int{21}},
	}
	baseFiles := map[int][]string{10: {"/a"}, 21: {"/h/.codex/sessions/r1.jsonl"}}
	tests := []struct {
		name   string
		change func(p []AgentProcess, files map[int][]string)
		moved  map[string]bool // runtimes whose fingerprint must change
	}{
		{"nothing", func([]AgentProcess, map[int][]string) {}, nil},
		{"claude restarted under the same pid", func(p []AgentProcess, _ map[int][]string) { p[0].StartTicks = "101" }, map[string]bool{"claude": true}},
		{"claude's cwd", func(p []AgentProcess, _ map[int][]string) { p[0].Cwd = "/x" }, map[string]bool{"claude": true}},
		{"codex resumed by argument", func(p []AgentProcess, _ map[int][]string) { p[1].ArgSessionID = "t1" }, map[string]bool{"codex": true}},
		{"codex's paddock terminal", func(p []AgentProcess, _ map[int][]string) { p[1].TerminalID = "pdk-1" }, map[string]bool{"codex": true}},
		{"codex's inner process", func(p []AgentProcess, _ map[int][]string) { p[1].Inner = []int{22} }, map[string]bool{"codex": true}},
		{"codex holds another rollout (resumed inside the TUI)", func(_ []AgentProcess, f map[int][]string) {
			f[21] = []string{"/h/.codex/sessions/r2.jsonl"}
		}, map[string]bool{"codex": true}},
		{"claude's open files are not read", func(_ []AgentProcess, f map[int][]string) { f[10] = []string{"/b"} }, nil},
	}
	fpOf := func(p []AgentProcess, files map[int][]string) map[string]uint64 {
		f := Fingerprints(func(context.Context) ([]AgentProcess, error) { return p, nil },
			func(pid int) ([]string, error) { return files[pid], nil }, 0, heldFiles)
		m, err := f(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clone := func() ([]AgentProcess, map[int][]string) {
				p := make([]AgentProcess, len(base))
				copy(p, base)
				files := map[int][]string{}
				for k, v := range baseFiles {
					files[k] = append([]string(nil), v...)
				}
				return p, files
			}
			p0, f0 := clone()
			p1, f1 := clone()
			tt.change(p1, f1)
			// One fingerprint function, as paddock keeps one: its hash seed
			// is its own.
			fp := Fingerprints(func(context.Context) ([]AgentProcess, error) { return p0, nil },
				func(pid int) ([]string, error) { return f0[pid], nil }, 0, heldFiles)
			before, _ := fp(context.Background())
			p0, f0 = p1, f1
			after, _ := fp(context.Background())
			for _, rt := range []string{"claude", "codex"} {
				if moved := before[rt] != after[rt]; moved != tt.moved[rt] {
					t.Errorf("%s moved = %v, want %v", rt, moved, tt.moved[rt])
				}
			}
		})
	}
	if m := fpOf(nil, nil); len(m) != 0 {
		t.Errorf("no processes: %v, want none", m)
	}

	// Within its TTL one answer serves every sweep: the process table and
	// the open files are not read again.
	walks := 0
	cached := Fingerprints(func(context.Context) ([]AgentProcess, error) { walks++; return base, nil },
		func(int) ([]string, error) { return nil, nil }, time.Hour, heldFiles)
	a, _ := cached(context.Background())
	a["codex"]++ // the caller's copy
	b, _ := cached(context.Background())
	if walks != 1 || a["codex"] == b["codex"] {
		t.Errorf("%d walks within the TTL (want 1), or the cached answer was the caller's copy", walks)
	}
}
