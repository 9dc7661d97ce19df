package main

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddock/internal/config"
	"paddock/internal/hookchannel"
)

const testBin = "/opt/paddock/bin/paddock"

// userSettings stands in for a user's ~/.claude/settings.json: content
// and a hook of their own that paddock must keep byte for byte.
const userSettings = `{
  "model": "opus",
  "permissions": {"allow": ["Bash(npm run lint)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/audit.sh", "timeout": 30}]}
    ]
  }
}
`

// hooksHome is a HOME with Claude Code (and its settings) and Codex.
func hooksHome(t *testing.T) (env, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	return env{"HOME": home, "PADDOCK_HOME": filepath.Join(home, "data")}, home
}

// snapshot is every file under dir with its content hash, mode and mtime.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(b)
			sum = string(h[:])
		}
		out[p] = fi.Mode().String() + fi.ModTime().String() + sum
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestHooksDryRunWritesNothing(t *testing.T) {
	e, home := hooksHome(t)
	before := snapshot(t, home)
	for _, args := range [][]string{
		{"hooks", "install", "--dry-run", "--binary", testBin},
		{"hooks", "install", "--dry-run", "--binary", testBin, "--runtime", "claude"},
		{"hooks", "uninstall", "--dry-run", "--binary", testBin},
		{"hooks", "install", "--dry-run", "--binary", testBin, "--claude-http"},
	} {
		code, out, errs := runCmd(t, e, args...)
		if code != 0 {
			t.Fatalf("%q: exit %d\n%s%s", args, code, out, errs)
		}
		if args[1] == "install" {
			for _, want := range []string{"claude: would update " + filepath.Join(home, ".claude", "settings.json"),
				"+", testBin + " hook --runtime claude --data-dir " + filepath.Join(home, "data") + " SessionStart", "Dry run: nothing was written."} {
				if !strings.Contains(out, want) {
					t.Errorf("%q: output lacks %q:\n%s", args, want, out)
				}
			}
		}
		if got := snapshot(t, home); len(got) != len(before) {
			t.Fatalf("%q wrote files: %d entries, had %d", args, len(got), len(before))
		} else {
			for p, s := range before {
				if got[p] != s {
					t.Fatalf("%q changed %s", args, p)
				}
			}
		}
	}
}

func TestHooksRoundTrip(t *testing.T) {
	e, home := hooksHome(t)
	settings := filepath.Join(home, ".claude", "settings.json")

	code, out, _ := runCmd(t, e, "hooks", "status", "--binary", testBin)
	if code != 0 || !tableRow(out, "claude", "not installed") || !tableRow(out, "codex", "not installed") || !tableRow(out, "cursor", "agent absent") ||
		!strings.Contains(out, "paddock hooks install") {
		t.Fatalf("status before: %d\n%s", code, out)
	}

	code, out, errs := runCmd(t, e, "hooks", "install", "--binary", testBin)
	if code != 0 {
		t.Fatalf("install: %d\n%s%s", code, out, errs)
	}
	for _, want := range []string{"claude: update " + settings + " (backup settings.json.paddock-backup-", "codex: create " + filepath.Join(home, ".codex", "hooks.json"),
		"note: Codex runs hooks from hooks.json only after you trust them", "/hooks"} {
		if !strings.Contains(out, want) {
			t.Errorf("install output lacks %q:\n%s", want, out)
		}
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), testBin+" hook --runtime claude --data-dir "+filepath.Join(home, "data")+" UserPromptSubmit") || !strings.Contains(string(b), "~/bin/audit.sh") {
		t.Fatalf("settings after install:\n%s", b)
	}
	backups, _ := filepath.Glob(settings + ".paddock-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}

	code, out, _ = runCmd(t, e, "hooks", "status", "--binary", testBin)
	if code != 0 || !tableRow(out, "claude", "installed") || !tableRow(out, "codex", "installed") || strings.Contains(out, "paddock hooks install") {
		t.Fatalf("status after install: %d\n%s", code, out)
	}
	if code, out, _ = runCmd(t, e, "hooks", "install", "--binary", testBin); code != 0 || !strings.Contains(out, "claude: already installed") || !strings.Contains(out, "codex: already installed") {
		t.Fatalf("second install: %d\n%s", code, out)
	}

	// serve offers nothing once an agent calls paddock's hooks
	var offer bytes.Buffer
	cfg, _ := config.Default(e.get)
	offerHookInstall(&offer, cfg, e.get)
	if offer.Len() != 0 {
		t.Fatalf("offer with hooks installed: %q", offer.String())
	}

	code, out, errs = runCmd(t, e, "hooks", "uninstall", "--binary", testBin)
	if code != 0 || !strings.Contains(out, "claude: update "+settings) {
		t.Fatalf("uninstall: %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(settings); string(b) != userSettings {
		t.Fatalf("uninstall did not restore the user's settings byte for byte:\n%s", b)
	}
	if code, out, _ = runCmd(t, e, "hooks", "status", "--runtime", "claude,codex", "--binary", testBin); code != 0 ||
		!tableRow(out, "claude", "not installed") || !tableRow(out, "codex", "not installed") || strings.Contains(out, "cursor") {
		t.Fatalf("status after uninstall: %d\n%s", code, out)
	}
	if code, out, _ = runCmd(t, e, "hooks", "uninstall", "--binary", testBin); code != 0 || !strings.Contains(out, "claude: nothing to remove") {
		t.Fatalf("second uninstall: %d\n%s", code, out)
	}
}

// tableRow reports whether the status table has a row for runtime in state.
func tableRow(out, runtime, state string) bool {
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == runtime {
			return strings.HasPrefix(strings.Join(f[1:], " "), state+" ")
		}
	}
	return false
}

