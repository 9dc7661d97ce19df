package certs

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// caYears: the CA is installed by hand on each phone, so it should outlive
// the laptop. Apple's 825-day limit applies to leaves, not to roots.
const caYears = 10

// errCAHint is appended to every CA load error: what to do, and what it
// costs, because the fix involves the user's phones.
const errCAHint = "paddock will not replace an existing CA on its own; " +
	"to start over, move ca.pem and ca-key.pem out of %s and restart, " +
	"then install the new CA on your devices again"

func (m *Manager) loadOrCreateCA() error {
	certPath := filepath.Join(m.dir, caCertFile)
	keyPath := filepath.Join(m.dir, caKeyFile)
	certPEM, certErr := os.ReadFile(certPath)
	keyPEM, keyErr := os.ReadFile(keyPath)
	certMissing := errors.Is(certErr, fs.ErrNotExist)
	keyMissing := errors.Is(keyErr, fs.ErrNotExist)

	switch {
	case certMissing && keyMissing:
		return m.createCA(certPath, keyPath)
	case certErr != nil && !certMissing:
		return m.caError("reading %s: %w", certPath, certErr)
	case keyErr != nil && !keyMissing:
		return m.caError("reading %s: %w", keyPath, keyErr)
	case certMissing:
		// createCA writes the key first, so this is a crash mid-create or a
		// deleted certificate. Either way a half CA is not ours to finish.
		return m.caError("%s exists but %s is missing", keyPath, certPath)
	case keyMissing:
		return m.caError("%s exists but its key %s is missing", certPath, keyPath)
	}

	ca, err := parseCertPEM(certPEM)
	if err != nil {
		return m.caError("%s is not a valid certificate: %w", certPath, err)
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return m.caError("%s is not a valid private key: %w", keyPath, err)
	}
	if !ca.IsCA || !ca.BasicConstraintsValid || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
		return m.caError("%s is not a CA certificate", certPath)
	}
	if !keyMatches(ca, key) {
		return m.caError("%s does not match %s", keyPath, certPath)
	}
	if now := m.now(); now.After(ca.NotAfter) {
		return m.caError("the CA in %s expired on %s", certPath, ca.NotAfter.Format(time.DateOnly))
	}
	m.warnLooseKey(keyPath)
	m.ca, m.caKey, m.caPEM = ca, key, certPEM
	m.log.Info("loaded local CA", "subject", ca.Subject.CommonName, "sha256", fingerprint(ca.Raw),
		"expires", ca.NotAfter.Format(time.DateOnly), "name_constraints", hasConstraints(ca))
	if !hasConstraints(ca) {
		// Kept as it is: replacing it means reinstalling it on every phone.
		m.log.Warn("this CA predates name constraints: anyone who reads its key can intercept "+
			"every HTTPS site on the devices that trust it; to get a constrained CA, move ca.pem and "+
			"ca-key.pem out of the data dir, restart, and install the new CA on your devices again",
			"dir", m.dir)
	}
	return nil
}

// ErrCAUnusable wraps every error about an existing CA that cannot be used
// (unreadable, corrupt, mismatched, expired). The files are left as they are.
var ErrCAUnusable = errors.New("local CA unusable")

func (m *Manager) caError(format string, args ...any) error {
	return fmt.Errorf("certs: %w: %w; %s", ErrCAUnusable, fmt.Errorf(format, args...), fmt.Sprintf(errCAHint, m.dir))
}

// tailnetAsk bounds the question to Tailscale made once, as the CA is
// created; a daemon that does not answer in time leaves the wider
// constraints.
const tailnetAsk = 5 * time.Second

func (m *Manager) createCA(certPath, keyPath string) error {
	hostname, _ := m.sys.hostname()
	host := hostname
	if host == "" {
		host = "unknown host"
	}
	ctx, cancel := context.WithTimeout(context.Background(), tailnetAsk)
	self := m.tailnet.self(ctx)
	cancel()
	permittedDNS, permittedIPs, refused := newConstraints(hostname, m.hosts, self)
	for _, name := range refused {
		m.log.Warn("not letting the new CA sign for a public suffix; the leaf will not cover it",
			"name", name, "reason", "a CA allowed to sign for it could sign for every site under it")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("certs: generating CA key: %w", err)
	}
	now := m.now()
	tpl := &x509.Certificate{
		// SerialNumber nil: Go generates an RFC 5280 random serial.
		Subject: pkix.Name{
			// iOS lists a CA under Certificate Trust Settings by its CN
			// (mkcert#47); the hostname tells two laptops' CAs apart.
			CommonName:   "paddock local CA (" + host + ")",
			Organization: []string{"paddock"},
		},
		// An hour back absorbs a phone whose clock runs slightly behind.
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(caYears, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		// Path length zero: this CA signs leaves only, never another CA.
		MaxPathLen:     0,
		MaxPathLenZero: true,
		// Go derives SubjectKeyId from the public key for CA templates.

		// Name constraints (see constraints.go) limit what a leaked key
		// could sign; Critical marks the whole extension critical.
		PermittedDNSDomainsCritical: true,
		PermittedDNSDomains:         permittedDNS,
		PermittedIPRanges:           permittedIPs,
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	if err != nil {
		return fmt.Errorf("certs: creating CA: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return fmt.Errorf("certs: parsing new CA: %w", err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return fmt.Errorf("certs: encoding CA key: %w", err)
	}
	certPEM := encodeCert(der)
	// Key first: a crash in between leaves a key without a certificate,
	// which loadOrCreateCA reports instead of trusting.
	if err := writeFileAtomic(keyPath, keyPEM, keyMode); err != nil {
		return fmt.Errorf("certs: writing CA key: %w", err)
	}
	if err := writeFileAtomic(certPath, certPEM, certMode); err != nil {
		return fmt.Errorf("certs: writing CA certificate: %w", err)
	}
	m.ca, m.caKey, m.caPEM = ca, key, certPEM
	m.log.Info("created local CA; install it on your phone and compare this fingerprint",
		"subject", ca.Subject.CommonName, "sha256", fingerprint(ca.Raw), "dir", m.dir,
		"permitted_dns", ca.PermittedDNSDomains, "permitted_ips", ipRangeStrings(ca.PermittedIPRanges))
	return nil
}

// warnLooseKey logs when the CA key is readable by others: anyone who can
// read it can intercept the TLS traffic of every device that trusts the CA.
// It does not chmod the user's file behind their back.
func (m *Manager) warnLooseKey(path string) {
	if runtime.GOOS == "windows" {
		return // mode bits mean nothing there
	}
	if st, err := os.Stat(path); err == nil && st.Mode().Perm()&0o077 != 0 {
		m.log.Warn("CA key is readable by other users; run chmod 600 on it", "path", path,
			"mode", st.Mode().Perm().String())
	}
}
