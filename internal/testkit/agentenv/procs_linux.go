//go:build linux

package agentenv

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// ownedProcs returns the live (non-zombie) processes a Tmux owns: roots
// and their descendants, plus every process whose environment carries
// marker.
// The marker catches what escapes the tree: Codex 0.169 starts an app-server
// daemon that detaches (setsid) and outlives the TUI, re-parented to init.
func ownedProcs(roots []int, marker string) []int {
	type info struct {
		ppid   int
		zombie bool
	}
	procs := map[int]info{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // exited meanwhile
		}
		// Fields after the last ')' (the command name may hold spaces):
		// state, ppid, …
		end := bytes.LastIndexByte(stat, ')')
		if end < 0 {
			continue
		}
		f := bytes.Fields(stat[end+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		procs[pid] = info{ppid: ppid, zombie: deadStat(stat)}
	}
	owned := map[int]bool{}
	for _, root := range roots {
		if _, ok := procs[root]; ok && root > 0 {
			owned[root] = true
		}
	}
	// Walk down from the roots until no new child appears.
	for grew := true; grew; {
		grew = false
		for pid, in := range procs {
			if !owned[pid] && owned[in.ppid] {
				owned[pid] = true
				grew = true
			}
		}
	}
	if marker != "" {
		needle := []byte(marker + "\x00")
		self := os.Getpid()
		for pid := range procs {
			if owned[pid] || pid == self {
				continue
			}
			env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
			if err == nil && (bytes.Contains(env, append([]byte{0}, needle...)) || bytes.HasPrefix(env, needle)) {
				owned[pid] = true
			}
		}
	}
	var out []int
	for pid := range owned {
		if !procs[pid].zombie {
			out = append(out, pid)
		}
	}
	return out
}

// alive reports whether pid exists and is not dead. A zombie is dead (it
// only waits to be reaped) unless other threads of it still run: a thread
// group leader shows as a zombie while its threads live on.
func alive(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	return !deadStat(stat)
}

// deadStat reads the state (field 3) and num_threads (field 20) of a
// /proc/<pid>/stat line.
func deadStat(stat []byte) bool {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return true
	}
	f := bytes.Fields(stat[end+1:])
	if len(f) < 18 {
		return true
	}
	switch string(f[0]) {
	case "Z":
		return string(f[17]) == "1"
	case "X":
		return true
	}
	return false
}
