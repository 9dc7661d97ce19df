package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// fakeSys is a machine called host with the given interface addresses.
func fakeSys(host string, ips ...string) sysinfo {
	return sysinfo{
		hostname: func() (string, error) { return host, nil },
		addrs: func() ([]net.IP, error) {
			out := make([]net.IP, 0, len(ips))
			for _, s := range ips {
				out = append(out, net.ParseIP(s))
			}
			return out, nil
		},
	}
}

func loadAt(t *testing.T, dir string, now time.Time, sys sysinfo, hosts ...string) *Manager {
	t.Helper()
	m, err := load(Options{Dir: dir, Hosts: hosts, Now: func() time.Time { return now }}, sys)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return m
}

func leafOf(t *testing.T, m *Manager) *x509.Certificate {
	t.Helper()
	c, err := m.TLSConfig().GetCertificate(&tls.ClientHelloInfo{})
	if err != nil || c == nil || c.Leaf == nil {
		t.Fatalf("GetCertificate: %v, %v", c, err)
	}
	return c.Leaf
}

func caOf(t *testing.T, m *Manager) *x509.Certificate {
	t.Helper()
	ca, err := parseCertPEM(m.CAPEM())
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

func TestLoadCreatesFiles(t *testing.T) {
	dir := t.TempDir()
	loadAt(t, dir, t0, fakeSys("testhost", "192.168.1.20"))
	tests := []struct {
		file string
		mode os.FileMode
	}{
		{caCertFile, 0o644},
		{caKeyFile, 0o600},
		{leafCertFile, 0o644},
		{leafKeyFile, 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			st, err := os.Stat(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != tt.mode {
				t.Errorf("mode %v, want %v", got, tt.mode)
			}
		})
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(tests) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v, want only the four files (temp files left behind?)", names)
	}
}

func TestCAProperties(t *testing.T) {
	m := loadAt(t, t.TempDir(), t0, fakeSys("testhost"))
	ca := caOf(t, m)
	pub, ok := ca.PublicKey.(*ecdsa.PublicKey)
	tests := []struct {
		name string
		ok   bool
	}{
		{"IsCA with basic constraints", ca.IsCA && ca.BasicConstraintsValid},
		{"path length zero", ca.MaxPathLen == 0 && ca.MaxPathLenZero},
		{"common name", ca.Subject.CommonName == "paddock local CA (testhost)"},
		{"valid at least 5 years", ca.NotAfter.Sub(t0) >= 5*365*24*time.Hour},
		{"valid at most ~10 years", ca.NotAfter.Before(t0.AddDate(10, 0, 2))},
		{"valid now", !t0.Before(ca.NotBefore)},
		{"key usage", ca.KeyUsage == x509.KeyUsageCertSign|x509.KeyUsageCRLSign},
		{"ECDSA P-256", ok && pub.Curve == elliptic.P256()},
		{"subject key id", len(ca.SubjectKeyId) > 0},
		{"self-signed", ca.CheckSignatureFrom(ca) == nil},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: failed (%+v)", tt.name, ca.Subject)
		}
	}
}

func TestLeafProperties(t *testing.T) {
	m := loadAt(t, t.TempDir(), t0, fakeSys("TestHost", "192.168.1.20", "fd00::20"), "paddock.example", "10.0.0.9")
	leaf := leafOf(t, m)
	if d := leaf.NotAfter.Sub(leaf.NotBefore); d > 397*24*time.Hour {
		t.Errorf("validity %v exceeds 397 days", d)
	}
	if !slices.Equal(leaf.ExtKeyUsage, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}) {
		t.Errorf("ExtKeyUsage = %v", leaf.ExtKeyUsage)
	}
	if leaf.IsCA {
		t.Error("leaf is a CA")
	}
	if pub, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || pub.Curve != elliptic.P256() {
		t.Errorf("leaf key %T is not P-256", leaf.PublicKey)
	}
	sans := m.LeafSANs()
	for _, want := range []string{"localhost", "127.0.0.1", "::1", "testhost", "testhost.local",
		"192.168.1.20", "fd00::20", "paddock.example", "10.0.0.9"} {
		if !slices.Contains(sans, want) {
			t.Errorf("SANs %v lack %s", sans, want)
		}
	}
}

