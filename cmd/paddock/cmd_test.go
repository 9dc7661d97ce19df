package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type env map[string]string

func (e env) get(k string) string { return e[k] }

func runCmd(t *testing.T, e env, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb, e.get)
	return code, out.String(), errb.String()
}

func TestAdminCommands(t *testing.T) {
	home := t.TempDir()
	e := env{"HOME": home, "PADDOCK_HOME": filepath.Join(home, "data")}

	code, out, errs := runCmd(t, e, "token", "create", "ci-script")
	if code != 0 {
		t.Fatalf("token create: %d %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	tok := lines[len(lines)-1]
	if !strings.HasPrefix(tok, "pdk_") || strings.ContainsAny(tok, " \t") {
		t.Fatalf("last line %q is not the token alone", tok)
	}
	if strings.Contains(errs, tok) {
		t.Fatal("token written to the log")
	}

	code, out, _ = runCmd(t, e, "token", "list")
	if code != 0 || !strings.Contains(out, "ci-script") || strings.Contains(out, tok) {
		t.Fatalf("token list: %d %q", code, out)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if code, _, errs := runCmd(t, e, "token", "revoke", id); code != 0 {
		t.Fatalf("token revoke: %s", errs)
	}
	if _, out, _ := runCmd(t, e, "token", "list"); !strings.Contains(out, "revoked") {
		t.Fatalf("token not revoked: %q", out)
	}
	if code, _, errs := runCmd(t, e, "token", "revoke", "nope"); code != 1 || !strings.Contains(errs, "paddock:") {
		t.Fatalf("revoking an unknown token: %d %q", code, errs)
	}

	// A token with an end says when; bad lifetimes are refused.
	code, out, errs = runCmd(t, e, "token", "create", "--expires", "720h", "nightly")
	if code != 0 || !strings.Contains(out, "valid until ") {
		t.Fatalf("token create --expires: %d %q %q", code, out, errs)
	}
	if _, out, _ := runCmd(t, e, "token", "list"); !strings.Contains(out, "EXPIRES") || !strings.Contains(out, "nightly") {
		t.Errorf("token list: %q", out)
	}
	for _, bad := range [][]string{{"token", "create", "--expires", "soon", "x"}, {"token", "create", "--expires=-1h", "x"}, {"token", "list", "--expires", "1h"}} {
		if code, _, errs := runCmd(t, e, bad...); code == 0 || !strings.Contains(errs, "--expires") {
			t.Errorf("%v: %d %q", bad, code, errs)
		}
	}

	code, out, errs = runCmd(t, e, "pair")
	if code != 0 || !strings.Contains(out, "pair link: https://") || !strings.Contains(out, "/pair?code=") {
		t.Fatalf("pair: %d %q %q", code, out, errs)
	}
	if code, out, _ := runCmd(t, e, "devices"); code != 0 || !strings.HasPrefix(out, "ID") {
		t.Fatalf("devices: %d %q", code, out)
	}
	code, out, _ = runCmd(t, e, "ca")
	if code != 0 || !strings.Contains(out, "SHA-256:") {
		t.Fatalf("ca: %d %q", code, out)
	}
	st, err := os.Stat(filepath.Join(home, "data"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("data dir mode: %v %v", st, err)
	}
}

func TestBadCommandLines(t *testing.T) {
	e := env{"HOME": t.TempDir()}
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"serve", "--no-such-flag"},
		{"serve", "--cert", "x.pem"},
		{"serve", "--log-level", "loud"},
		{"token"},
		{"token", "create"},
		{"devices", "revoke"},
	} {
		code, _, errs := runCmd(t, e, args...)
		if code == 0 || errs == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}
