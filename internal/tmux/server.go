package tmux

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ServerPID is the pid of paddock's tmux server; ErrNoServer when none is
// running. A different pid than last time means the server restarted: every
// pane from before is gone (see Reconcile).
func (s *Server) ServerPID(ctx context.Context) (int, error) {
	out, err := s.run(ctx, call{cmds: []command{{"display-message", "-p", "#{pid}"}}})
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("tmux: server pid %q: %w", strings.TrimSpace(out), errRecord)
	}
	return pid, nil
}

// Running reports whether paddock's tmux server answers.
func (s *Server) Running(ctx context.Context) bool {
	_, err := s.ServerPID(ctx)
	return err == nil
}

// Reconciliation is the server's state measured against the panes paddock
// believes it runs.
type Reconciliation struct {
	// ServerPID is the running server's pid, 0 when none runs; compared
	// with the last one seen it tells a restart (crash) apart.
	ServerPID int
	// Recovered counts known panes whose program still runs (Alive);
	// Orphaned counts known panes whose program has ended (Dead) or whose
	// window is gone (Gone).
	Recovered, Orphaned int
	// Alive are the known panes still running: keep driving them.
	Alive []Pane
	// Dead are known panes whose program exited while their window stays
	// (remain-on-exit): read the last screen and exit, mark the session
	// ended, then Kill.
	Dead []Info
	// Gone are known panes no longer on the server (killed behind
	// paddock's back, or lost with a crashed server): mark them ended.
	Gone []Pane
	// Unknown are panes on the server that paddock does not know (a
	// window started before paddock's records were written, or by hand):
	// adopt or Kill them.
	Unknown []Info
}

// Reconcile compares known (the panes paddock's records say it runs) with
// the server. A known pane matches a pane on the server only if session
// name, window id and pane id all agree — and the pid too, when known has
// one — so after a server restart a new pane that reuses an old id is not
// taken for the old one. No server running is not an error: every known
// pane is then Gone.
func (s *Server) Reconcile(ctx context.Context, known []Pane) (Reconciliation, error) {
	var r Reconciliation
	pid, err := s.ServerPID(ctx)
	switch {
	case errors.Is(err, ErrNoServer):
	case err != nil:
		return r, err
	default:
		r.ServerPID = pid
	}
	infos, err := s.List(ctx)
	if err != nil {
		return r, err
	}
	type key struct{ session, window, pane string }
	live := make(map[key]int, len(infos)) // index into infos
	for i, in := range infos {
		live[key{in.Session, in.Window, in.ID}] = i
	}
	claimed := make([]bool, len(infos))
	for _, p := range known {
		i, ok := live[key{p.Session, p.Window, p.ID}]
		if !ok || p.PID > 0 && infos[i].PID != p.PID {
			r.Gone = append(r.Gone, p)
			continue
		}
		claimed[i] = true
		if infos[i].Dead {
			r.Dead = append(r.Dead, infos[i])
		} else {
			r.Alive = append(r.Alive, infos[i].Pane)
		}
	}
	for i, in := range infos {
		if !claimed[i] {
			r.Unknown = append(r.Unknown, in)
		}
	}
	r.Recovered = len(r.Alive)
	r.Orphaned = len(r.Dead) + len(r.Gone)
	return r, nil
}

// KillServer kills paddock's tmux server and every window on it; no server
// is not an error. paddock itself never calls it — hosted sessions outlive
// paddock — it is for tests and for throw-away data directories.
func (s *Server) KillServer(ctx context.Context) error {
	_, err := s.run(ctx, call{cmds: []command{{"kill-server"}}})
	if errors.Is(err, ErrNoServer) {
		return nil
	}
	return err
}
