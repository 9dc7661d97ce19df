//go:build !linux

package procscan

import (
	"context"
	"time"
)

// scan has no /proc here; gopsutil reads the process table the platform's
// way (sysctl and libproc on macOS).
func scan(ctx context.Context) (map[int]proc, error) {
	return scanGopsutil(ctx)
}

// Agents needs /proc (command lines, working directories, environments,
// terminals) and so reports ErrUnsupported here.
func (s *Snapshot) Agents(ctx context.Context, m *Matcher) ([]AgentProcess, error) {
	return nil, ErrUnsupported
}

// startedAt is unknown here: gopsutil's start ticks are not /proc's.
func startedAt(uint64) time.Time { return time.Time{} }

// OpenFiles needs /proc and so reports ErrUnsupported here.
func OpenFiles(pid int) ([]string, error) { return nil, ErrUnsupported }