// Go's verifier enforces the CA's name constraints, so this also checks
// that every SAN of the leaf is within them. The Tailscale names are added
// after the CA was created: ts.net is always permitted.
func TestLeafVerifiesAgainstCA(t *testing.T) {
	dir := t.TempDir()
	sys := fakeSys("testhost", "192.168.1.20", "100.101.102.103", "fd7a:115c:a1e0::1")
	loadAt(t, dir, t0, sys)
	m := loadAt(t, dir, t0, sys, "laptop.tail1234.ts.net", "*.tail1234.ts.net")
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(m.CAPEM())
	leaf := leafOf(t, m)
	tests := []struct {
		name string
		ok   bool
	}{
		{"localhost", true},
		{"127.0.0.1", true},
		{"::1", true},
		{"testhost.local", true},
		{"192.168.1.20", true},
		{"100.101.102.103", true},
		{"fd7a:115c:a1e0::1", true},
		{"laptop.tail1234.ts.net", true},
		{"x.tail1234.ts.net", true},
		{"example.com", false},
		{"192.168.1.21", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := leaf.Verify(x509.VerifyOptions{
				DNSName:     tt.name,
				Roots:       roots,
				CurrentTime: t0,
				KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			})
			if (err == nil) != tt.ok {
				t.Errorf("Verify(%s) = %v, want ok=%v", tt.name, err, tt.ok)
			}
		})
	}
}

func TestSecondLoadReuses(t *testing.T) {
	dir := t.TempDir()
	sys := fakeSys("testhost", "192.168.1.20")
	first := loadAt(t, dir, t0, sys)
	second := loadAt(t, dir, t0.Add(24*time.Hour), sys)
	if caOf(t, first).SerialNumber.Cmp(caOf(t, second).SerialNumber) != 0 {
		t.Error("CA was regenerated")
	}
	if leafOf(t, first).SerialNumber.Cmp(leafOf(t, second).SerialNumber) != 0 {
		t.Error("leaf was reissued")
	}
	if first.CAFingerprint() != second.CAFingerprint() {
		t.Error("fingerprint changed")
	}
}

func TestLeafReissue(t *testing.T) {
	base := fakeSys("testhost", "192.168.1.20")
	tests := []struct {
		name    string
		now     time.Time
		sys     sysinfo
		hosts   []string
		reissue bool
	}{
		{"unchanged", t0, base, nil, false},
		{"100 days later", t0.AddDate(0, 0, 100), base, nil, false},
		{"within 30 days of expiry", t0.Add(leafValidity - 29*24*time.Hour), base, nil, true},
		{"past expiry", t0.Add(leafValidity + time.Hour), base, nil, true},
		{"new host name under ts.net", t0, base, []string{"laptop.tail1234.ts.net"}, true},
		{"new host IP", t0, base, []string{"10.9.9.9"}, true},
		{"new interface address", t0, fakeSys("testhost", "192.168.1.20", "192.168.7.7"), nil, true},
		// Outside the CA's name constraints: left out, so nothing is missing.
		{"new host name outside the CA", t0, base, []string{"paddock.example"}, false},
		{"new public host IP", t0, base, []string{"8.8.8.8"}, false},
		{"new public interface address", t0, fakeSys("testhost", "192.168.1.20", "2001:db8::20"), nil, false},
		{"DHCP moved us", t0, fakeSys("testhost", "192.168.1.99"), nil, true},
		{"an address went away", t0, fakeSys("testhost"), nil, false},
		{"renamed machine", t0, fakeSys("otherhost", "192.168.1.20"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			first := loadAt(t, dir, t0, base)
			again := loadAt(t, dir, tt.now, tt.sys, tt.hosts...)
			reissued := leafOf(t, first).SerialNumber.Cmp(leafOf(t, again).SerialNumber) != 0
			if reissued != tt.reissue {
				t.Errorf("reissued = %v, want %v (SANs %v)", reissued, tt.reissue, again.LeafSANs())
			}
			if caOf(t, first).SerialNumber.Cmp(caOf(t, again).SerialNumber) != 0 {
				t.Error("CA changed")
			}
			if reissued {
				leaf := leafOf(t, again)
				if !leaf.NotAfter.After(tt.now.Add(renewBefore)) {
					t.Errorf("new leaf expires %v, too soon", leaf.NotAfter)
				}
				// The new leaf is on disk: a third load keeps it.
				third := loadAt(t, dir, tt.now, tt.sys, tt.hosts...)
				if leafOf(t, third).SerialNumber.Cmp(leaf.SerialNumber) != 0 {
					t.Error("reissued leaf not persisted")
				}
			}
		})
	}
}

