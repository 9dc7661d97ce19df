package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// loadLogged is loadAt with the log captured.
func loadLogged(t *testing.T, dir string, now time.Time, sys sysinfo, hosts ...string) (*Manager, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	m, err := load(Options{
		Dir: dir, Hosts: hosts, Now: func() time.Time { return now },
		Logger: slog.New(slog.NewTextHandler(&buf, nil)),
	}, sys)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return m, &buf
}

// verifyFor runs Go's verifier on leaf for name with ca as the only root.
func verifyFor(ca, leaf *x509.Certificate, name string, now time.Time) error {
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err := leaf.Verify(x509.VerifyOptions{
		DNSName:     name,
		Roots:       roots,
		CurrentTime: now,
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	return err
}

// signWithCA issues a leaf for sans (DNS names or IP addresses) with the
// CA in dir, bypassing this package, as anyone holding ca-key.pem could.
func signWithCA(t *testing.T, dir string, sans ...string) (certPEM, keyPEM []byte, cert *x509.Certificate) {
	t.Helper()
	caPEM, err1 := os.ReadFile(filepath.Join(dir, caCertFile))
	caKeyPEM, err2 := os.ReadFile(filepath.Join(dir, caKeyFile))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	ca, err := parseCertPEM(caPEM)
	if err != nil {
		t.Fatal(err)
	}
	caKey, err := parseKeyPEM(caKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: sans[0]},
		NotBefore:   t0.Add(-time.Hour),
		NotAfter:    t0.Add(30 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, s := range sans {
		if ip := net.ParseIP(s); ip != nil {
			tpl.IPAddresses = append(tpl.IPAddresses, ip)
		} else {
			tpl.DNSNames = append(tpl.DNSNames, s)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, key.Public(), caKey)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return encodeCert(der), keyPEM, cert
}

// writeUnconstrainedCA puts a CA like the ones paddock made before name
// constraints into dir.
func writeUnconstrainedCA(t *testing.T, dir string) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "paddock local CA (testhost)", Organization: []string{"paddock"}},
		NotBefore:             t0.Add(-time.Hour),
		NotAfter:              t0.AddDate(caYears, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, caKeyFile), keyPEM, keyMode); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, caCertFile), encodeCert(der), certMode); err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func rangeStrings(ranges []*net.IPNet) []string {
	out := make([]string, len(ranges))
	for i, r := range ranges {
		out[i] = r.String()
	}
	return out
}

var fixedIPRanges = []string{
	"127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
	"100.64.0.0/10", "fc00::/7", "169.254.0.0/16", "fe80::/10",
}

func TestCANameConstraints(t *testing.T) {
	// Hosts given when the CA is created are permitted, public or not.
	m := loadAt(t, t.TempDir(), t0, fakeSys("TestHost.example.lan"),
		"paddock.example", "*.lan.example", "203.0.113.7", "2001:db8::7", "10.1.2.3", "box.local")
	ca := caOf(t, m)

	var ext *pkix.Extension
	for i, e := range ca.Extensions {
		if e.Id.Equal(asn1.ObjectIdentifier{2, 5, 29, 30}) {
			ext = &ca.Extensions[i]
		}
	}
	if ext == nil || !ext.Critical || !ca.PermittedDNSDomainsCritical {
		t.Errorf("name constraints extension missing or not critical: %+v", ext)
	}
	wantDNS := []string{"localhost", "local", "home.arpa", "internal", "ts.net",
		"testhost.example.lan", "testhost", "paddock.example", "lan.example"}
	if !slices.Equal(ca.PermittedDNSDomains, wantDNS) {
		t.Errorf("PermittedDNSDomains = %q\nwant %q", ca.PermittedDNSDomains, wantDNS)
	}
	// 10.1.2.3 is within 10/8 already.
	wantIPs := append(slices.Clone(fixedIPRanges), "203.0.113.7/32", "2001:db8::7/128")
	if got := rangeStrings(ca.PermittedIPRanges); !slices.Equal(got, wantIPs) {
		t.Errorf("PermittedIPRanges = %q\nwant %q", got, wantIPs)
	}
	for _, r := range ca.PermittedIPRanges {
		// Go's verifier only compares an IPv4 SAN with 4-byte ranges.
		if _, bits := r.Mask.Size(); len(r.IP)*8 != bits {
			t.Errorf("range %v encoded with a %d-byte address and a %d-bit mask", r, len(r.IP), bits)
		}
	}
	if len(ca.ExcludedDNSDomains)+len(ca.ExcludedIPRanges)+len(ca.PermittedEmailAddresses)+
		len(ca.PermittedURIDomains) != 0 {
		t.Error("unexpected constraints beyond permitted DNS names and IP ranges")
	}

	leaf := leafOf(t, m)
	for _, name := range []string{"paddock.example", "x.lan.example", "203.0.113.7", "2001:db8::7", "10.1.2.3"} {
		if err := verifyFor(ca, leaf, name, t0); err != nil {
			t.Errorf("leaf does not verify for %s, given as a host at creation: %v", name, err)
		}
	}
}

