package procscan

import (
	"context"
	"hash/maphash"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Fingerprints summarises the agent processes per runtime for
// catalog.Options.ProcessFingerprint: everything the scanners bind
// liveness with (pid and start, command line, working directory,
// terminal, paddock's environment ids, the processes beneath it, and for
// the runtimes heldFiles names the files they hold open: a session
// resumed inside a running TUI changes nothing else a sweep could see).
// The catalog rescans a runtime whose fingerprint moved.
func Fingerprints(procs func(ctx context.Context) ([]AgentProcess, error), openFiles func(pid int) ([]string, error), ttl time.Duration, heldFiles func(runtime string) bool) func(ctx context.Context) (map[string]uint64, error) {
	seed := maphash.MakeSeed()
	// The snapshot it hashes changes at most once per ttl (the shared
	// snapshot's), and the
	// catalog sweeps after every burst of file events (several a second
	// while an agent streams): one answer serves that second, rather than
	// reading every Codex and Cursor process's open files each time.
	var mu sync.Mutex
	var last map[string]uint64
	var at time.Time
	return func(ctx context.Context) (map[string]uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		if last != nil && time.Since(at) < ttl {
			return maps.Clone(last), nil
		}
		list, err := procs(ctx)
		if err != nil {
			return nil, err
		}
		byRuntime := make(map[string]*maphash.Hash)
		for _, p := range list {
			h := byRuntime[p.Runtime]
			if h == nil {
				h = new(maphash.Hash)
				h.SetSeed(seed)
				byRuntime[p.Runtime] = h
			}
			// The list is sorted by pid, so equal sets hash equally.
			field := func(s string) { h.WriteString(s); h.WriteByte(0) }
			field(strconv.Itoa(p.PID))
			field(p.StartTicks)
			field(p.Cwd)
			field(p.TTY)
			field(p.ArgSessionID)
			field(p.TerminalID)
			field(p.SessionID)
			field(strconv.FormatBool(p.Interactive))
			field(strconv.FormatBool(p.ArgsHidden))
			for _, a := range p.Argv {
				field(a)
			}
			h.WriteByte(1)
			for _, pid := range p.Inner {
				field(strconv.Itoa(pid))
			}
			h.WriteByte(2)
			if heldFiles != nil && heldFiles(p.Runtime) {
				for _, pid := range append([]int{p.PID}, p.Inner...) {
					files, err := openFiles(pid)
					if err != nil {
						continue // gone since the snapshot, or not ours to read
					}
					slices.Sort(files)
					for _, f := range files {
						field(f)
					}
					h.WriteByte(3)
				}
			}
		}
		out := make(map[string]uint64, len(byRuntime))
		for rt, h := range byRuntime {
			out[rt] = h.Sum64()
		}
		last, at = out, time.Now()
		return maps.Clone(out), nil
	}
}
