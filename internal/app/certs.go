package app

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"paddock/certs"
	"paddock/internal/config"
	"slices"
	"time"
)

// certRefresh is how often the leaf certificate is checked against the
// machine's addresses and its expiry.
const certRefresh = 10 * time.Minute

// certManager is what the app needs from the certificate code.
type certManager interface {
	TLSConfig() *tls.Config
	CAPEM() []byte
	CAFingerprint() string
	LeafSANs() []string
	Refresh() (bool, error)
	TailnetName() string
	RefreshTailnet(ctx context.Context) error
}

func loadCerts(cfg config.Config, log *slog.Logger) (certManager, error) {
	if cfg.CertFile != "" {
		return certs.Custom(cfg.CertFile, cfg.KeyFile)
	}
	o := certs.Options{Dir: cfg.DataDir, Hosts: cfg.ExtraHosts, Logger: log.With("component", "certs")}
	if cfg.Tailnet {
		o.Tailnet = &certs.Tailnet{Dir: cfg.DataDir}
	}
	return certs.Load(o)
}

// tailnetStart is how long start-up waits for Tailscale's certificate;
// a slower first issue is picked up by the refresh loop.
const tailnetStart = 8 * time.Second

// refreshTailnet gets or renews the tailnet certificate, saying when the
// name served changes; a machine off any tailnet is not worth a warning.
func refreshTailnet(ctx context.Context, cm certManager, log *slog.Logger) {
	before := cm.TailnetName()
	err := cm.RefreshTailnet(ctx)
	switch {
	case err == nil && cm.TailnetName() != before:
		log.Info("serving the tailnet name with Tailscale's certificate", "name", cm.TailnetName())
	case errors.Is(err, certs.ErrNoTailnet):
		log.Debug("no tailnet certificate", "error", err)
	case err != nil:
		log.Warn("the tailnet certificate could not be renewed", "error", err)
	}
}

// refreshCerts reissues the leaf when the machine's addresses change or
// its expiry nears; the TLS config picks up the new leaf on its own.
func refreshCerts(ctx context.Context, cm certManager, log *slog.Logger) {
	t := time.NewTicker(certRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			refreshTailnet(ctx, cm, log)
			if re, err := cm.Refresh(); err != nil {
				log.Error("certificate refresh failed", "error", err)
			} else if re {
				log.Info("reissued the dashboard certificate", "sans", cm.LeafSANs())
			}
		}
	}
}

// reachableHosts is where a browser can reach the listener: every name and
// address of the machine when it listens on all interfaces, else only the
// address it is bound to.
func reachableHosts(addr net.Addr, sans []string) []string {
	if ta, ok := addr.(*net.TCPAddr); ok && !ta.IP.IsUnspecified() {
		return []string{ta.IP.String()}
	}
	return sans
}

// allowedHosts is every name the dashboard answers to: the certificate's
// names and addresses plus configured extras.
func allowedHosts(cm certManager, extra []string) []string {
	out := append(slices.Clone(cm.LeafSANs()), extra...)
	if n := cm.TailnetName(); n != "" {
		out = append(out, n)
	}
	return append(out, "localhost", "127.0.0.1", "::1")
}
