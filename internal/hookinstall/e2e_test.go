package hookinstall_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/hookinstall"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// fakeRelay is a stand-in for the paddock binary: a script named paddock
// that logs each call ("<argv>\t<stdin>") so the test sees which hooks the
// real CLI ran. It prints nothing, like the relay on a status event.
func fakeRelay(t *testing.T) (bin, log string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "bin", "paddock")
	log = filepath.Join(dir, "calls.log")
	script := fmt.Sprintf(`#!/bin/bash
data=$(cat)
printf '%%s\t%%s\n' "$*" "${data//$'\n'/ }" >> %q
exit 0
`, log)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// calls returns the events the relay saw, as "<runtime> <event>".
func calls(log string) []string {
	b, _ := os.ReadFile(log)
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		argv, _, _ := strings.Cut(line, "\t")
		f := strings.Fields(argv)
		// hook --runtime R --data-dir D [--async] EVENT [payload...]
		if len(f) >= 6 && f[0] == "hook" && f[1] == "--runtime" && f[3] == "--data-dir" {
			ev := f[5]
			if ev == "--async" && len(f) >= 7 {
				ev = f[6]
			}
			out = append(out, f[2]+" "+ev)
		}
	}
	return out
}

// TestRealCLIsRunInstalledHooks installs paddock's hooks with Install into
// each real CLI's throw-away HOME, drives one turn, and checks that the CLI
// accepted the config and ran paddock's hook commands (with the relay's
// arguments). It needs the pinned CLIs (.ci/install-agents); without them it
// skips, and fails under E2E_REQUIRED=1.
func TestRealCLIsRunInstalledHooks(t *testing.T) {
	cases := []struct {
		cli     agenttest.CLI
		runtime string
		want    []string // events that must arrive, in this order
	}{
		{agenttest.Claude, "claude", []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"}},
		{agenttest.Codex, "codex", []string{"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"}},
		{agenttest.OpenCode, "opencode", []string{"session.status", "session.idle"}},
		{agenttest.Pi, "pi", []string{"session_start", "agent_start", "agent_end", "session_shutdown"}},
	}
	for _, c := range cases {
		t.Run(c.runtime, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			mock, err := mockmodel.Start(ctx, mockmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mock.Close() })
			a := agenttest.New(t, c.cli, mock.URL())
			if c.cli == agenttest.Codex {
				a.Argv = append(a.Argv, agenttest.CodexBypassHookTrust)
			}
			if c.cli == agenttest.Pi {
				// Pi discovers extensions only in an existing dir; install
				// creates extensions/ under the agent dir.
				_ = os.MkdirAll(filepath.Join(a.Home, ".pi", "agent"), 0o755)
			}
			if c.cli == agenttest.Claude {
				_ = os.MkdirAll(filepath.Join(a.Home, ".claude"), 0o755)
			}
			env := map[string]string{}
			for _, kv := range a.Env {
				k, v, _ := strings.Cut(kv, "=")
				env[k] = v
			}
			bin, log := fakeRelay(t)
			opts := hookinstall.Options{Specs: registry.Default().InstallSpecs(), Binary: bin, DataDir: filepath.Join(a.Home, "paddock-data"), Home: a.Home, Env: func(k string) string { return env[k] }}
			res, err := hookinstall.Install(opts, []string{c.runtime}, false)
			if err != nil || len(res) != 1 || !res[0].Changed {
				t.Fatalf("install: %v %+v", err, res)
			}
			st, err := hookinstall.Status(opts, []string{c.runtime})
			if err != nil || st[0].State != hookinstall.StateInstalled {
				t.Fatalf("status after install: %v %+v", err, st)
			}

			term := a.Start(t)
			term.Expect(ctx, a.Ready)
			term.Type("hello paddock hooks")
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
			if _, err := a.Quit(ctx, term); err != nil {
				t.Fatal(err)
			}

			// hooks run asynchronously for some CLIs: give the last ones a moment
			var got []string
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
				got = calls(log)
				if hasInOrder(got, c.runtime, c.want) || time.Now().After(deadline) {
					break
				}
			}
			if !hasInOrder(got, c.runtime, c.want) {
				t.Fatalf("relay calls %q do not include %q in order", got, c.want)
			}
			t.Logf("%s ran paddock's hooks: %q", c.runtime, got)
			if c.cli == agenttest.Codex {
				b, _ := os.ReadFile(log)
				if !strings.Contains(string(b), " notify {") || !strings.Contains(string(b), "agent-turn-complete") {
					t.Errorf("codex did not run paddock's notify:\n%s", b)
				}
			}

			if _, err := hookinstall.Uninstall(opts, []string{c.runtime}, false); err != nil {
				t.Fatal(err)
			}
			if st, _ := hookinstall.Status(opts, []string{c.runtime}); st[0].State != hookinstall.StateNotInstalled {
				t.Errorf("status after uninstall: %+v", st[0])
			}
		})
	}
}

func hasInOrder(got []string, runtime string, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == runtime+" "+want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestRealKimiRunsInstalledHooks does for Kimi Code (not in agenttest: it
// needs its own Node) what TestRealCLIsRunInstalledHooks does for the
// others, in print mode: `kimi doctor` accepts the config paddock wrote and
// `kimi -p` runs paddock's hooks.
func TestRealKimiRunsInstalledHooks(t *testing.T) {
	kimi := filepath.Join(agenttest.AgentsDir(t), "bin", "kimi")
	if _, err := os.Stat(kimi); err != nil {
		if os.Getenv(agenttest.EnvRequired) == "1" {
			t.Fatalf("kimi not installed: %v", err)
		}
		t.Skipf("kimi not installed (optional in .ci/install-agents): %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	mock, err := mockmodel.Start(ctx, mockmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kimiHome := filepath.Join(home, ".kimi-code")
	proj := filepath.Join(home, "proj")
	for _, d := range []string{kimiHome, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := fmt.Sprintf(`default_model = "mock-model"
default_permission_mode = "manual"
telemetry = false

[providers.mock]
type = "kimi"
base_url = %q
api_key = "sk-mock"

[models.mock-model]
provider = "mock"
model = "mock-model"
max_context_size = 128000
`, mock.URL()+"/v1")
	if err := os.WriteFile(filepath.Join(kimiHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	bin, log := fakeRelay(t)
	env := map[string]string{"KIMI_CODE_HOME": kimiHome}
	opts := hookinstall.Options{Specs: registry.Default().InstallSpecs(), Binary: bin, DataDir: filepath.Join(home, "paddock-data"), Home: home, Env: func(k string) string { return env[k] }}
	if _, err := hookinstall.Install(opts, []string{"kimi"}, false); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		cmd := exec.CommandContext(ctx, kimi, args...)
		cmd.Dir = proj
		cmd.Env = []string{"HOME=" + home, "KIMI_CODE_HOME=" + kimiHome, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "KIMI_CODE_NO_AUTO_UPDATE=1"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kimi %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("doctor"); !strings.Contains(out, "All checked config files are valid") {
		t.Fatalf("kimi doctor:\n%s", out)
	}
	run("-p", "hello paddock hooks")
	want := []string{"SessionStart", "UserPromptSubmit", "Stop"}
	var got []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		got = calls(log)
		if hasInOrder(got, "kimi", want) || time.Now().After(deadline) {
			break
		}
	}
	if !hasInOrder(got, "kimi", want) {
		t.Fatalf("relay calls %q do not include %q in order", got, want)
	}
	t.Logf("kimi ran paddock's hooks: %q", got)
}
