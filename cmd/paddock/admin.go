package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"paddock/certs"
	"paddock/internal/app"
	"paddock/internal/config"
)

// cmdPair prints a new pairing link for the running (or next) serve.
func cmdPair(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := loadConfig("pair", args, stderr, getenv, false)
	if err != nil {
		return err
	}
	a, err := app.OpenData(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	if err != nil {
		return err
	}
	defer a.Close()
	code, expires, err := a.Auth.NewPairingCode(ctx)
	if err != nil {
		return err
	}
	urls, err := servedURLs(cfg)
	if err != nil {
		return err
	}
	printPairing(stdout, app.PairLink(urls, code), expires)
	return nil
}

// servedURLs prefers the addresses the running serve wrote down; without
// one it derives them from the configured port and the certificate.
func servedURLs(cfg config.Config) ([]string, error) {
	if st, err := app.ReadState(cfg.DataDir); err == nil && len(st.URLs) > 0 {
		return st.URLs, nil
	}
	cm, err := certs.Load(certs.Options{Dir: cfg.DataDir, Hosts: cfg.ExtraHosts})
	if err != nil {
		return nil, err
	}
	port := 7443
	if _, p, err := splitPort(cfg.Addr); err == nil && p != 0 {
		port = p
	}
	return app.DashboardURLs(cm.LeafSANs(), port), nil
}

func cmdDevices(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	sub := "list"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		sub, args = args[0], args[1:]
	}
	cfg, fs, err := loadConfig("devices", args, stderr, getenv, false)
	if err != nil {
		return err
	}
	a, err := app.OpenData(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	if err != nil {
		return err
	}
	defer a.Close()
	switch sub {
	case "list":
		devs, err := a.Auth.ListDevices(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tPAIRED\tLAST SEEN\tSTATUS")
		for _, d := range devs {
			status := "active"
			if !d.RevokedAt.IsZero() {
				status = "revoked"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", d.ID, d.Name, day(d.CreatedAt), day(d.LastSeenAt), status)
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return errors.New("usage: paddock devices revoke ID")
		}
		if err := a.Auth.RevokeDevice(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "revoked device", fs.Arg(0))
		return nil
	}
	return fmt.Errorf("unknown devices command %q (list, revoke)", sub)
}

func cmdToken(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return errors.New("usage: paddock token create [--expires DURATION] NAME | list | revoke ID")
	}
	sub, args := args[0], args[1:]
	// --expires belongs to create alone; the rest are the common flags.
	expires := new(time.Duration)
	for i := 0; i < len(args); i++ {
		raw, ok := strings.CutPrefix(args[i], "--expires=")
		if !ok && args[i] == "--expires" && i+1 < len(args) {
			raw, ok = args[i+1], true
			args = append(args[:i:i], args[i+1:]...)
		}
		if ok {
			d, err := time.ParseDuration(raw)
			if err != nil || d <= 0 || sub != "create" {
				return errors.New("--expires goes with token create, as a duration such as 720h (30 days)")
			}
			*expires = d
			args = append(args[:i:i], args[i+1:]...)
			i--
		}
	}
	cfg, fs, err := loadConfig("token", args, stderr, getenv, false)
	if err != nil {
		return err
	}
	a, err := app.OpenData(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	if err != nil {
		return err
	}
	defer a.Close()
	switch sub {
	case "create":
		if fs.NArg() != 1 {
			return errors.New("usage: paddock token create [--expires DURATION] NAME")
		}
		tok, t, err := a.Auth.CreateTokenFor(ctx, fs.Arg(0), *expires)
		if err != nil {
			return err
		}
		until := "until revoked"
		if !t.ExpiresAt.IsZero() {
			until = "until " + t.ExpiresAt.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(stdout, "created token %s (%s), valid %s; it is shown only now:\n%s\n", t.ID, t.Name, until, tok)
		return nil
	case "list":
		toks, err := a.Auth.ListTokens(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tCREATED\tLAST USED\tEXPIRES\tSTATUS")
		for _, t := range toks {
			status := "active"
			switch {
			case !t.RevokedAt.IsZero():
				status = "revoked"
			case !t.ExpiresAt.IsZero() && !time.Now().Before(t.ExpiresAt):
				status = "expired"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, day(t.CreatedAt), day(t.LastUsedAt), day(t.ExpiresAt), status)
		}
		return tw.Flush()
	case "revoke":
		if fs.NArg() != 1 {
			return errors.New("usage: paddock token revoke ID")
		}
		if err := a.Auth.RevokeToken(ctx, fs.Arg(0)); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "revoked token", fs.Arg(0))
		return nil
	}
	return fmt.Errorf("unknown token command %q (create, list, revoke)", sub)
}

// cmdCA prints where the CA certificate is and its fingerprint, creating
// it if serve has never run.
func cmdCA(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, _, err := loadConfig("ca", args, stderr, getenv, false)
	if err != nil {
		return err
	}
	if err := config.EnsureDataDir(cfg.DataDir); err != nil {
		return err
	}
	cm, err := certs.Load(certs.Options{Dir: cfg.DataDir, Hosts: cfg.ExtraHosts})
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "CA certificate:", filepath.Join(cfg.DataDir, "ca.pem"))
	fmt.Fprintln(stdout, "SHA-256:", cm.CAFingerprint())
	return nil
}

func day(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}