// Refresh on a running Manager swaps the leaf that new handshakes get.
func TestRefreshSwapsLeaf(t *testing.T) {
	var mu sync.Mutex
	ips := []string{"192.168.1.20"}
	sys := sysinfo{
		hostname: func() (string, error) { return "testhost", nil },
		addrs: func() ([]net.IP, error) {
			mu.Lock()
			defer mu.Unlock()
			var out []net.IP
			for _, s := range ips {
				out = append(out, net.ParseIP(s))
			}
			return out, nil
		},
	}
	m := loadAt(t, t.TempDir(), t0, sys)
	before := leafOf(t, m)

	if re, err := m.Refresh(); err != nil || re {
		t.Fatalf("Refresh with nothing changed = %v, %v", re, err)
	}
	mu.Lock()
	ips = append(ips, "192.168.1.50")
	mu.Unlock()

	// Handshakes keep reading the leaf while Refresh replaces it (-race).
	cfg := m.TLSConfig()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				if c, _ := cfg.GetCertificate(&tls.ClientHelloInfo{}); c == nil {
					t.Error("nil certificate during refresh")
					return
				}
			}
		}
	})
	re, err := m.Refresh()
	close(stop)
	wg.Wait()
	if err != nil || !re {
		t.Fatalf("Refresh after address change = %v, %v", re, err)
	}
	after := leafOf(t, m)
	if after.SerialNumber.Cmp(before.SerialNumber) == 0 || !slices.Contains(m.LeafSANs(), "192.168.1.50") {
		t.Errorf("leaf not swapped; SANs %v", m.LeafSANs())
	}
}

func TestUnusableCAIsLeftAlone(t *testing.T) {
	otherCA := func(t *testing.T) (certPEM, keyPEM []byte) {
		dir := t.TempDir()
		loadAt(t, dir, t0, fakeSys("other"))
		c, _ := os.ReadFile(filepath.Join(dir, caCertFile))
		k, _ := os.ReadFile(filepath.Join(dir, caKeyFile))
		return c, k
	}
	tests := []struct {
		name   string
		now    time.Time
		mutate func(t *testing.T, dir string)
		want   string // in the error
	}{
		{"garbage certificate", t0, func(t *testing.T, dir string) {
			write(t, dir, caCertFile, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
		}, "not a valid certificate"},
		{"truncated certificate", t0, func(t *testing.T, dir string) {
			b, _ := os.ReadFile(filepath.Join(dir, caCertFile))
			write(t, dir, caCertFile, string(b[:len(b)/2]))
		}, "not a valid certificate"},
		{"garbage key", t0, func(t *testing.T, dir string) {
			write(t, dir, caKeyFile, "not a key")
		}, "not a valid private key"},
		{"key of another CA", t0, func(t *testing.T, dir string) {
			_, k := otherCA(t)
			write(t, dir, caKeyFile, string(k))
		}, "does not match"},
		{"certificate missing", t0, func(t *testing.T, dir string) {
			_ = os.Remove(filepath.Join(dir, caCertFile))
		}, "is missing"},
		{"key missing", t0, func(t *testing.T, dir string) {
			_ = os.Remove(filepath.Join(dir, caKeyFile))
		}, "is missing"},
		{"leaf in place of CA", t0, func(t *testing.T, dir string) {
			leaf, _ := os.ReadFile(filepath.Join(dir, leafCertFile))
			key, _ := os.ReadFile(filepath.Join(dir, leafKeyFile))
			write(t, dir, caCertFile, string(leaf))
			write(t, dir, caKeyFile, string(key))
		}, "not a CA"},
		{"expired", t0.AddDate(caYears, 0, 1), func(*testing.T, string) {}, "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			loadAt(t, dir, t0, fakeSys("testhost"))
			tt.mutate(t, dir)
			before := snapshot(t, dir, caCertFile, caKeyFile)

			_, err := load(Options{Dir: dir, Now: func() time.Time { return tt.now }}, fakeSys("testhost"))
			if err == nil {
				t.Fatal("load succeeded")
			}
			if !errors.Is(err, ErrCAUnusable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q: want ErrCAUnusable mentioning %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "will not replace") {
				t.Errorf("error %q does not tell the user what to do", err)
			}
			if after := snapshot(t, dir, caCertFile, caKeyFile); !maps.Equal(before, after) {
				t.Error("CA files were changed")
			}
		})
	}
}

