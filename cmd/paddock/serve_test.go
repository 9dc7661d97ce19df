package main

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"paddock/internal/app"
	"paddock/internal/testkit/servetest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeTLS checks the real binary: the dashboard's certificate chains
// to the CA in the data dir, old TLS is refused, the plain-HTTP port only
// serves the CA page and redirects, and secrets are 0600.
func TestServeTLS(t *testing.T) {
	srv := servetest.Start(t, t.TempDir())
	pem, err := os.ReadFile(filepath.Join(srv.DataDir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("ca.pem does not parse")
	}
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(base + "/api/v1/health")
	if err != nil {
		t.Fatalf("HTTPS with only paddock's CA trusted: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health: %d", resp.StatusCode)
	}
	resp, err = client.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/pair" {
		t.Fatalf("unpaired board: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	old := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MaxVersion: tls.VersionTLS11}}}
	if resp, err := old.Get(base + "/api/v1/health"); err == nil {
		resp.Body.Close()
		t.Fatal("TLS 1.1 accepted")
	}

	st, err := app.ReadState(srv.DataDir)
	if err != nil || st.HTTPPort == 0 {
		t.Fatalf("serve.json: %+v %v", st, err)
	}
	plain := "http://127.0.0.1:" + strconv.Itoa(st.HTTPPort)
	resp, err = client.Get(plain + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "SHA-256") {
		t.Fatalf("plain CA page: %d", resp.StatusCode)
	}
	resp, err = client.Get(plain + "/s/claude/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != base+"/s/claude/x" {
		t.Fatalf("plain redirect: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}

	for _, f := range []string{"ca-key.pem", "leaf-key.pem", "csrf.key", "paddock.db", "serve.json"} {
		fi, err := os.Stat(filepath.Join(srv.DataDir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", f, fi.Mode().Perm())
		}
	}
}
