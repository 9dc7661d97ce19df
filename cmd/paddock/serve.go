package main

import (
	"context"
	"io"
	"os"
	"time"

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
	st := a.State()
	// A pairing link is a credential for ten minutes: it goes only to a
	// person at a terminal, or to the first start's output, when no device
	// could pair otherwise. Under a service manager stdout is a log file
	// others may read; `paddock pair` prints one on demand.
	paired, err := a.PairedDevices(ctx)
	if err != nil {
		return err
	}
	link, expires := "", time.Time{}
	if paired == 0 || isTerminal(stdout) {
		code, exp, err := a.NewPairingCode(ctx)
		if err != nil {
			return err
		}
		link, expires = app.PairLink(st.URLs, code), exp
	}
	printBanner(stdout, st, a.CAFingerprint(), link, expires)
	offerHookInstall(stdout, cfg, getenv)
	return a.Run(ctx)
}

// isTerminal says whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
