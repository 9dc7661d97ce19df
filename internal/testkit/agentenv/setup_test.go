package agentenv

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBin stands in for an installed CLI: New needs only its path.
func fakeBin(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestSharedHome: make demo sets several CLIs and several projects up in
// one HOME; each recipe must add to what the others wrote.
func TestSharedHome(t *testing.T) {
	home := t.TempDir()
	bin := fakeBin(t)
	const url = "http://127.0.0.1:4242"
	var claudeCwds, codexCwds []string
	for _, cli := range CLIs() {
		for _, proj := range []string{"one", "two"} {
			s, err := New(cli, Config{Home: home, Cwd: filepath.Join(home, string(cli)+"-"+proj), ModelURL: url, Bin: bin})
			if err != nil {
				t.Fatalf("%s %s: %v", cli, proj, err)
			}
			if st, err := os.Stat(s.Cwd); err != nil || !st.IsDir() {
				t.Fatalf("%s: project dir %s: %v", cli, s.Cwd, err)
			}
			if s.Getenv("HOME") != s.Home || s.Argv[0] != bin || s.Ready == nil || (s.Exit.Text == "" && len(s.Exit.Keys) == 0) || len(s.Continue) == 0 {
				t.Fatalf("%s: setup %+v", cli, s)
			}
			switch cli {
			case Claude:
				claudeCwds = append(claudeCwds, s.Cwd)
			case Codex:
				codexCwds = append(codexCwds, s.Cwd)
			}
		}
	}
	var cfg struct {
		HasCompletedOnboarding bool
		Projects               map[string]struct{ HasTrustDialogAccepted bool }
	}
	b, err := os.ReadFile(filepath.Join(home, ".claude.json"))
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, cwd := range claudeCwds {
		if !cfg.HasCompletedOnboarding || !cfg.Projects[cwd].HasTrustDialogAccepted {
			t.Errorf(".claude.json does not trust %s:\n%s", cwd, b)
		}
	}
	toml, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(toml), "[model_providers.mock]"); n != 1 {
		t.Errorf("config.toml has the provider %d times:\n%s", n, toml)
	}
	for _, cwd := range codexCwds {
		if strings.Count(string(toml), `[projects."`+cwd+`"]`) != 1 {
			t.Errorf("config.toml does not trust %s once:\n%s", cwd, toml)
		}
	}
	kimi, err := os.ReadFile(filepath.Join(home, ".kimi-code", "config.toml"))
	if err != nil || !strings.Contains(string(kimi), `base_url = "`+url+`/v1"`) || !strings.Contains(string(kimi), `default_permission_mode = "manual"`) {
		t.Errorf("kimi config.toml (%v):\n%s", err, kimi)
	}
	// Re-running a recipe on the same project changes nothing.
	if _, err := New(Codex, Config{Home: home, Cwd: codexCwds[0], ModelURL: url, Bin: bin}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(home, ".codex", "config.toml")); string(again) != string(toml) {
		t.Errorf("config.toml changed on a second setup:\n%s", again)
	}
}

func TestNewRejects(t *testing.T) {
	bin := fakeBin(t)
	for name, tc := range map[string]struct {
		cli CLI
		c   Config
	}{
		"unknown CLI": {"gemini", Config{Home: t.TempDir(), ModelURL: "http://x", Bin: bin}},
		"no model":    {Claude, Config{Home: t.TempDir(), Bin: bin}},
		"no home":     {Claude, Config{ModelURL: "http://x", Bin: bin}},
	} {
		if _, err := New(tc.cli, tc.c); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestBinMissing(t *testing.T) {
	t.Setenv(EnvAgents, t.TempDir())
	_, err := Bin(Codex)
	var me *MissingError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "make e2e-deps") {
		t.Fatalf("Bin on an empty prefix: %v", err)
	}
	// Kimi lives in a prefix of its own.
	dir := t.TempDir()
	t.Setenv(EnvAgents, dir)
	pkg, version, _ := Kimi.Pinned()
	for path, content := range map[string]string{
		filepath.Join(dir, "bin", "kimi"):                               "#!/bin/sh\n",
		filepath.Join(dir, "kimi", "node_modules", pkg, "package.json"): `{"version":"` + version + `"}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if bin, err := Bin(Kimi); err != nil || bin != filepath.Join(dir, "bin", "kimi") {
		t.Fatalf("Bin(Kimi) = %q, %v", bin, err)
	}
}

func TestKimiWorkDirKey(t *testing.T) {
	// Keys Kimi 2.1.0 itself wrote.
	for dir, want := range map[string]string{
		"/tmp/pdk-scratch/kimi/proj":  "wd_proj_8ea88a0cd3b2",
		"/tmp/pdk-scratch/kimi/proj/": "wd_proj_8ea88a0cd3b2",
	} {
		if got := kimiWorkDirKey(dir); got != want {
			t.Errorf("kimiWorkDirKey(%q) = %q, want %q", dir, got, want)
		}
	}
	if got := kimiWorkDirKey("/x/My Project!"); !strings.HasPrefix(got, "wd_my-project_") {
		t.Errorf("slug of %q: %q", "My Project!", got)
	}
}
