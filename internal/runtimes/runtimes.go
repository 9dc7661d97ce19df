// Package runtimes is the one place that knows every agent runtime paddock
// reads: it builds each runtime's scanner (internal/agent/<runtime>) with
// its data directories from the environment, all sharing one process
// snapshot, for the catalog, and collects each runtime's launch and resume
// recipe (Recipes) for hosted sessions. Nothing outside this package and
// the runtimes' own packages names a runtime to pick its scanning or
// launching code.
package runtimes

import (
	"context"
	"log/slog"
	"time"

	"paddock/internal/agent/claude"
	"paddock/internal/agent/codex"
	"paddock/internal/agent/cursor"
	"paddock/internal/agent/kimi"
	"paddock/internal/agent/opencode"
	"paddock/internal/agent/pi"
	"paddock/internal/catalog"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// Options configure the scanners. Zero values take the agents' own
// defaults (their environment variables, else their home directories).
type Options struct {
	ClaudeDir string // ~/.claude unless set
	// Processes lists the running agent processes; default: one walk of
	// the process table shared by all runtimes for a second.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// HostedSession names the session a paddock-hosted terminal runs
	// (from the live state), for runtimes whose processes hide their
	// arguments (Pi); nil: none.
	HostedSession func(terminalID string) (session.Key, bool)
	Logger        *slog.Logger
}

// Set is every runtime's scanner.
type Set struct {
	Claude *claude.Scanner // also reads subagent transcripts
	All    []catalog.Scanner
	// ProcessFingerprint is for catalog.Options: it summarises each
	// runtime's agent processes from the snapshot the scanners share.
	ProcessFingerprint func(ctx context.Context) (map[string]uint64, error)
}

// snapshotTTL is how long one process walk serves the scanners: they run
// concurrently, within milliseconds of each other.
const snapshotTTL = time.Second

// New builds the scanners of all six runtimes.
func New(o Options) Set {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	procs := o.Processes
	if procs == nil {
		procs = procscan.Shared(snapshotTTL)
	}
	cl := claude.New(claude.Options{Dir: o.ClaudeDir, Logger: log}) // each scanner adds runtime= itself

	co := codex.DefaultOptions()
	co.Processes, co.Logger = procs, log

	oc := opencode.DefaultOptions()
	oc.Processes, oc.Logger = procs, log

	ki := kimi.DefaultOptions()
	ki.Processes, ki.Logger = procs, log

	cu := cursor.DefaultOptions()
	cu.Processes, cu.Logger = procs, log

	pio := pi.Options{Dir: pi.DefaultDir(), Processes: procs, Logger: log}
	if o.HostedSession != nil {
		pio.TerminalSession = func(id string) string {
			if k, ok := o.HostedSession(id); ok && k.Runtime == "pi" {
				return k.ID
			}
			return ""
		}
	}

	return Set{
		Claude:             cl,
		All:                []catalog.Scanner{cl, codex.New(co), opencode.New(oc), kimi.New(ki), cursor.New(cu), pi.New(pio)},
		ProcessFingerprint: fingerprints(procs, procscan.OpenFiles, snapshotTTL),
	}
}
