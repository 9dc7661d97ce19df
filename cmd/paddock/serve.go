package main

import (
	"context"
	"io"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
)

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := loadConfig("serve", args, stderr, getenv, true)
	if err != nil {
		return err
	}
	a, err := app.New(ctx, cfg, app.Options{Agents: registry.Default(), Logger: newLogger(stderr, cfg.LogLevel), Version: version})
	if err != nil {
		return err
	}
	defer a.Close()
	code, expires, err := a.NewPairingCode(ctx)
	if err != nil {
		return err
	}
	st := a.State()
	printBanner(stdout, st, a.CAFingerprint(), app.PairLink(st.URLs, code), expires)
	offerHookInstall(stdout, cfg, getenv)
	return a.Run(ctx)
}