func TestNewConstraints(t *testing.T) {
	fixed := fixedDNSConstraints()
	tests := []struct {
		name     string
		hostname string
		hosts    []string
		wantDNS  []string // beyond the fixed list
		wantIPs  []string // beyond the fixed list
		refused  []string
	}{
		{"plain hostname", "MyBox", nil, []string{"mybox"}, nil, nil},
		{"mDNS hostname", "mybox.local", nil, []string{"mybox"}, nil, nil},
		{"FQDN", "mybox.corp.example.", nil, []string{"mybox.corp.example", "mybox"}, nil, nil},
		{"under a fixed name", "localhost", []string{"laptop.tail1234.ts.net", "router.home.arpa"}, nil, nil, nil},
		{"no hostname", "", nil, nil, nil, nil},
		{"invalid hostname", "bad host", nil, nil, nil, nil},
		// A CA that may sign for "dev" may sign for every .dev site.
		{"hostname is a TLD", "dev", nil, nil, nil, []string{"dev"}},
		{"first label is a TLD", "box.fritz.box", nil, []string{"box.fritz.box"}, nil, []string{"box"}},
		{"wildcard host on a public suffix", "mybox", []string{"*.co.uk", "*.github.io"},
			[]string{"mybox"}, nil, []string{"co.uk", "github.io"}},
		{"host names", "mybox", []string{"a.example", "*.b.example", "x.a.example"},
			[]string{"mybox", "a.example", "b.example"}, nil, nil},
		{"host addresses", "mybox", []string{"192.168.9.9", "fd00::9", "8.8.8.8", "8.8.8.8", "2606:4700::1111"},
			[]string{"mybox"}, []string{"8.8.8.8/32", "2606:4700::1111/128"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosts, err := normalizeHosts(tt.hosts)
			if err != nil {
				t.Fatal(err)
			}
			dns, ips, refused := newConstraints(tt.hostname, hosts, tailnetSelf{})
			if want := append(slices.Clone(fixed), tt.wantDNS...); !slices.Equal(dns, want) {
				t.Errorf("dns = %q, want %q", dns, want)
			}
			if want := append(slices.Clone(fixedIPRanges), tt.wantIPs...); !slices.Equal(rangeStrings(ips), want) {
				t.Errorf("ips = %q, want %q", rangeStrings(ips), want)
			}
			if !slices.Equal(refused, tt.refused) {
				t.Errorf("refused = %q, want %q", refused, tt.refused)
			}
		})
	}
}

// What a stolen key can still do: sign for a name outside the constraints,
// which Go's verifier (like browsers) then rejects. The .local control shows
// the failures come from the constraints, not from the test's certificate.
func TestCAConstraintsRejectForeignNames(t *testing.T) {
	dir := t.TempDir()
	m := loadAt(t, dir, t0, fakeSys("testhost", "192.168.1.20"))
	ca := caOf(t, m)
	tests := []struct {
		sans []string
		name string // verified for
		ok   bool
	}{
		{[]string{"printer.local"}, "printer.local", true},
		{[]string{"10.20.30.40"}, "10.20.30.40", true},
		{[]string{"example.com"}, "example.com", false},
		{[]string{"www.google.com"}, "www.google.com", false},
		{[]string{"localhost.example.com"}, "localhost.example.com", false},
		{[]string{"testhost.example.com"}, "testhost.example.com", false},
		{[]string{"ts.net.example.com"}, "ts.net.example.com", false},
		{[]string{"*.com"}, "example.com", false},
		{[]string{"8.8.8.8"}, "8.8.8.8", false},
		{[]string{"2001:4860:4860::8888"}, "2001:4860:4860::8888", false},
		// One SAN outside is enough to reject the whole leaf.
		{[]string{"localhost", "example.com"}, "localhost", false},
		{[]string{"localhost", "8.8.8.8"}, "localhost", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.sans, ","), func(t *testing.T) {
			_, _, cert := signWithCA(t, dir, tt.sans...)
			err := verifyFor(ca, cert, tt.name, t0)
			if tt.ok {
				if err != nil {
					t.Fatalf("Verify(%s) = %v", tt.name, err)
				}
				return
			}
			var invalid x509.CertificateInvalidError
			if !errors.As(err, &invalid) || invalid.Reason != x509.CANotAuthorizedForThisName {
				t.Errorf("Verify(%s) = %v, want CANotAuthorizedForThisName", tt.name, err)
			}
		})
	}
}