// A broken leaf is ours to replace, unlike the CA.
func TestBrokenLeafIsReissued(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(t *testing.T, dir string)
	}{
		{"garbage certificate", func(t *testing.T, dir string) { write(t, dir, leafCertFile, "junk") }},
		{"garbage key", func(t *testing.T, dir string) { write(t, dir, leafKeyFile, "junk") }},
		{"key missing", func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, leafKeyFile)) }},
		{"key from elsewhere", func(t *testing.T, dir string) {
			k, _ := os.ReadFile(filepath.Join(dir, caKeyFile))
			write(t, dir, leafKeyFile, string(k))
		}},
		{"a SAN outside the CA's name constraints", func(t *testing.T, dir string) {
			// Made with the CA's key by something other than this package.
			certPEM, keyPEM, _ := signWithCA(t, dir, "localhost", "example.com")
			write(t, dir, leafCertFile, string(certPEM))
			write(t, dir, leafKeyFile, string(keyPEM))
		}},
		{"signed by another CA", func(t *testing.T, dir string) {
			other := t.TempDir()
			loadAt(t, other, t0, fakeSys("testhost"))
			for _, f := range []string{leafCertFile, leafKeyFile} {
				b, _ := os.ReadFile(filepath.Join(other, f))
				write(t, dir, f, string(b))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			first := loadAt(t, dir, t0, fakeSys("testhost"))
			tt.mutate(t, dir)
			again := loadAt(t, dir, t0, fakeSys("testhost"))
			leaf := leafOf(t, again)
			if leaf.CheckSignatureFrom(caOf(t, first)) != nil {
				t.Error("new leaf not signed by the existing CA")
			}
			if leafOf(t, first).SerialNumber.Cmp(leaf.SerialNumber) == 0 {
				t.Error("leaf not reissued")
			}
		})
	}
}

// serve runs an HTTPS server on 127.0.0.1 with m's TLS config. It avoids
// httptest.StartTLS, which adds its own certificate to Certificates, and Go
// then ignores GetCertificate for clients that send no SNI (IP literals).
func serve(t *testing.T, m *Manager) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") }),
		TLSConfig:         m.TLSConfig(),
		ReadHeaderTimeout: 5 * time.Second,
		// The untrusted-client case makes the server log a handshake error.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.ServeTLS(ln, "", "")
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return ln.Addr().(*net.TCPAddr).String()
}

func client(roots *x509.CertPool) *http.Client {
	return &http.Client{
		Timeout:   10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}},
	}
}

