package procscan

import (
	"context"
	"fmt"
	"slices"

	"github.com/shirou/gopsutil/v4/process"
)

// scanGopsutil builds the process table through gopsutil: the fallback
// where there is no /proc, and on Linux the cross-check for the /proc walk
// in tests. It costs several reads per process (NewProcess checks the pid
// and reads its create time, then Ppid, MemoryInfo and Status each read
// again), which is why Linux walks /proc itself.
func scanGopsutil(ctx context.Context) (map[int]proc, error) {
	ps, err := process.ProcessesWithContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("procscan: processes: %w", err)
	}
	procs := make(map[int]proc, len(ps))
	for _, p := range ps {
		ppid, err := p.PpidWithContext(ctx)
		if err != nil {
			continue // exited meanwhile
		}
		row := proc{ppid: int(ppid)}
		if mi, err := p.MemoryInfoWithContext(ctx); err == nil {
			row.rss = mi.RSS
		}
		if st, err := p.StatusWithContext(ctx); err == nil {
			row.zombie = slices.Contains(st, process.Zombie)
		}
		procs[int(p.Pid)] = row
	}
	return procs, ctx.Err()
}
