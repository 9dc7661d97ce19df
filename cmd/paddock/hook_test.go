package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHookCommandInProcess covers run's dispatch and the usage text.
func TestHookCommandInProcess(t *testing.T) {
	e := env{"HOME": t.TempDir(), "PADDOCK_HOME": t.TempDir()}
	if code, out, errs := runCmd(t, e, "hook", "--runtime", "claude", "SessionStart"); code != 0 || out != "" || errs != "" {
		t.Fatalf("hook: %d %q %q", code, out, errs)
	}
	if code, out, errs := runCmd(t, e, "hook", "--bogus"); code != 0 || out != "" || errs != "" {
		t.Fatalf("hook with a bad flag: %d %q %q", code, out, errs)
	}
	if code, out, errs := runCmd(t, e, "hook", "-h"); code != 0 || out != "" || !strings.Contains(errs, "Usage: paddock hook") {
		t.Fatalf("hook -h: %d %q %q", code, out, errs)
	}
	var out, errb bytes.Buffer
	e["PADDOCK_HOOK_DEBUG"] = "1"
	code := cmdHook(context.Background(), time.Now(), []string{"SessionStart"}, strings.NewReader(`{"session_id":"x"}`), &out, &errb, e.get)
	if code != 0 || out.Len() != 0 || !strings.Contains(errb.String(), "not running") {
		t.Fatalf("debug: %d %q %q", code, out.String(), errb.String())
	}
}

// TestServeRefusesNonLoopbackHookAddr: the hook listener never binds a
// reachable address.
func TestServeRefusesNonLoopbackHookAddr(t *testing.T) {
	home := t.TempDir()
	e := env{"HOME": home, "PADDOCK_HOME": filepath.Join(home, "data")}
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:7081"} {
		code, _, errs := runCmd(t, e, "serve", "--addr", "127.0.0.1:0", "--http-addr", "", "--hook-addr", addr)
		if code != 1 || !strings.Contains(errs, "must be loopback") {
			t.Fatalf("--hook-addr %s: exit %d, %q", addr, code, errs)
		}
	}
}
