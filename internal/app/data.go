package app

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"

	"paddock/internal/auth"
	"paddock/internal/config"
	"paddock/internal/store"
)

// Data is what serve and the admin commands (pair, devices, token) open
// from the data dir: the store and the device and token authority over it.
type Data struct {
	Store *store.Store
	Auth  *auth.Service
}

// OpenData opens (creating on first use) the data dir of cfg.
func OpenData(ctx context.Context, cfg config.Config, log *slog.Logger) (*Data, error) {
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return nil, fmt.Errorf("data dir %s: %w", cfg.DataDir, err)
	}
	st, err := store.Open(ctx, filepath.Join(cfg.DataDir, "paddock.db"), log)
	if err != nil {
		return nil, err
	}
	idle := cfg.DeviceIdle
	if idle == 0 {
		idle = -1 // 0 on the command line: never
	}
	svc := auth.New(auth.Options{Store: st, PairingTTL: cfg.PairingTTL, DeviceIdle: idle, Logger: log})
	return &Data{Store: st, Auth: svc}, nil
}

// Close closes the store.
func (d *Data) Close() error { return d.Store.Close() }
