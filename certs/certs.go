// Package certs keeps paddock's HTTPS identity on the LAN: a local CA that
// the user installs on their phone once, and a short-lived leaf certificate
// for this machine's names and addresses, signed by that CA and reissued as
// they change. It can also serve a user-supplied certificate instead.
//
// It must never replace an existing CA on its own: the CA is a trust anchor
// on the user's devices, so a CA that fails to load is an error for the user
// to resolve, not something to regenerate. Its private key never leaves
// Options.Dir and is written 0600. A CA it creates carries name constraints
// (constraints.go), so that key can sign only for local names and private
// addresses, and it must never issue a leaf with a SAN outside them.
package certs

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// File names inside Options.Dir.
const (
	caCertFile   = "ca.pem"
	caKeyFile    = "ca-key.pem"
	leafCertFile = "leaf.pem"
	leafKeyFile  = "leaf-key.pem"
)

// Options configures Load.
type Options struct {
	// Dir holds ca.pem, ca-key.pem, leaf.pem and leaf-key.pem: the paddock
	// data dir, normally created 0700 by the caller (Load creates it 0700 if
	// missing).
	Dir string
	// Hosts are extra SANs (DNS names or IP addresses) beyond the defaults.
	// When Load creates the CA, they also widen its name constraints, so
	// any name or address given here then, public or not, can be served.
	// One added later is only put in the leaf if the existing CA permits it
	// (private ranges, *.local, *.ts.net, ...); otherwise it is left out with
	// a warning, as the CA would have to be recreated and reinstalled.
	Hosts []string
	// Tailnet, when set, serves the machine's Tailscale certificate to
	// clients that ask for its tailnet name (see Tailnet); every other
	// name gets the local CA's leaf.
	Tailnet *Tailnet
	// Now is the clock; nil means time.Now. For tests.
	Now func() time.Time
	// Logger; nil discards.
	Logger *slog.Logger
}

// Manager holds the current certificates. Its methods are safe for
// concurrent use: handshakes read the leaf through an atomic pointer while
// Refresh swaps it.
type Manager struct {
	now func() time.Time
	log *slog.Logger

	// Local-CA mode.
	dir   string
	hosts []string // validated Options.Hosts
	sys   sysinfo
	ca    *x509.Certificate
	caKey any // crypto.Signer; typed any as x509.CreateCertificate takes it
	caPEM []byte
	// leftOut is the SANs already reported as outside the CA's name
	// constraints, so each is logged once. Guarded by mu.
	leftOut map[string]bool

	// Custom mode: the files and what they looked like when loaded.
	custom            bool
	certFile, keyFile string
	certStat, keyStat fileStamp

	mu   sync.Mutex // serialises Refresh
	leaf atomic.Pointer[tls.Certificate]

	tailnet *Tailnet // nil: none; set before serving, never changed
}

// sysinfo is where the default SANs come from; tests replace it.
type sysinfo struct {
	hostname func() (string, error)
	addrs    func() ([]net.IP, error)
}

// Load opens the local CA in opts.Dir, creating it on first start, and makes
// sure there is a current leaf for this machine (see Refresh). A CA that is
// present but unreadable, mismatched or expired is an error, and its files
// are left untouched.
func Load(opts Options) (*Manager, error) {
	return load(opts, sysinfo{hostname: os.Hostname, addrs: interfaceIPs})
}

func load(opts Options, sys sysinfo) (*Manager, error) {
	if opts.Dir == "" {
		return nil, errors.New("certs: Options.Dir is empty")
	}
	hosts, err := normalizeHosts(opts.Hosts)
	if err != nil {
		return nil, err
	}
	m := &Manager{
		now:     opts.Now,
		log:     opts.Logger,
		dir:     opts.Dir,
		hosts:   hosts,
		sys:     sys,
		tailnet: opts.Tailnet,
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	m.log = m.log.WithGroup("certs")
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("certs: %w", err)
	}
	if err := m.loadOrCreateCA(); err != nil {
		return nil, err
	}
	if _, err := m.Refresh(); err != nil {
		return nil, err
	}
	return m, nil
}

// Custom serves a user-supplied certificate (chain) and key instead of the
// local CA, for example a Let's Encrypt or Tailscale certificate. There is
// no CA then: CAPEM returns nil. Refresh reloads the files when they change
// on disk, so a renewal needs no restart.
func Custom(certFile, keyFile string) (*Manager, error) {
	m := &Manager{
		now:      time.Now,
		log:      slog.New(slog.DiscardHandler),
		custom:   true,
		certFile: certFile,
		keyFile:  keyFile,
	}
	if err := m.loadCustom(); err != nil {
		return nil, err
	}
	return m, nil
}

