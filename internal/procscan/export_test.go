package procscan

import (
	"os/exec"
	"testing"
)

// The external tests (package procscan_test) run with the shipped agents'
// CLIs, which internal/agent/registry gives; it imports procscan, so only
// an external test package may import it. These expose what they need.

// Helper is a helper process tree (helper) as the external tests describe
// it.
type Helper struct {
	Argv      []string // the root's argv (argv[0] included)
	Env       []string // added to the root's environment
	Dir       string
	Children  int
	ChildArgv []string
}

// Start is helper.start.
func (h Helper) Start(t testing.TB) *exec.Cmd {
	return helper{argv: h.Argv, env: h.Env, dir: h.Dir, children: h.Children, childArgv: h.ChildArgv}.start(t)
}

// TTYNr is pid's controlling terminal's device number as the walk read it.
func (s *Snapshot) TTYNr(pid int) uint64 { return s.procs[pid].ttyNr }

// Children are pid's children in the snapshot.
func (s *Snapshot) Children(pid int) []int { return s.children[pid] }
