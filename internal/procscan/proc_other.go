//go:build !linux

package procscan

import "context"

// scan has no /proc here; gopsutil reads the process table the platform's
// way (sysctl and libproc on macOS).
func scan(ctx context.Context) (map[int]proc, error) {
	return scanGopsutil(ctx)
}

// Agents needs /proc (command lines, working directories, environments,
// terminals) and so reports ErrUnsupported here.
func (s *Snapshot) Agents(ctx context.Context) ([]AgentProcess, error) {
	return nil, ErrUnsupported
}