func TestTLSHandshake(t *testing.T) {
	// Real clock: the client verifies against time.Now.
	m, err := load(Options{Dir: t.TempDir()}, fakeSys("testhost"))
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, m)
	_, port, _ := net.SplitHostPort(addr)

	trusting := x509.NewCertPool()
	if !trusting.AppendCertsFromPEM(m.CAPEM()) {
		t.Fatal("CAPEM did not parse")
	}
	tests := []struct {
		name  string
		url   string
		roots *x509.CertPool
		ok    bool
	}{
		{"IP, CA trusted", "https://127.0.0.1:" + port + "/", trusting, true},
		{"localhost SNI, CA trusted", "https://localhost:" + port + "/", trusting, true},
		{"IP, CA not trusted", "https://127.0.0.1:" + port + "/", x509.NewCertPool(), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(tt.roots)
			defer c.CloseIdleConnections()
			resp, err := c.Get(tt.url)
			if !tt.ok {
				var unknown x509.UnknownAuthorityError
				if err == nil || !errors.As(err, &unknown) {
					t.Fatalf("err = %v, want unknown authority", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || string(body) != "ok" {
				t.Errorf("got %d %q", resp.StatusCode, body)
			}
			if resp.TLS.Version < tls.VersionTLS12 {
				t.Errorf("TLS version %x", resp.TLS.Version)
			}
		})
	}
}

func TestTLSConfigRejectsOldTLS(t *testing.T) {
	m := loadAt(t, t.TempDir(), t0, fakeSys("testhost"))
	if v := m.TLSConfig().MinVersion; v != tls.VersionTLS12 {
		t.Errorf("MinVersion = %x", v)
	}
}

// TLS 1.2 is limited to forward-secret AEAD suites.
func TestTLSConfigCipherSuites(t *testing.T) {
	m, err := load(Options{Dir: t.TempDir()}, fakeSys("testhost"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range m.TLSConfig().CipherSuites {
		name := tls.CipherSuiteName(id)
		aead := strings.Contains(name, "_GCM_") || strings.Contains(name, "_CHACHA20_POLY1305_")
		if !strings.HasPrefix(name, "TLS_ECDHE_") || !aead {
			t.Errorf("configured suite %s is not ECDHE with an AEAD", name)
		}
	}
	addr := serve(t, m)
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(m.CAPEM())
	tests := []struct {
		suite uint16
		ok    bool
	}{
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, true},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, true},
		{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, true},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA, false},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA, false},
		{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256, false},
	}
	for _, tt := range tests {
		t.Run(tls.CipherSuiteName(tt.suite), func(t *testing.T) {
			conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", addr, &tls.Config{
				RootCAs:      roots,
				MaxVersion:   tls.VersionTLS12,
				CipherSuites: []uint16{tt.suite},
			})
			if err == nil {
				defer conn.Close()
			}
			if (err == nil) != tt.ok {
				t.Fatalf("handshake offering only %s: err = %v, want ok=%v",
					tls.CipherSuiteName(tt.suite), err, tt.ok)
			}
			if tt.ok && conn.ConnectionState().CipherSuite != tt.suite {
				t.Errorf("negotiated %s", tls.CipherSuiteName(conn.ConnectionState().CipherSuite))
			}
		})
	}
}

func TestCAFingerprint(t *testing.T) {
	m := loadAt(t, t.TempDir(), t0, fakeSys("testhost"))
	fp := m.CAFingerprint()
	if !regexp.MustCompile(`^([0-9A-F]{2}:){31}[0-9A-F]{2}$`).MatchString(fp) {
		t.Fatalf("fingerprint %q has the wrong form", fp)
	}
	sum := sha256.Sum256(caOf(t, m).Raw)
	if got := strings.ReplaceAll(fp, ":", ""); !strings.EqualFold(got, hex.EncodeToString(sum[:])) {
		t.Errorf("fingerprint %s is not SHA-256 of the CA DER", fp)
	}
}

