package certs

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// Tailnet serves this machine's certificate from the local Tailscale
// daemon for its tailnet name (…ts.net), which phones on the tailnet trust
// without paddock's CA. The Tailscale CLI does the ACME work: paddock runs
// `tailscale status --json` for the name and `tailscale cert` for the
// certificate, written into paddock's data dir (the key 0600).
type Tailnet struct {
	// Run runs the tailscale CLI with args and returns its stdout; nil
	// runs `tailscale` from PATH.
	Run  func(ctx context.Context, args ...string) ([]byte, error)
	Dir  string // where the certificate and key are written
	Now  func() time.Time
	name atomic.Pointer[string]
	cert atomic.Pointer[tls.Certificate]
}

// tailnetFiles are the certificate and key `tailscale cert` writes.
const (
	tailnetCertFile = "tailnet.crt"
	tailnetKeyFile  = "tailnet.key"
)

func runTailscale(ctx context.Context, args ...string) ([]byte, error) {
	out, err := exec.CommandContext(ctx, "tailscale", args...).Output()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return out, fmt.Errorf("tailscale %s: %v: %s", args[0], err, strings.TrimSpace(string(ee.Stderr)))
	}
	return out, err
}

// Name is the tailnet name served, "" while there is none.
func (t *Tailnet) Name() string {
	if n := t.name.Load(); n != nil {
		return *n
	}
	return ""
}

// certFor is the tailnet certificate when the client asks for the
// tailnet name (SNI), else nil.
func (t *Tailnet) certFor(serverName string) *tls.Certificate {
	if t == nil || serverName == "" || !strings.EqualFold(strings.TrimSuffix(serverName, "."), t.Name()) {
		return nil
	}
	return t.cert.Load()
}

// ErrNoTailnet says the machine is not on a tailnet paddock can get a
// certificate for: no tailscale CLI, the daemon not running, or HTTPS
// certificates not enabled for the tailnet.
var ErrNoTailnet = errors.New("certs: no tailnet certificate")

// Refresh asks Tailscale for the tailnet name and its certificate (renewed
// by Tailscale when it nears expiry) and serves it. On an error the
// certificate served so far, if any, stays in service while it is valid.
func (t *Tailnet) Refresh(ctx context.Context) error {
	run, now := t.runner(), t.Now
	if now == nil {
		now = time.Now
	}
	st, err := t.status(ctx)
	if err != nil {
		return err
	}
	if st.BackendState != "Running" || len(st.CertDomains) == 0 {
		return fmt.Errorf("%w: tailscale is %q, certificate domains %v (enable HTTPS for the tailnet)", ErrNoTailnet, st.BackendState, st.CertDomains)
	}
	name := strings.TrimSuffix(strings.ToLower(st.CertDomains[0]), ".")
	certPath, keyPath := filepath.Join(t.Dir, tailnetCertFile), filepath.Join(t.Dir, tailnetKeyFile)
	if _, err := run(ctx, "cert", "--cert-file", certPath, "--key-file", keyPath, name); err != nil {
		return err
	}
	// The key is a secret of paddock's data dir, whatever mode the CLI
	// wrote it with.
	if err := os.Chmod(keyPath, 0o600); err != nil {
		return fmt.Errorf("certs: the tailnet key: %w", err)
	}
	pair, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return fmt.Errorf("certs: the tailnet certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return fmt.Errorf("certs: the tailnet certificate: %w", err)
	}
	if err := leaf.VerifyHostname(name); err != nil {
		return fmt.Errorf("certs: the tailnet certificate does not cover %s: %w", name, err)
	}
	if n := now(); n.After(leaf.NotAfter) || n.Before(leaf.NotBefore) {
		return fmt.Errorf("certs: the tailnet certificate is valid %s to %s, not now", leaf.NotBefore, leaf.NotAfter)
	}
	pair.Leaf = leaf
	t.cert.Store(&pair)
	t.name.Store(&name)
	return nil
}

func (t *Tailnet) runner() func(ctx context.Context, args ...string) ([]byte, error) {
	if t.Run == nil {
		return runTailscale
	}
	return t.Run
}

// tailscaleStatus is the part of `tailscale status --json` paddock reads.
type tailscaleStatus struct {
	BackendState string
	CertDomains  []string
	Self         struct {
		DNSName      string   // "box.tail1234.ts.net." (MagicDNS, trailing dot)
		TailscaleIPs []string // "100.101.102.103", "fd7a:115c:a1e0::1"
	}
}

func (t *Tailnet) status(ctx context.Context) (tailscaleStatus, error) {
	var st tailscaleStatus
	out, err := t.runner()(ctx, "status", "--json")
	if err != nil {
		return st, errors.Join(ErrNoTailnet, err)
	}
	if err := json.Unmarshal(out, &st); err != nil {
		return st, errors.Join(ErrNoTailnet, fmt.Errorf("tailscale status: %w", err))
	}
	return st, nil
}

// tailnetSelf is this machine as its tailnet knows it: its MagicDNS name
// and its Tailscale addresses. The zero value: not on a running tailnet.
type tailnetSelf struct {
	name  string
	addrs []netip.Addr
}

// self asks Tailscale for this machine's tailnet name and addresses. A
// machine with no tailscale CLI, or one not running, is on no tailnet.
func (t *Tailnet) self(ctx context.Context) tailnetSelf {
	if t == nil {
		return tailnetSelf{}
	}
	st, err := t.status(ctx)
	if err != nil || st.BackendState != "Running" {
		return tailnetSelf{}
	}
	name := strings.TrimSuffix(strings.ToLower(st.Self.DNSName), ".")
	if !validDNSName(name) || !strings.HasSuffix(name, ".ts.net") {
		// Only a MagicDNS name is narrower than ts.net; a custom or
		// garbled one is not trusted to stand in for it.
		return tailnetSelf{}
	}
	self := tailnetSelf{name: name}
	for _, s := range st.Self.TailscaleIPs {
		if a, err := netip.ParseAddr(s); err == nil {
			self.addrs = append(self.addrs, a.Unmap())
		}
	}
	return self
}
