package hookchannel

import (
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func newTextLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestListenRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{":0", "0.0.0.0:0", "[::]:0", "192.168.1.10:0", "10.0.0.1:7081", "example.com:0", "localhost.example.com:0", "::1", "127.0.0.1"} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Errorf("Listen(%q) accepted", addr)
		}
	}
	for addr, host := range map[string]string{"127.0.0.1:0": "127.0.0.1", "localhost:0": "127.0.0.1", "LocalHost:0": "127.0.0.1"} {
		ln, err := Listen(addr)
		if err != nil {
			t.Fatalf("Listen(%q): %v", addr, err)
		}
		if got := ln.Addr().(*net.TCPAddr).IP.String(); got != host {
			t.Errorf("Listen(%q) bound %s", addr, got)
		}
		ln.Close()
	}
	if ln, err := net.Listen("tcp", "[::1]:0"); err == nil { // IPv6 loopback where the machine has it
		ln.Close()
		ln, err := Listen("[::1]:0")
		if err != nil {
			t.Fatalf("Listen([::1]:0): %v", err)
		}
		ln.Close()
	}
}

func TestSecret(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := ReadSecret(dir); err == nil {
		t.Fatal("ReadSecret of a missing file")
	}
	s, replaced, err := LoadOrCreateSecret(dir)
	if err != nil || replaced || !validSecret(s) {
		t.Fatalf("create: %q %v %v", s, replaced, err)
	}
	path := filepath.Join(dir, SecretFile)
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(path); string(b) != s+"\n" {
		t.Fatalf("file %q", b)
	}
	again, _, err := LoadOrCreateSecret(dir)
	if err != nil || again != s {
		t.Fatal("a second load made a new secret")
	}
	if r, err := ReadSecret(dir); err != nil || r != s {
		t.Fatalf("ReadSecret %q %v", r, err)
	}

	// readable by others: replaced
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, replaced, err := LoadOrCreateSecret(dir)
	if err != nil || !replaced || fresh == s {
		t.Fatalf("exposed secret not replaced: %v %v", replaced, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("replaced with mode %v", st.Mode())
	}

	// not ours: left alone
	if err := os.WriteFile(path, []byte("hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateSecret(dir); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Fatalf("garbage secret: %v", err)
	}
	os.Remove(path)
	if err := os.Symlink("/etc/hostname", path); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateSecret(dir); err == nil {
		t.Fatal("a symlink accepted")
	}
}

// TestSecretRace: two processes starting together end up with one secret.
func TestSecretRace(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _, _ = LoadOrCreateSecret(dir)
		}()
	}
	wg.Wait()
	for _, s := range got {
		if s != got[0] || s == "" {
			t.Fatalf("secrets differ: %q", got)
		}
	}
}
