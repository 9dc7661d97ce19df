package certs

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

const (
	// leafValidity plus the one-hour backdate stays under 397 days, the
	// CA/Browser Forum limit; Apple rejects server certificates over 825
	// days even from user-installed roots (Apple HT210176). Short is cheap:
	// the leaf is reissued automatically and the phone only trusts the CA.
	leafValidity = 396 * 24 * time.Hour
	// renewBefore: reissue this long before expiry, so a laptop that was
	// asleep for a while still wakes up with a valid certificate.
	renewBefore = 30 * 24 * time.Hour
)

// sanSet is the names and addresses a leaf must cover.
type sanSet struct {
	dns []string     // lower case, no trailing dot
	ips []netip.Addr // unmapped
}

// wantedSANs is localhost, 127.0.0.1, ::1, the hostname as given, its first
// label, that label + ".local" (what mDNS answers to), every address of an
// up, non-loopback interface, and Options.Hosts. These are candidates:
// coverable drops those outside the CA's name constraints.
//
// Link-local addresses (169.254/16, fe80::/10) are left out: browsers can't
// put an IPv6 zone in a URL, APIPA addresses are not what anyone types, and
// they come and go with interfaces, which would only cause reissues.
func (m *Manager) wantedSANs() sanSet {
	var s sanSet
	if h, err := m.sys.hostname(); err != nil {
		m.log.Warn("cannot read hostname; leaf will lack it", "err", err)
	} else {
		s.dns = append(s.dns, hostnameSANs(h)...)
	}
	s.dns = append(s.dns, "localhost")
	s.ips = append(s.ips, netip.MustParseAddr("127.0.0.1"), netip.IPv6Loopback())
	if ips, err := m.sys.addrs(); err != nil {
		m.log.Warn("cannot list network interfaces; leaf covers loopback and names only", "err", err)
	} else {
		for _, ip := range ips {
			if a, ok := netip.AddrFromSlice(ip); ok {
				s.ips = append(s.ips, a.Unmap())
			}
		}
	}
	for _, h := range m.hosts {
		if a, err := netip.ParseAddr(h); err == nil {
			s.ips = append(s.ips, a)
		} else {
			s.dns = append(s.dns, h)
		}
	}
	s.dns = dedupe(s.dns)
	s.ips = dedupe(s.ips)
	return s
}

// coverable keeps the SANs the CA may sign for. Clients reject a leaf if
// any one of its SANs falls outside the CA's name constraints, so a single
// public address on an interface would otherwise break the dashboard on
// every name. What is left out is logged once per Manager (Refresh runs
// every few minutes) and does not count as missing from the current leaf,
// so it never causes a reissue. A CA without constraints permits all.
// Called with m.mu held.
func (m *Manager) coverable(want sanSet) sanSet {
	var out sanSet
	for _, d := range want.dns {
		if permitsDNS(m.ca, d) {
			out.dns = append(out.dns, d)
		} else {
			m.warnLeftOut(d)
		}
	}
	for _, a := range want.ips {
		if permitsIP(m.ca, a) {
			out.ips = append(out.ips, a)
		} else {
			m.warnLeftOut(a.String())
		}
	}
	return out
}

// warnLeftOut says once that san is left out of the leaf. It is a warning
// for a name the user asked for (--host); a name or address that only
// came with the machine (a public address on an interface, a hostname the
// CA predates) is the expected case on an ordinary start, and is said at
// info level.
func (m *Manager) warnLeftOut(san string) {
	if m.leftOut[san] {
		return
	}
	if m.leftOut == nil {
		m.leftOut = make(map[string]bool)
	}
	m.leftOut[san] = true
	level := slog.LevelInfo
	for _, h := range m.hosts {
		if strings.EqualFold(strings.TrimSuffix(h, "."), san) {
			level = slog.LevelWarn
		}
		if a, err := netip.ParseAddr(h); err == nil && a.Unmap().String() == san {
			level = slog.LevelWarn
		}
	}
	m.log.Log(context.Background(), level, "leaving a name out of the leaf certificate", "san", san,
		"reason", "not covered by this CA's name constraints; recreate the CA (move ca.pem and ca-key.pem "+
			"out of dir) with it as an extra host (--host) to include it, then reinstall it on your devices",
		"dir", m.dir)
}