func TestMobileConfig(t *testing.T) {
	m := loadAt(t, t.TempDir(), t0, fakeSys("testhost"))
	name := `Tom's <laptop> & "stuff"`
	out, err := MobileConfig(m.CAPEM(), name, "seed-1")
	if err != nil {
		t.Fatal(err)
	}
	again, _ := MobileConfig(m.CAPEM(), name, "seed-1")
	if !bytes.Equal(out, again) {
		t.Error("output differs between calls")
	}

	strs, datas := plistScalars(t, out)
	if want := base64.StdEncoding.EncodeToString(caOf(t, m).Raw); !slices.Contains(datas, want) {
		t.Error("base64 DER of the CA not in <data>")
	}
	for _, want := range []string{"com.apple.security.root", "Configuration", name, m.CAFingerprint()} {
		found := slices.ContainsFunc(strs, func(s string) bool { return strings.Contains(s, want) })
		if !found {
			t.Errorf("no <string> containing %q", want)
		}
	}
	if !bytes.Contains(out, []byte("<false/>")) {
		t.Error("PayloadRemovalDisallowed not written as <false/>")
	}

	uuidRE := regexp.MustCompile(`<key>PayloadUUID</key>\s*<string>([0-9A-F-]{36})</string>`)
	uuids := func(b []byte) []string {
		var ids []string
		for _, m := range uuidRE.FindAllSubmatch(b, -1) {
			ids = append(ids, string(m[1]))
		}
		return ids
	}
	ids := uuids(out)
	if len(ids) != 2 || ids[0] == ids[1] {
		t.Errorf("PayloadUUIDs %v: want two distinct", ids)
	}
	other, _ := MobileConfig(m.CAPEM(), name, "seed-2")
	if slices.Equal(uuids(other), ids) {
		t.Error("a different seed gave the same UUIDs")
	}
	rotated := loadAt(t, t.TempDir(), t0, fakeSys("testhost"))
	rot, _ := MobileConfig(rotated.CAPEM(), name, "seed-1")
	if slices.Equal(uuids(rot), ids) {
		t.Error("a different CA gave the same UUIDs")
	}
	idRE := regexp.MustCompile(`<key>PayloadIdentifier</key>\s*<string>([^<]+)</string>`)
	if idRE.FindString(string(rot)) != idRE.FindString(string(out)) {
		t.Error("PayloadIdentifier changed with the CA; a rotated CA should replace the old profile")
	}
}

