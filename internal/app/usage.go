package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"paddock/internal/agent"
	"paddock/internal/config"
	"paddock/internal/history"
	"paddock/internal/usage"
)

// UsagePath is where cfg's usage file is.
func UsagePath(cfg config.Config) string { return filepath.Join(cfg.DataDir, "usage.db") }

// usageService is the usage file and what keeps it current, as the web
// server asks them.
type usageService struct {
	*usage.Store
	*usage.Index
}

// ReadUsage brings cfg's usage file up to date from the agents'
// histories, paddock serve not running (it refuses otherwise: serve keeps
// the file current and answers `paddock usage` itself), and returns it
// open. Only sessions that changed since the file was last brought up to
// date are read, and of those only what they gained.
func ReadUsage(ctx context.Context, cfg config.Config, agents *agent.Registry, log *slog.Logger) (*usage.Store, time.Duration, error) {
	if st, ok := ServeRunning(cfg.DataDir); ok {
		return nil, 0, fmt.Errorf("paddock serve is running (pid %d): ask it", st.PID)
	}
	start := time.Now()
	prices, err := usage.LoadPrices(filepath.Join(cfg.DataDir, usage.PricesFile))
	if err != nil {
		return nil, 0, err
	}
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return nil, 0, err
	}
	st, err := usage.OpenStore(ctx, usage.StoreOptions{Path: UsagePath(cfg), Prices: prices, Log: log.With("component", "usage")})
	if err != nil {
		return nil, 0, err
	}
	c := HistoryCatalog(cfg, agents, log)
	c.Rescan(ctx)
	// Databases are read from private copies, one per database for the
	// whole build rather than one per session.
	snaps := history.NewSnapshots(history.SnapshotOptions{Dir: filepath.Join(cfg.DataDir, "cache"), KeepBytes: snapshotKeepBytes})
	defer snaps.Close()
	ix := usage.NewIndex(usage.Options{Store: st, Source: c, Log: log.With("component", "usage"),
		Readers: agents.UsageReaders(agent.Env{Logger: log, Snapshots: snaps}, cfg.AgentDirs)})
	if _, err := ix.Build(ctx); err != nil {
		st.Close()
		return nil, 0, err
	}
	return st, time.Since(start), nil
}
