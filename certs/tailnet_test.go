package certs

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"
)

// fakeTailscale answers `tailscale status --json` with state and domains,
// and `tailscale cert` by writing a certificate for the name it is given,
// valid from notBefore to notAfter, as the real CLI writes its files.
func fakeTailscale(t *testing.T, state string, domains []string, notBefore, notAfter time.Time) (func(context.Context, ...string) ([]byte, error), *int) {
	certs := 0
	return func(_ context.Context, args ...string) ([]byte, error) {
		switch args[0] {
		case "status":
			q := `"` + strings.Join(domains, `","`) + `"`
			if len(domains) == 0 {
				q = ""
			}
			return []byte(`{"BackendState":"` + state + `","CertDomains":[` + q + `],"Self":{"DNSName":"box.tail1234.ts.net."}}`), nil
		case "cert":
			certs++
			certFile, keyFile, name := args[2], args[4], args[5]
			key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
				NotBefore: notBefore, NotAfter: notAfter, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
			der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
			if err != nil {
				t.Fatal(err)
			}
			kd, _ := x509.MarshalECPrivateKey(key)
			if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
				return nil, err
			}
			return nil, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}), 0o600)
		}
		return nil, errors.New("unexpected tailscale " + args[0])
	}, &certs
}

// On a tailnet with HTTPS certificates, a client asking for the tailnet
// name gets Tailscale's certificate and every other name paddock's leaf;
// off one, nothing changes.
func TestTailnetCertificateBySNI(t *testing.T) {
	for _, tc := range []struct {
		name    string
		state   string
		domains []string
		from    time.Time
		until   time.Time
		served  string // the tailnet name served, "" none
	}{
		{"on a tailnet", "Running", []string{"box.tail1234.ts.net"}, t0.Add(-time.Hour), t0.Add(90 * 24 * time.Hour), "box.tail1234.ts.net"},
		{"tailscale stopped", "Stopped", []string{"box.tail1234.ts.net"}, t0.Add(-time.Hour), t0.Add(time.Hour), ""},
		{"HTTPS not enabled for the tailnet", "Running", nil, t0.Add(-time.Hour), t0.Add(time.Hour), ""},
		{"an expired certificate", "Running", []string{"box.tail1234.ts.net"}, t0.Add(-48 * time.Hour), t0.Add(-time.Hour), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, _ := fakeTailscale(t, tc.state, tc.domains, tc.from, tc.until)
			dir := t.TempDir()
			tn := &Tailnet{Run: run, Dir: dir, Now: func() time.Time { return t0 }}
			m, err := load(Options{Dir: dir, Tailnet: tn, Now: func() time.Time { return t0 }}, fakeSys("box", "192.168.1.20"))
			if err != nil {
				t.Fatal(err)
			}
			err = m.RefreshTailnet(context.Background())
			if (err == nil) != (tc.served != "") || m.TailnetName() != tc.served {
				t.Fatalf("RefreshTailnet: %v, serving %q, want %q", err, m.TailnetName(), tc.served)
			}
			get := m.TLSConfig().GetCertificate
			other, _ := get(&tls.ClientHelloInfo{ServerName: "box.local"})
			if other == nil || other.Leaf == nil || other.Leaf.Issuer.CommonName == "box.tail1234.ts.net" {
				t.Fatalf("box.local got %+v, want paddock's leaf", other)
			}
			tail, _ := get(&tls.ClientHelloInfo{ServerName: "BOX.tail1234.ts.net"})
			isTailnet := tail != nil && tail.Leaf != nil && tail.Leaf.Subject.CommonName == "box.tail1234.ts.net"
			if isTailnet != (tc.served != "") {
				t.Fatalf("the tailnet name got the tailnet certificate: %v, want %v", isTailnet, tc.served != "")
			}
			if tc.served != "" {
				if fi, err := os.Stat(dir + "/" + tailnetKeyFile); err != nil || fi.Mode().Perm() != 0o600 {
					t.Fatalf("the tailnet key: %v %v", fi, err)
				}
			}
		})
	}
}

