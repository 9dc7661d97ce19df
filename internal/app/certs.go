package app

import (
	"context"
	"crypto/tls"
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
}

func loadCerts(cfg config.Config, log *slog.Logger) (certManager, error) {
	if cfg.CertFile != "" {
		return certs.Custom(cfg.CertFile, cfg.KeyFile)
	}
	return certs.Load(certs.Options{Dir: cfg.DataDir, Hosts: cfg.ExtraHosts, Logger: log.With("component", "certs")})
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
	return append(out, "localhost", "127.0.0.1", "::1")
}
