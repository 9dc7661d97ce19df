package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/config"
	"paddock/internal/search"
)

// IndexPath is where cfg's search index is.
func IndexPath(cfg config.Config) string { return filepath.Join(cfg.DataDir, "search.db") }

// RebuildIndex builds the search index of cfg's data dir again from the
// agents' histories, paddock serve not running (it refuses otherwise):
// the old index is removed first. It reports what the new one holds.
func RebuildIndex(ctx context.Context, cfg config.Config, agents *agent.Registry, log *slog.Logger) (sessions, messages int, took time.Duration, err error) {
	if st, ok := ServeRunning(cfg.DataDir); ok {
		return 0, 0, 0, fmt.Errorf("paddock serve is running (pid %d) and keeps the index current; stop it first to rebuild the index from scratch", st.PID)
	}
	start := time.Now()
	path := IndexPath(cfg)
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return 0, 0, 0, err
		}
	}
	c := HistoryCatalog(cfg, agents, log)
	c.Rescan(ctx)
	ix, err := search.Open(ctx, search.Options{Path: path, Source: c, Tools: cfg.IndexTools, Log: log.With("component", "search")})
	if err != nil {
		return 0, 0, 0, err
	}
	defer ix.Close()
	if _, err := ix.Build(ctx); err != nil {
		return 0, 0, 0, err
	}
	sessions, messages, err = ix.Count(ctx)
	return sessions, messages, time.Since(start), err
}

// ServeRunning is the state of the paddock serve running on dataDir, if
// one does (a serve.json left by one that died does not count).
func ServeRunning(dataDir string) (State, bool) {
	st, err := ReadState(dataDir)
	return st, err == nil && processAlive(st.PID)
}

// processAlive reports whether pid is a running process (of this user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// HistoryCatalog is a catalog over cfg's agents that has not scanned: for
// the commands that read one session (Get, Events) without paddock serve.
func HistoryCatalog(cfg config.Config, agents *agent.Registry, log *slog.Logger) *catalog.Catalog {
	matcher := agents.Processes()
	return catalog.New(catalog.Options{DisableWatch: true, Logger: log.With("component", "catalog")},
		agents.Scanners(agent.Env{Processes: matcher.Shared(time.Second), Logger: log}, cfg.AgentDirs)...)
}