func dedupe[T comparable](xs []T) []T {
	seen := make(map[T]bool, len(xs))
	out := xs[:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// hostnameSANs turns os.Hostname into DNS SANs; a hostname that isn't a
// valid DNS name (some OSes allow spaces or non-ASCII) contributes nothing
// rather than failing certificate creation.
func hostnameSANs(h string) []string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if !validDNSName(h) {
		return nil
	}
	short, _, _ := strings.Cut(h, ".")
	return []string{short + ".local", h, short}
}

// normalizeHosts validates Options.Hosts: each must be an IP address or a
// DNS name (optionally "*." wildcard).
func normalizeHosts(hosts []string) ([]string, error) {
	out := make([]string, 0, len(hosts))
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
			if a.Zone() != "" {
				return nil, fmt.Errorf("certs: host %q: an address with a zone cannot be a certificate SAN", h)
			}
			out = append(out, a.Unmap().String())
			continue
		}
		name := strings.TrimSuffix(strings.ToLower(h), ".")
		if !validDNSName(strings.TrimPrefix(name, "*.")) {
			return nil, fmt.Errorf("certs: host %q is neither an IP address nor a DNS name", h)
		}
		out = append(out, name)
	}
	return out, nil
}

func validDNSName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, c := range []byte(label) {
			ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
			if !ok {
				return false
			}
		}
	}
	return true
}

// interfaceIPs lists the addresses of up, non-loopback interfaces, without
// loopback, link-local, multicast or unspecified addresses.
func interfaceIPs() ([]net.IP, error) {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var ips []net.IP
	var errs []error
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 || iface.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", iface.Name, err))
			continue
		}
		for _, a := range addrs {
			var ip net.IP
			switch a := a.(type) {
			case *net.IPNet:
				ip = a.IP
			case *net.IPAddr:
				ip = a.IP
			}
			if ip == nil || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified() {
				continue
			}
			ips = append(ips, ip)
		}
	}
	if len(ips) == 0 && len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return ips, nil
}

// refreshLeaf keeps the current leaf if it still does the job, else issues
// a new one. Called with m.mu held.
func (m *Manager) refreshLeaf() (bool, error) {
	want := m.coverable(m.wantedSANs())
	now := m.now()
	current := m.leaf.Load()
	if current == nil {
		// First call: try what is on disk. A bad leaf file is ours to
		// replace, unlike the CA.
		c, err := m.readLeaf()
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			m.log.Warn("leaf certificate unreadable; issuing a new one", "err", err)
		}
		current = c
	}
	reason := "none on disk"
	if current != nil {
		reason = m.leafProblem(current, want, now)
		if reason == "" {
			m.leaf.Store(current)
			return false, nil
		}
	}
	if now.After(m.ca.NotAfter) {
		return false, fmt.Errorf("certs: %w: the CA expired on %s, cannot issue a leaf; %s",
			ErrCAUnusable, m.ca.NotAfter.Format(time.DateOnly), fmt.Sprintf(errCAHint, m.dir))
	}
	leaf, persistErr := m.issueLeaf(want, now)
	if leaf == nil {
		return false, persistErr
	}
	// Serve the new leaf even if saving it failed: it is valid, and the old
	// one no longer fits. The next start simply issues another.
	m.leaf.Store(leaf)
	m.log.Info("issued leaf certificate", "reason", reason, "sans", m.LeafSANs(),
		"expires", leaf.Leaf.NotAfter.Format(time.DateOnly))
	return true, persistErr
}

func (m *Manager) readLeaf() (*tls.Certificate, error) {
	certPEM, err := os.ReadFile(filepath.Join(m.dir, leafCertFile))
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(filepath.Join(m.dir, leafKeyFile))
	if err != nil {
		return nil, err
	}
	cert, err := parseCertPEM(certPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", leafCertFile, err)
	}
	key, err := parseKeyPEM(keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", leafKeyFile, err)
	}
	return &tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}, nil
}

