package hookinstall_test

import (
	"os"
	"os/exec"
	"paddock/internal/agent/registry"
	"paddock/internal/hookinstall"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginSources(t *testing.T) {
	e, err := hookinstall.Resolve(hookinstall.Options{Specs: registry.Default().InstallSpecs(), Binary: `/opt/pad"dock/paddock`, DataDir: "/d ata", Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The plugin files as an install would write them.
	plugin := func(runtime string) string {
		for _, s := range registry.Default().InstallSpecs() {
			if s.Name == runtime {
				dir := t.TempDir()
				out, err := s.Targets(e, dir, true)[0].Edit(nil, false, true)
				if err != nil {
					t.Fatal(err)
				}
				return string(out.Out)
			}
		}
		t.Fatalf("no install spec for %s", runtime)
		return ""
	}
	js, ts := plugin("opencode"), plugin("pi")
	for name, src := range map[string]string{"opencode": js, "pi": ts} {
		if strings.Contains(src, "__PADDOCK_") {
			t.Errorf("%s: placeholder left", name)
		}
		if !strings.Contains(src, `const PADDOCK`) || !strings.Contains(src, `"/opt/pad\"dock/paddock"`) {
			t.Errorf("%s: binary not filled in as a string literal", name)
		}
		if !strings.Contains(src, `["hook","--runtime","`+name+`","--data-dir","/d ata"]`) {
			t.Errorf("%s: relay arguments not filled in", name)
		}
	}
	if !strings.Contains(js, "paddock-hook-plugin") || !strings.Contains(ts, "paddock-hook-extension") {
		t.Error("marker missing")
	}
	for _, ev := range []string{"permission.asked", "permission.replied", "session.status", "session.idle", "question.asked"} {
		if !strings.Contains(js, `"`+ev+`"`) {
			t.Errorf("the OpenCode plugin does not forward %s", ev)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatal("node not found (E2E_REQUIRED=1): the plugin's syntax must be checked")
		}
		t.Skip("node not found: plugin syntax not checked (E2E_REQUIRED=1 makes this a failure)")
	}
	p := filepath.Join(t.TempDir(), "paddock.mjs")
	if err := os.WriteFile(p, []byte(js), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(node, "--check", p).CombinedOutput(); err != nil {
		t.Fatalf("node --check on the OpenCode plugin: %v\n%s", err, out)
	}
}