// Without a tailscale CLI at all, paddock says so and serves its own leaf.
func TestNoTailscale(t *testing.T) {
	dir := t.TempDir()
	tn := &Tailnet{Run: func(context.Context, ...string) ([]byte, error) {
		return nil, errors.New(`exec: "tailscale": executable file not found in $PATH`)
	}, Dir: dir}
	m, err := load(Options{Dir: dir, Tailnet: tn, Now: func() time.Time { return t0 }}, fakeSys("box", "192.168.1.20"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RefreshTailnet(context.Background()); !errors.Is(err, ErrNoTailnet) || m.TailnetName() != "" {
		t.Fatalf("RefreshTailnet: %v (%q)", err, m.TailnetName())
	}
}

// A CA made while Tailscale names this machine may sign for that name and
// its Tailscale addresses only: a stolen key cannot impersonate another
// machine of the tailnet, nor any other tailnet's, to a phone trusting it.
// Without a running Tailscale the CA keeps the wide ts.net entries.
func TestCAConstraintsNarrowedToTheTailnetName(t *testing.T) {
	status := func(state, dnsName string, ips ...string) func(context.Context, ...string) ([]byte, error) {
		return func(_ context.Context, args ...string) ([]byte, error) {
			if args[0] != "status" {
				return nil, errors.New("unexpected tailscale " + args[0])
			}
			b, _ := json.Marshal(map[string]any{"BackendState": state,
				"Self": map[string]any{"DNSName": dnsName, "TailscaleIPs": ips}})
			return b, nil
		}
	}
	none := func(context.Context, ...string) ([]byte, error) {
		return nil, errors.New(`exec: "tailscale": executable file not found in $PATH`)
	}
	for _, tc := range []struct {
		name   string
		run    func(context.Context, ...string) ([]byte, error)
		signed map[string]bool // SAN → may the CA sign for it
	}{
		{"on a tailnet", status("Running", "Box.tail1234.ts.net.", "100.101.102.103", "fd7a:115c:a1e0::1"), map[string]bool{
			"box.tail1234.ts.net": true, "100.101.102.103": true, "fd7a:115c:a1e0::1": true,
			"printer.local": true, "192.168.1.20": true,
			"nas.tail1234.ts.net": false, "box.tail9999.ts.net": false, "100.64.1.1": false, "100.101.102.104": false,
		}},
		{"tailscale stopped", status("Stopped", "box.tail1234.ts.net.", "100.101.102.103"), map[string]bool{
			"box.tail1234.ts.net": true, "nas.tail1234.ts.net": true, "100.64.1.1": true,
		}},
		{"not a MagicDNS name", status("Running", "box.example.com.", "100.101.102.103"), map[string]bool{
			"box.example.com": false, "nas.tail1234.ts.net": true, "100.64.1.1": true,
		}},
		{"no tailscale", none, map[string]bool{
			"box.tail1234.ts.net": true, "nas.tail1234.ts.net": true, "100.64.1.1": true,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tn := &Tailnet{Run: tc.run, Dir: dir, Now: func() time.Time { return t0 }}
			m, err := load(Options{Dir: dir, Tailnet: tn, Now: func() time.Time { return t0 }}, fakeSys("box", "192.168.1.20"))
			if err != nil {
				t.Fatal(err)
			}
			ca := caOf(t, m)
			for san, ok := range tc.signed {
				_, _, cert := signWithCA(t, dir, san)
				err := verifyFor(ca, cert, san, t0)
				if ok && err != nil {
					t.Errorf("a leaf for %s: %v, want it to verify", san, err)
				}
				var invalid x509.CertificateInvalidError
				if !ok && (!errors.As(err, &invalid) || invalid.Reason != x509.CANotAuthorizedForThisName) {
					t.Errorf("a leaf for %s: %v, want CANotAuthorizedForThisName", san, err)
				}
			}
		})
	}
}
