package procscan

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Shared returns an Agents func that walks the process table at most once
// per ttl: the agents' scanners, run at the same moment, all ask which
// agents run, and one walk answers them all (one snapshot per check).
// Concurrent callers wait for the walk in progress rather than starting
// their own. Each caller gets its own copy.
func (m *Matcher) Shared(ttl time.Duration) func(ctx context.Context) ([]AgentProcess, error) {
	return sharedWith(ttl, m.Agents, time.Now)
}

func sharedWith(ttl time.Duration, scan func(context.Context) ([]AgentProcess, error), now func() time.Time) func(ctx context.Context) ([]AgentProcess, error) {
	var mu sync.Mutex
	var last []AgentProcess
	var at time.Time
	return func(ctx context.Context) ([]AgentProcess, error) {
		mu.Lock()
		defer mu.Unlock()
		if at.IsZero() || now().Sub(at) >= ttl {
			procs, err := scan(ctx)
			if err != nil {
				return nil, err
			}
			last, at = procs, now()
		}
		out := make([]AgentProcess, len(last))
		for i, p := range last {
			p.Argv, p.Inner = slices.Clone(p.Argv), slices.Clone(p.Inner)
			out[i] = p
		}
		return out, nil
	}
}
