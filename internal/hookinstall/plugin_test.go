package hookinstall

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestPluginSources(t *testing.T) {
	o := &resolved{binary: `/opt/pad"dock/paddock`, dataDir: "/d ata"}
	js := string(o.fill(opencodePlugin, "opencode"))
	ts := string(o.fill(piExtension, "pi"))
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
	if !strings.Contains(js, opencodeMarker) || !strings.Contains(ts, piMarker) {
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
