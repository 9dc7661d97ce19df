package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"syscall"

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

// startError says plainly why serve could not start when the data dir's
// disk is the cause — it is full or read-only — and what to do; any other
// error is returned as it is.
func startError(dir string, err error) error {
	reason, full := "", false
	if we, ok := errors.AsType[*store.WriteError](err); ok {
		reason, full = we.Reason, we.Full()
	}
	switch {
	case full || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("cannot start: the disk holding the data dir %s is full; free some space and start paddock again (%w)", dir, err)
	case reason != "":
		return fmt.Errorf("cannot start: %s (data dir %s) (%w)", reason, dir, err)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("cannot start: the data dir %s is on a read-only disk; set PADDOCK_HOME to a writable directory (%w)", dir, err)
	}
	return err
}