func TestHooksBrokenConfig(t *testing.T) {
	e, home := hooksHome(t)
	settings := filepath.Join(home, ".claude", "settings.json")
	broken := []byte("{\n  \"model\": \"opus\",\n  oops\n}\n")
	os.WriteFile(settings, broken, 0o600)
	code, out, errs := runCmd(t, e, "hooks", "install", "--binary", testBin)
	if code != 1 || !strings.Contains(out, "settings.json:3") || !strings.Contains(out, "left unchanged") || !strings.Contains(out, "codex: create") ||
		!strings.Contains(errs, "some agents were not changed") {
		t.Fatalf("install over a broken config: %d\n%s%s", code, out, errs)
	}
	if b, _ := os.ReadFile(settings); !bytes.Equal(b, broken) {
		t.Fatal("the broken config was touched")
	}
	if code, out, _ := runCmd(t, e, "hooks", "status", "--binary", testBin); code != 1 || !tableRow(out, "claude", "error") {
		t.Fatalf("status over a broken config: %d\n%s", code, out)
	}
}

// TestHooksClaudeHTTPSecret: the http-hook opt-in writes the secret into
// settings.json (0600) but never shows it.
func TestHooksClaudeHTTPSecret(t *testing.T) {
	e, home := hooksHome(t)
	if code, _, errs := runCmd(t, e, "hooks", "install", "--binary", testBin, "--runtime", "claude", "--claude-http", "--hook-addr", "127.0.0.1:0"); code == 0 || !strings.Contains(errs, "fixed port") {
		t.Fatalf("--claude-http with port 0: %d %q", code, errs)
	}
	code, out, errs := runCmd(t, e, "hooks", "install", "--binary", testBin, "--runtime", "claude", "--claude-http")
	if code != 0 {
		t.Fatalf("install --claude-http: %d\n%s%s", code, out, errs)
	}
	secret, err := hookchannel.ReadSecret(filepath.Join(home, "data"))
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), secret) || !strings.Contains(string(b), "http://127.0.0.1:7081/hook/claude") {
		t.Fatalf("settings:\n%s", b)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Fatalf("settings mode %v", fi.Mode())
	}
	os.WriteFile(settings, []byte(userSettings), 0o600)
	code, out, _ = runCmd(t, e, "hooks", "install", "--dry-run", "--binary", testBin, "--runtime", "claude", "--claude-http")
	if code != 0 || strings.Contains(out+errs, secret) || !strings.Contains(out, "<hook secret>") {
		t.Fatalf("the dry run shows the secret or no placeholder:\n%s", out)
	}
}

func TestHooksBadUsage(t *testing.T) {
	e, _ := hooksHome(t)
	for _, args := range [][]string{
		{"hooks"},
		{"hooks", "--dry-run"},
		{"hooks", "frob"},
		{"hooks", "install", "--runtime", "emacs", "--binary", testBin},
		{"hooks", "install", "extra", "--binary", testBin},
		{"hooks", "status", "--dry-run"},
		{"hooks", "install", "--bogus"},
	} {
		if code, _, errs := runCmd(t, e, args...); code == 0 || errs == "" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestOfferHookInstall(t *testing.T) {
	e, home := hooksHome(t)
	cfg, _ := config.Default(e.get)
	var b bytes.Buffer
	offerHookInstall(&b, cfg, e.get)
	if !strings.Contains(b.String(), os.Args[0]+" hooks install") || !strings.Contains(b.String(), "--dry-run") {
		t.Fatalf("no offer: %q", b.String())
	}
	// no agent at all: nothing to offer
	os.RemoveAll(filepath.Join(home, ".claude"))
	os.RemoveAll(filepath.Join(home, ".codex"))
	b.Reset()
	offerHookInstall(&b, cfg, e.get)
	if b.Len() != 0 {
		t.Fatalf("offer without agents: %q", b.String())
	}
}

// The advice names the binary the way the user can run it again: the
// path they typed (./bin/paddock after make run), the bare name only when
// PATH finds this very binary.
func TestInvokedAs(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "paddock")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, tc := range []struct{ arg0, exe, want string }{
		{"./bin/paddock", "/repo/bin/paddock", "./bin/paddock"},
		{"paddock", bin, "paddock"},
		{"paddock", "/elsewhere/paddock", "/elsewhere/paddock"},
	} {
		if got := invokedAs(tc.arg0, tc.exe); got != tc.want {
			t.Errorf("invokedAs(%q, %q) = %q, want %q", tc.arg0, tc.exe, got, tc.want)
		}
	}
}