// Names and addresses that turn up after the CA was made, and that it does
// not permit, are left out of the leaf with one warning each, and don't
// make every Refresh reissue.
func TestLeafLeavesOutUncoveredSANs(t *testing.T) {
	dir := t.TempDir()
	loadAt(t, dir, t0, fakeSys("testhost", "192.168.1.20"))

	sys := fakeSys("testhost", "192.168.1.20", "203.0.113.9", "2001:db8::9")
	m, logs := loadLogged(t, dir, t0, sys, "8.8.8.8", "paddock.example", "10.9.9.9", "nas.local")
	leaf := leafOf(t, m)
	ca := caOf(t, m)
	sans := m.LeafSANs()
	leafSANs := slices.Clone(leaf.DNSNames)
	for _, ip := range leaf.IPAddresses {
		leafSANs = append(leafSANs, ip.String())
	}
	if !slices.Equal(sans, leafSANs) {
		t.Errorf("LeafSANs = %v, leaf has %v", sans, leafSANs)
	}
	for _, want := range []string{"10.9.9.9", "nas.local", "192.168.1.20", "testhost.local"} {
		if !slices.Contains(sans, want) {
			t.Errorf("SANs %v lack %s, which the CA permits", sans, want)
		}
	}
	leftOut := []string{"8.8.8.8", "paddock.example", "203.0.113.9", "2001:db8::9"}
	for _, san := range leftOut {
		if slices.Contains(sans, san) {
			t.Errorf("SANs %v include %s, outside the CA's constraints", sans, san)
		}
		if !strings.Contains(logs.String(), "san="+san+" ") {
			t.Errorf("no warning naming %s in:\n%s", san, logs)
		}
	}
	if n := strings.Count(logs.String(), "not covered by this CA's name constraints"); n != len(leftOut) {
		t.Errorf("%d warnings, want %d:\n%s", n, len(leftOut), logs)
	}
	// A warning for what the user asked for (--host); what only came with
	// the machine's interfaces is what an ordinary start sees, at info.
	for san, level := range map[string]string{"8.8.8.8": "WARN", "paddock.example": "WARN", "203.0.113.9": "INFO", "2001:db8::9": "INFO"} {
		found := false
		for _, l := range strings.Split(logs.String(), "\n") {
			if strings.Contains(l, "san="+san+" ") {
				found = strings.Contains(l, "level="+level)
			}
		}
		if !found {
			t.Errorf("%s not logged at %s:\n%s", san, level, logs)
		}
	}
	for _, name := range []string{"localhost", "10.9.9.9", "nas.local"} {
		if err := verifyFor(ca, leaf, name, t0); err != nil {
			t.Errorf("Verify(%s) = %v", name, err)
		}
	}

	logs.Reset()
	for range 3 {
		if re, err := m.Refresh(); re || err != nil {
			t.Fatalf("Refresh = %v, %v; want no reissue for SANs the CA can't cover", re, err)
		}
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("Refresh repeated the warnings:\n%s", logs)
	}
	// Nor on the next start.
	again := loadAt(t, dir, t0, sys, "8.8.8.8", "paddock.example", "10.9.9.9", "nas.local")
	if leafOf(t, again).SerialNumber.Cmp(leaf.SerialNumber) != 0 {
		t.Error("leaf reissued on restart")
	}
}

// A machine named after a TLD does not get a CA that signs for that TLD;
// its name.local still works.
func TestPublicSuffixHostname(t *testing.T) {
	m, logs := loadLogged(t, t.TempDir(), t0, fakeSys("dev", "192.168.1.20"))
	ca := caOf(t, m)
	if slices.Contains(ca.PermittedDNSDomains, "dev") {
		t.Errorf("CA may sign for every .dev site: %q", ca.PermittedDNSDomains)
	}
	if !strings.Contains(logs.String(), "public suffix") {
		t.Errorf("no warning about the refused name:\n%s", logs)
	}
	sans := m.LeafSANs()
	if slices.Contains(sans, "dev") || !slices.Contains(sans, "dev.local") {
		t.Errorf("SANs = %v, want dev.local and not dev", sans)
	}
	if err := verifyFor(ca, leafOf(t, m), "dev.local", t0); err != nil {
		t.Error(err)
	}
}