// TLSConfig returns a server config that always presents the current leaf,
// so a reissue by Refresh takes effect on the next handshake. TLS 1.2 is the
// floor: every phone we target speaks 1.3, and 1.2 keeps older clients,
// limited to forward-secret AEAD suites (no CBC, no RSA key exchange). The
// ECDSA suites serve the local CA's leaf, the RSA ones a user-supplied RSA
// certificate in Custom mode. TLS 1.3 suites are not configurable and are
// all AEAD.
//
// Don't add Certificates to it (httptest.Server.StartTLS does): Go then
// skips GetCertificate for clients that send no SNI, which is every client
// connecting to an IP address. NextProtos is left empty; http.Server's
// ServeTLS adds h2 itself, while over tls.NewListener connections stay
// HTTP/1.1.
func (m *Manager) TLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		CipherSuites: []uint16{
			tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
			tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
			tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
		},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			if c := m.tailnet.certFor(hello.ServerName); c != nil {
				return c, nil
			}
			return m.leaf.Load(), nil
		},
	}
}

// Refresh re-checks the leaf and replaces it when needed. In local-CA mode
// that is when it no longer covers this machine's current names and
// addresses (plus Options.Hosts), expires within 30 days, or its files are
// unreadable or don't match; in Custom mode, when the files changed on disk.
// The caller runs it periodically (e.g. every few minutes) to follow DHCP
// changes. On error the current leaf stays in service.
func (m *Manager) Refresh() (reissued bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.custom {
		return m.refreshCustom()
	}
	return m.refreshLeaf()
}

// TailnetName is the tailnet name served with Tailscale's certificate, ""
// when there is none (yet).
func (m *Manager) TailnetName() string {
	if m.tailnet == nil {
		return ""
	}
	return m.tailnet.Name()
}

// RefreshTailnet gets (or renews) the tailnet certificate; ErrNoTailnet
// (wrapped) when the machine has none to give. Without a Tailnet it does
// nothing.
func (m *Manager) RefreshTailnet(ctx context.Context) error {
	if m.tailnet == nil {
		return nil
	}
	return m.tailnet.Refresh(ctx)
}

// CAPEM returns the CA certificate in PEM form (a copy), or nil in Custom
// mode.
func (m *Manager) CAPEM() []byte {
	if m.custom {
		return nil
	}
	return append([]byte(nil), m.caPEM...)
}

// CAFingerprint is the SHA-256 fingerprint of the CA certificate as
// uppercase hex pairs joined by ":", the form iOS and Android show, so the
// user can compare it on the phone. In Custom mode there is no CA and it is
// the fingerprint of the current leaf certificate instead.
func (m *Manager) CAFingerprint() string {
	if m.custom {
		if leaf := m.leaf.Load(); leaf != nil && len(leaf.Certificate) > 0 {
			return fingerprint(leaf.Certificate[0])
		}
		return ""
	}
	return fingerprint(m.ca.Raw)
}

// LeafSANs lists the current leaf's DNS names, then its IP addresses.
func (m *Manager) LeafSANs() []string {
	leaf := m.leaf.Load()
	if leaf == nil || leaf.Leaf == nil {
		return nil
	}
	sans := append([]string(nil), leaf.Leaf.DNSNames...)
	for _, ip := range leaf.Leaf.IPAddresses {
		sans = append(sans, ip.String())
	}
	return sans
}

func fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	pairs := make([]string, 0, len(sum))
	for i := 0; i < len(h); i += 2 {
		pairs = append(pairs, h[i:i+2])
	}
	return strings.Join(pairs, ":")
}

// loadCustom reads the user's pair. tls.LoadX509KeyPair checks that the key
// matches the certificate and fills Leaf.
func (m *Manager) loadCustom() error {
	certStat, err := stamp(m.certFile)
	if err != nil {
		return fmt.Errorf("certs: custom certificate: %w", err)
	}
	keyStat, err := stamp(m.keyFile)
	if err != nil {
		return fmt.Errorf("certs: custom key: %w", err)
	}
	pair, err := tls.LoadX509KeyPair(m.certFile, m.keyFile)
	if err != nil {
		return fmt.Errorf("certs: custom certificate %s with key %s: %w", m.certFile, m.keyFile, err)
	}
	if now := m.now(); now.After(pair.Leaf.NotAfter) {
		return fmt.Errorf("certs: custom certificate %s expired on %s", m.certFile, pair.Leaf.NotAfter.Format(time.DateOnly))
	}
	m.certStat, m.keyStat = certStat, keyStat
	m.leaf.Store(&pair)
	return nil
}

func (m *Manager) refreshCustom() (bool, error) {
	certStat, err1 := stamp(m.certFile)
	keyStat, err2 := stamp(m.keyFile)
	if err := errors.Join(err1, err2); err != nil {
		return false, fmt.Errorf("certs: custom certificate: %w", err)
	}
	if certStat == m.certStat && keyStat == m.keyStat {
		return false, nil
	}
	if err := m.loadCustom(); err != nil {
		return false, err
	}
	return true, nil
}