// leafProblem says why c can't be served as is, or "" if it can.
func (m *Manager) leafProblem(c *tls.Certificate, want sanSet, now time.Time) string {
	leaf := c.Leaf
	key, ok := c.PrivateKey.(crypto.Signer)
	switch {
	case leaf == nil:
		return "not parsed"
	case !ok || !keyMatches(leaf, key):
		return "key does not match certificate"
	case leaf.CheckSignatureFrom(m.ca) != nil:
		return "not signed by the current CA"
	case now.Before(leaf.NotBefore):
		return "not yet valid"
	// A leaf can't outlive its CA; when the CA itself ends within the
	// renewal window, reissuing would not help, so don't loop on it.
	case now.Add(renewBefore).After(leaf.NotAfter) && leaf.NotAfter.Before(m.ca.NotAfter):
		return "expires within 30 days"
	}
	have := make(map[string]bool)
	for _, d := range leaf.DNSNames {
		have[strings.ToLower(d)] = true
	}
	for _, ip := range leaf.IPAddresses {
		if a, ok := netip.AddrFromSlice(ip); ok {
			have[a.Unmap().String()] = true
		}
	}
	for _, d := range want.dns {
		if !have[d] {
			return "does not cover " + d
		}
	}
	for _, a := range want.ips {
		if !have[a.String()] {
			return "does not cover " + a.String()
		}
	}
	// Clients would reject the whole leaf for one such SAN. Only a leaf
	// made elsewhere with this CA's key can have one.
	for _, d := range leaf.DNSNames {
		if !permitsDNS(m.ca, strings.ToLower(d)) {
			return "covers " + d + ", outside the CA's name constraints"
		}
	}
	for _, ip := range leaf.IPAddresses {
		if a, ok := netip.AddrFromSlice(ip); !ok || !permitsIP(m.ca, a.Unmap()) {
			return "covers " + ip.String() + ", outside the CA's name constraints"
		}
	}
	return ""
}

// issueLeaf makes and saves a new leaf. It returns the leaf and a non-nil
// error when only saving failed; a nil leaf means it could not be made.
func (m *Manager) issueLeaf(want sanSet, now time.Time) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("certs: generating leaf key: %w", err)
	}
	notAfter := now.Add(leafValidity)
	if notAfter.After(m.ca.NotAfter) {
		notAfter = m.ca.NotAfter
	}
	ips := make([]net.IP, len(want.ips))
	for i, a := range want.ips {
		ips[i] = a.AsSlice()
	}
	// CN is cosmetic (clients match SANs only) but some UIs show it. It is
	// one of the SANs, so it is within the CA's name constraints too.
	var cn string
	switch {
	case len(want.dns) > 0:
		cn = want.dns[0]
	case len(want.ips) > 0:
		cn = want.ips[0].String()
	default:
		return nil, errors.New("certs: this CA's name constraints permit none of this machine's names or addresses")
	}
	tpl := &x509.Certificate{
		// SerialNumber nil: Go generates an RFC 5280 random serial.
		Subject:     pkix.Name{CommonName: cn, Organization: []string{"paddock"}},
		NotBefore:   now.Add(-time.Hour),
		NotAfter:    notAfter,
		KeyUsage:    x509.KeyUsageDigitalSignature, // ECDSA: no key encipherment
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    slices.Clone(want.dns),
		IPAddresses: ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, m.ca, key.Public(), m.caKey)
	if err != nil {
		return nil, fmt.Errorf("certs: creating leaf: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certs: parsing new leaf: %w", err)
	}
	leaf := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}

	keyPEM, err := encodeKey(key)
	if err != nil {
		return leaf, fmt.Errorf("certs: encoding leaf key: %w", err)
	}
	// Key first: if the certificate write is lost, the old certificate no
	// longer matches the new key and the next start reissues.
	if err := writeFileAtomic(filepath.Join(m.dir, leafKeyFile), keyPEM, keyMode); err != nil {
		return leaf, fmt.Errorf("certs: saving leaf key: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(m.dir, leafCertFile), encodeCert(der), certMode); err != nil {
		return leaf, fmt.Errorf("certs: saving leaf certificate: %w", err)
	}
	return leaf, nil
}