// A CA made before name constraints keeps working as it was: not replaced,
// and its leaves still carry every name and address.
func TestUnconstrainedCAStillIssuesEverything(t *testing.T) {
	dir := t.TempDir()
	ca := writeUnconstrainedCA(t, dir)
	before := snapshot(t, dir, caCertFile, caKeyFile)

	sys := fakeSys("testhost", "192.168.1.20", "203.0.113.9", "2001:db8::9")
	m, logs := loadLogged(t, dir, t0, sys, "8.8.8.8", "paddock.example")
	if !bytes.Equal(caOf(t, m).Raw, ca.Raw) {
		t.Fatal("CA was replaced")
	}
	if after := snapshot(t, dir, caCertFile, caKeyFile); !maps.Equal(before, after) {
		t.Error("CA files were changed")
	}
	sans := m.LeafSANs()
	for _, want := range []string{"8.8.8.8", "paddock.example", "203.0.113.9", "2001:db8::9", "testhost", "localhost"} {
		if !slices.Contains(sans, want) {
			t.Errorf("SANs %v lack %s", sans, want)
		}
	}
	if strings.Contains(logs.String(), "not covered by this CA's name constraints") {
		t.Errorf("SANs reported as left out:\n%s", logs)
	}
	if !strings.Contains(logs.String(), "predates name constraints") {
		t.Errorf("no hint that the CA could be recreated with constraints:\n%s", logs)
	}
	for _, name := range []string{"8.8.8.8", "paddock.example", "localhost"} {
		if err := verifyFor(ca, leafOf(t, m), name, t0); err != nil {
			t.Errorf("Verify(%s) = %v", name, err)
		}
	}
	if re, err := m.Refresh(); re || err != nil {
		t.Errorf("Refresh = %v, %v", re, err)
	}
}

// permitsDNS and permitsIP agree with Go's verifier on constraints paddock
// doesn't write itself (a user's own CA in ca.pem): excluded subtrees,
// leading-dot names, wildcards and address families.
func TestPermitsMatchesVerifier(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cidrs := func(ss ...string) []*net.IPNet {
		var out []*net.IPNet
		for _, s := range ss {
			_, n, err := net.ParseCIDR(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
		return out
	}
	tpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "test CA"},
		NotBefore:             t0.Add(-time.Hour),
		NotAfter:              t0.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		PermittedDNSDomains:   []string{"example.com", ".sub.example.org", "Local"},
		ExcludedDNSDomains:    []string{"secret.example.com", ".internal.example.com"},
		PermittedIPRanges:     cidrs("10.0.0.0/8", "fd00::/8"),
		ExcludedIPRanges:      cidrs("10.66.0.0/16"),
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)

	sans := []string{
		"example.com", "a.example.com", "A.Example.COM", "*.example.com", "badexample.com",
		"sub.example.org", "x.sub.example.org", "*.sub.example.org", "example.org",
		"secret.example.com", "x.secret.example.com", "internal.example.com", "x.internal.example.com",
		"*.internal.example.com", "box.local", "local", "localhost",
		"10.1.1.1", "10.66.1.1", "11.0.0.1", "fd00::1", "fe80::1", "::ffff:10.1.1.1",
	}
	for _, san := range sans {
		leafTpl := &x509.Certificate{
			NotBefore: t0.Add(-time.Hour), NotAfter: t0.Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		}
		var ours bool
		if a, err := netip.ParseAddr(san); err == nil {
			leafTpl.IPAddresses = []net.IP{a.AsSlice()}
			ours = permitsIP(ca, a.Unmap())
		} else {
			leafTpl.DNSNames = []string{san}
			ours = permitsDNS(ca, strings.ToLower(san))
		}
		leafDER, err := x509.CreateCertificate(rand.Reader, leafTpl, ca, key.Public(), key)
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := x509.ParseCertificate(leafDER)
		roots := x509.NewCertPool()
		roots.AddCert(ca)
		_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: t0})
		var invalid x509.CertificateInvalidError
		goes := !errors.As(err, &invalid) || invalid.Reason != x509.CANotAuthorizedForThisName
		if err != nil && goes {
			t.Fatalf("%s: unexpected verify error %v", san, err)
		}
		if ours != goes {
			t.Errorf("%s: permits = %v, Go's verifier = %v (%v)", san, ours, goes, err)
		}
	}
}
