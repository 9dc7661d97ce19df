package live

import (
	"context"
	"log/slog"
	"sync"

	"paddock/internal/hookstate"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// ProcObserver is the Observer of `paddock serve`: one walk of the process
// table per check answers, for every session, whether its agent still
// runs, how much memory it holds with its children, and whether a tool
// call has processes at work; the history catalog adds what the agents'
// own files say (Claude's sessions/<pid>.json: the pid, and "waitingFor"
// while a dialog is open).
type ProcObserver struct {
	// Lookup finds a session in the history catalog; nil for none.
	Lookup func(ctx context.Context, k session.Key) (session.Info, bool)
	Logger *slog.Logger

	mu sync.Mutex
	// starts remembers each pid's start time when first seen alive: the
	// same pid with another start time is another process (pid reuse), and
	// the agent is gone.
	starts map[int]uint64
}

// Observe implements Observer.
func (p *ProcObserver) Observe(ctx context.Context, targets []Target) Report {
	log := p.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var r Report
	if mm, err := procscan.Machine(ctx); err == nil {
		r.Machine = MachineMemory{Total: mm.Total, Used: mm.Used}
	}
	snap, err := procscan.Scan(ctx)
	if err != nil {
		log.Debug("process check failed", "error", err)
		return r
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.starts == nil {
		p.starts = map[int]uint64{}
	}
	r.Sessions = make(map[session.Key]Observation, len(targets))
	for _, t := range targets {
		var ob Observation
		pid := t.PID
		var info session.Info
		var known bool
		if p.Lookup != nil {
			info, known = p.Lookup(ctx, t.Key)
		}
		if pid == 0 && known && info.Live {
			pid, ob.PID = info.PID, info.PID
		}
		if known && info.State == "waiting" && info.WaitingFor != "" {
			ob.Facts.WaitingFor = info.WaitingFor
		}
		if pid > 0 {
			ticks, running := snap.Running(pid)
			if first, seen := p.starts[pid]; running && seen && first != ticks {
				running = false
			}
			if running {
				p.starts[pid] = ticks
				ob.Facts.Process = hookstate.ProcessAlive
				if tm, ok := snap.Trees([]int{pid})[pid]; ok {
					ob.Memory = Memory{RSS: tm.RSS, Processes: tm.Processes}
				}
				if !t.ToolSince.IsZero() {
					ob.Facts.ToolChildren = snap.DescendantsSince(pid, t.ToolSince) > 0
				}
			} else {
				ob.Facts.Process = hookstate.ProcessGone
			}
		}
		r.Sessions[t.Key] = ob
	}
	// Forget pids no target names any more.
	live := make(map[int]bool, len(targets))
	for _, t := range targets {
		live[t.PID] = true
	}
	if len(p.starts) > 4*len(targets)+64 {
		for pid := range p.starts {
			if !live[pid] {
				delete(p.starts, pid)
			}
		}
	}
	return r
}