func TestMobileConfigRejects(t *testing.T) {
	m := loadAt(t, t.TempDir(), t0, fakeSys("testhost"))
	leafPEM := encodeCert(leafOf(t, m).Raw)
	tests := []struct {
		name string
		pem  []byte
	}{
		{"empty", nil},
		{"garbage", []byte("hello")},
		{"leaf, not a CA", leafPEM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := MobileConfig(tt.pem, "x", "seed"); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestCustom(t *testing.T) {
	// Any valid pair will do as a "user-supplied" certificate: borrow a
	// leaf from a throwaway local CA.
	dir := t.TempDir()
	local := loadAt(t, dir, time.Now(), fakeSys("testhost"))
	certFile, keyFile := filepath.Join(dir, leafCertFile), filepath.Join(dir, leafKeyFile)

	m, err := Custom(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if m.CAPEM() != nil {
		t.Error("CAPEM should be nil in Custom mode")
	}
	leaf := leafOf(t, m)
	if leaf.SerialNumber.Cmp(leafOf(t, local).SerialNumber) != 0 {
		t.Error("Custom serves a different certificate")
	}
	if fp := m.CAFingerprint(); fp != fingerprint(leaf.Raw) {
		t.Errorf("CAFingerprint = %q, want the leaf's", fp)
	}
	if !slices.Contains(m.LeafSANs(), "localhost") {
		t.Errorf("LeafSANs = %v", m.LeafSANs())
	}
	if re, err := m.Refresh(); re || err != nil {
		t.Errorf("Refresh with unchanged files = %v, %v", re, err)
	}

	// A real handshake through the custom pair.
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(local.CAPEM())
	addr := serve(t, m)
	c := client(roots)
	defer c.CloseIdleConnections()
	resp, err := c.Get("https://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()

	// Renewal on disk is picked up by Refresh.
	other := t.TempDir()
	loadAt(t, other, time.Now(), fakeSys("renewed"))
	for _, f := range []string{leafCertFile, leafKeyFile} {
		b, _ := os.ReadFile(filepath.Join(other, f))
		write(t, dir, f, string(b))
		later := time.Now().Add(time.Minute)
		_ = os.Chtimes(filepath.Join(dir, f), later, later)
	}
	if re, err := m.Refresh(); !re || err != nil {
		t.Fatalf("Refresh after renewal = %v, %v", re, err)
	}
	if !slices.Contains(m.LeafSANs(), "renewed.local") {
		t.Errorf("renewed certificate not served; SANs %v", m.LeafSANs())
	}
}

func TestCustomRejects(t *testing.T) {
	dir := t.TempDir()
	loadAt(t, dir, time.Now(), fakeSys("testhost"))
	p := func(f string) string { return filepath.Join(dir, f) }
	tests := []struct {
		name, cert, key, want string
	}{
		{"mismatched pair", p(leafCertFile), p(caKeyFile), "does not match"},
		{"missing cert", p("nope.pem"), p(leafKeyFile), "no such file"},
		{"missing key", p(leafCertFile), p("nope.pem"), "no such file"},
		{"key as cert", p(leafKeyFile), p(leafKeyFile), "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Custom(tt.cert, tt.key)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

func TestNormalizeHosts(t *testing.T) {
	tests := []struct {
		in      []string
		want    []string
		wantErr bool
	}{
		{nil, []string{}, false},
		{[]string{"Paddock.Example.", " 10.0.0.1 ", "[fd00::1]", "*.lan.example"},
			[]string{"paddock.example", "10.0.0.1", "fd00::1", "*.lan.example"}, false},
		{[]string{"::ffff:10.0.0.1"}, []string{"10.0.0.1"}, false},
		{[]string{"has space"}, nil, true},
		{[]string{"bad_<html>"}, nil, true},
		{[]string{""}, nil, true},
		{[]string{"-lead.example"}, nil, true},
		{[]string{"fe80::1%en0"}, nil, true},
		{[]string{"ünïcode.example"}, nil, true},
	}
	for _, tt := range tests {
		got, err := normalizeHosts(tt.in)
		if (err != nil) != tt.wantErr || (!tt.wantErr && !slices.Equal(got, tt.want)) {
			t.Errorf("normalizeHosts(%q) = %q, %v", tt.in, got, err)
		}
	}
	if _, err := Load(Options{Dir: t.TempDir(), Hosts: []string{"not valid"}}); err == nil {
		t.Error("Load accepted an invalid host")
	}
}

func TestHostnameSANs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"MyBox", []string{"mybox.local", "mybox", "mybox"}},
		{"mybox.local", []string{"mybox.local", "mybox.local", "mybox"}},
		{"box.example.com.", []string{"box.local", "box.example.com", "box"}},
		{"bad host", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := hostnameSANs(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("hostnameSANs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// The real machine: whatever its interfaces, Load works and the leaf names
// this host and never carries loopback-interface or link-local addresses
// beyond the fixed 127.0.0.1 and ::1.
func TestLoadOnThisMachine(t *testing.T) {
	m, err := Load(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	sans := m.LeafSANs()
	ca := caOf(t, m)
	if h, err := os.Hostname(); err == nil {
		for _, want := range hostnameSANs(h) {
			// A hostname that is a public suffix ("dev") is not permitted.
			if permitsDNS(ca, want) && !slices.Contains(sans, want) {
				t.Errorf("SANs %v lack %s", sans, want)
			}
		}
	}
	// Whatever this machine's addresses, the leaf verifies: no SAN falls
	// outside the CA's name constraints.
	if err := verifyFor(ca, leafOf(t, m), "localhost", time.Now()); err != nil {
		t.Errorf("leaf with SANs %v does not verify: %v", sans, err)
	}
	for _, ip := range leafOf(t, m).IPAddresses {
		if ip.IsLinkLocalUnicast() {
			t.Errorf("link-local %s in SANs", ip)
		}
		if ip.IsLoopback() && !ip.Equal(net.IPv4(127, 0, 0, 1)) && !ip.Equal(net.IPv6loopback) {
			t.Errorf("unexpected loopback %s in SANs", ip)
		}
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshot maps each file to its content, or "<missing>".
func snapshot(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if errors.Is(err, os.ErrNotExist) {
			out[n] = "<missing>"
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out[n] = string(b)
	}
	return out
}

// plistScalars parses out as XML (failing the test if it isn't) and returns
// the text of every <string> and <data> element.
func plistScalars(t *testing.T, out []byte) (strs, datas []string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(out))
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			text.Reset()
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			switch tok.Name.Local {
			case "string":
				strs = append(strs, text.String())
			case "data":
				datas = append(datas, text.String())
			}
		}
	}
	return strs, datas
}
