package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/servetest"
)

// On a tailnet, paddock serves its tailnet name with Tailscale's
// certificate, names it first among its addresses, and answers to it;
// other names keep the local CA's leaf. The tailscale CLI here is a
// stand-in script (no tailnet on the test machine) that answers status
// and writes a certificate as `tailscale cert` does.
func TestTailnetCertificateServed(t *testing.T) {
	const name = "box.tail1234.ts.net"
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(90 * 24 * time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalECPrivateKey(key)
	src := filepath.Join(dir, "issued")
	if err := os.WriteFile(src+".crt", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(src+".key", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ncase \"$1\" in\n" +
		"status) echo '{\"BackendState\":\"Running\",\"CertDomains\":[\"" + name + "\"]}' ;;\n" +
		"cert) cp " + src + ".crt \"$3\" && cp " + src + ".key \"$5\" ;;\n" +
		"*) exit 2 ;;\nesac\n"
	if err := os.WriteFile(filepath.Join(bin, "tailscale"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := servetest.StartEnv(t, t.TempDir(), []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")})
	if len(srv.URLs) < 2 || !strings.HasPrefix(srv.URLs[0], "https://"+name+":") {
		t.Fatalf("addresses %v: want the tailnet name first", srv.URLs)
	}
	u, _ := url.Parse(srv.URLs[0])
	addr := net.JoinHostPort("127.0.0.1", u.Port())
	pool := x509.NewCertPool()
	pool.AddCert(tmpl)
	leaf, _ := x509.ParseCertificate(der)
	pool.AddCert(leaf)
	// The tailnet name: Tailscale's certificate, verified as a phone on
	// the tailnet would; the health check answers to that Host.
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: name},
		DialContext: func(ctx context.Context, n, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, n, addr)
		},
	}}
	resp, err := client.Get("https://" + name + ":" + u.Port() + "/api/v1/health")
	if err != nil {
		t.Fatalf("the tailnet name over TLS: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.TLS.PeerCertificates[0].Subject.CommonName != name {
		t.Fatalf("health over the tailnet name: %d, certificate %s", resp.StatusCode, resp.TLS.PeerCertificates[0].Subject)
	}
	// Any other name: paddock's own leaf, not Tailscale's.
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if cn := conn.ConnectionState().PeerCertificates[0].Subject.CommonName; cn == name {
		t.Fatalf("localhost got the tailnet certificate (%s)", cn)
	}
	if fi, err := os.Stat(filepath.Join(srv.DataDir, "tailnet.key")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the tailnet key in the data dir: %v %v", fi, err)
	}
}
