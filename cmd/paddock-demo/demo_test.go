package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/mockmodel"
)

// TestScenarios keeps the demo's promise: a newcomer sees chats, a pending
// approval and a pending question, every session has a tmux-safe unique
// name, and each scenario's prompts trigger what it waits for.
func TestScenarios(t *testing.T) {
	seen := map[string]bool{}
	var kinds []pending
	bin := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	tmuxName := regexp.MustCompile(`^[a-z0-9-]+$`)
	for _, s := range scenarios {
		if seen[s.Name] || !tmuxName.MatchString(s.Name) {
			t.Errorf("scenario name %q is taken or not a plain tmux session name", s.Name)
		}
		seen[s.Name] = true
		if _, _, ok := s.CLI.Pinned(); !ok {
			t.Errorf("%s: unknown CLI %q", s.Name, s.CLI)
		}
		keyword := map[pending]string{approval: "RUN", question: "ASK"}[s.Leave]
		if (s.Leave == nothing) != (s.Then == "") || keyword != "" && !strings.Contains(s.Then, keyword) {
			t.Errorf("%s: leaves %q after %q", s.Name, s.Leave, s.Then)
		}
		for _, p := range s.Chat {
			if regexp.MustCompile(`\b(RUN|ASK|ERROR|SLOW)\b`).MatchString(p) {
				t.Errorf("%s: chat prompt %q would not get a plain reply", s.Name, p)
			}
		}
		setup, err := agentenv.New(s.CLI, agentenv.Config{Home: home, Cwd: filepath.Join(home, s.Name), ModelURL: "http://127.0.0.1:1", Bin: bin})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.screenFor(setup); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		if s.CLI == agentenv.Claude {
			kinds = append(kinds, s.Leave)
		}
	}
	for _, want := range []pending{nothing, approval, question} {
		if !slices.Contains(kinds, want) {
			t.Errorf("no Claude scenario leaves %q", want)
		}
	}
	for _, cli := range agentenv.CLIs() {
		if got := selectScenarios(scenarios, []agentenv.CLI{cli}); len(got) == 0 || got[0].CLI != cli {
			t.Errorf("--only %s selects %+v", cli, got)
		}
	}
	if got := selectScenarios(scenarios, nil); len(got) != len(scenarios) {
		t.Errorf("no --only selects %d of %d", len(got), len(scenarios))
	}
}

func TestParseFlags(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := parseFlags(nil, &stderr)
	if err != nil || cfg.Addr != ":7443" || cfg.HTTPAddr != ":7080" || cfg.HookAddr != "127.0.0.1:0" || cfg.Keep || cfg.Only != nil {
		t.Fatalf("defaults %+v, %v", cfg, err)
	}
	cfg, err = parseFlags([]string{"--addr", "127.0.0.1:8443", "--http-addr", "", "--only", "claude, pi", "--keep"}, &stderr)
	if err != nil || cfg.Addr != "127.0.0.1:8443" || cfg.HTTPAddr != "" || !cfg.Keep || !slices.Equal(cfg.Only, []agentenv.CLI{"claude", "pi"}) {
		t.Fatalf("parsed %+v, %v", cfg, err)
	}
	for _, bad := range [][]string{{"--only", "gemini"}, {"extra"}, {"--nope"}} {
		stderr.Reset()
		if _, err := parseFlags(bad, &stderr); err == nil || stderr.Len() == 0 {
			t.Errorf("%q: err %v, stderr %q", bad, err, stderr.String())
		}
	}
}

// fakePaddock writes a script standing in for the paddock binary: serve
// prints a banner like paddock's and runs until SIGINT; hook exits with
// hookStatus.
func fakePaddock(t *testing.T, hookStatus int) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "paddock")
	script := `#!/bin/sh
case "$1" in
hook) cat >/dev/null; exit ` + strconv.Itoa(hookStatus) + ` ;;
serve)
  trap 'echo stopped >&2; exit 0' INT
  echo "paddock is serving the dashboard at:"
  echo "  https://127.0.0.1:7443/"
  echo "pair link: https://127.0.0.1:7443/pair?code=abc"
  while :; do sleep 0.1; done ;;
esac
exit 2
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestRelayWorks(t *testing.T) {
	if !relayWorks(t.Context(), fakePaddock(t, 0), t.TempDir(), nil) {
		t.Error("a relay exiting 0 does not count as working")
	}
	if relayWorks(t.Context(), fakePaddock(t, 2), t.TempDir(), nil) {
		t.Error("a paddock without the hook command counts as a working relay")
	}
}

// TestCloseStopsEverything: after close, the agents paddock hosted (and
// a daemon one of them detached), paddock's tmux server, paddock and the
// mock are gone, and so is the throw-away directory.
func TestCloseStopsEverything(t *testing.T) {
	root := t.TempDir()
	var out, log bytes.Buffer
	d := &demo{root: filepath.Join(root, "demo"), log: &log}
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()

	var err error
	if d.serve, err = startServe(ctx, fakePaddock(t, 0), nil, []string{"PATH=" + os.Getenv("PATH")}, &out, filepath.Join(d.root, "paddock.log")); err != nil {
		t.Fatal(err)
	}
	if d.serve.PairLink != "https://127.0.0.1:7443/pair?code=abc" || !slices.Equal(d.serve.URLs, []string{"https://127.0.0.1:7443/"}) ||
		!strings.Contains(out.String(), "pair link:") {
		t.Fatalf("banner: %+v; forwarded %q", d.serve, out.String())
	}
	if d.mock, err = mockmodel.Start(context.WithoutCancel(ctx), mockmodel.Options{}); err != nil {
		t.Fatal(err)
	}
	// The agents run in paddock's own tmux (its socket in the data dir),
	// one of them with a daemon that left its pane, as Codex's app-server
	// does; both carry paddock's PADDOCK_HOME, as paddock's agents do.
	if _, err := exec.LookPath("tmux"); err != nil {
		// tmux not installed: a user's clone may lack it; CI must not.
		if os.Getenv("E2E_REQUIRED") == "1" {
			t.Fatal(err)
		}
		t.Skip("tmux not installed: ", err)
	}
	d.data = filepath.Join(d.root, "data")
	sock := filepath.Join(d.data, "tmux", "paddock.sock")
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(root, "daemon.pid")
	for i, script := range []string{
		`(setsid sleep 600 & echo $! > ` + pidFile + `); echo started; sleep 600`,
		`trap '' INT TERM HUP; echo started; sleep 600`,
	} {
		args := []string{"-S", sock, "new-session", "-d", "-s", "agent" + strconv.Itoa(i), "-e", "PADDOCK_HOME=" + d.data, "/bin/sh", "-c", script}
		if i > 0 {
			args = []string{"-S", sock, "new-window", "-t", "agent0", "-e", "PADDOCK_HOME=" + d.data, "/bin/sh", "-c", script}
		}
		if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
	}
	var daemon int
	for daemon == 0 && ctx.Err() == nil {
		b, _ := os.ReadFile(pidFile)
		daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(50 * time.Millisecond)
	}
	panes, err := exec.Command("tmux", "-S", sock, "list-panes", "-a", "-F", "#{pane_pid}").Output()
	if err != nil {
		t.Fatal(err)
	}
	pids := []int{daemon, d.serve.PID()}
	for _, f := range strings.Fields(string(panes)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	if len(pids) != 4 {
		t.Fatalf("pids %v: want the daemon, paddock and two panes", pids)
	}
	mockURL := d.mock.URL()

	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if agentenv.Alive(pid) {
			t.Errorf("pid %d survived close", pid)
		}
	}
	if _, err := http.Get(mockURL + "/v1/models"); err == nil {
		t.Error("the mock model still answers after close")
	}
	if _, err := os.Stat(d.root); !os.IsNotExist(err) {
		t.Errorf("the throw-away directory is still there: %v", err)
	}
	if err := d.close(); err != nil {
		t.Errorf("a second close: %v", err)
	}
}

// paddock's environment in the demo lets it start the demo's agents: their
// variables join (the first value kept where two differ) and their CLIs
// come first on PATH, with no empty PATH entry.
func TestWithAgents(t *testing.T) {
	mk := func(argv0 string, env ...string) *started {
		return &started{setup: &agentenv.Setup{Argv: []string{argv0}, Env: env}}
	}
	got := withAgents([]string{"HOME=/h", "PATH=/usr/bin"}, []*started{
		mk("/agents/a/bin/claude", "ANTHROPIC_BASE_URL=http://mock", "MOCK_API_KEY=one", "HOME=/other", "PATH=/x"),
		mk("/agents/b/bin/codex", "OPENAI_BASE_URL=http://mock/v1", "MOCK_API_KEY=two"),
		mk("/agents/a/bin/pi"),
	})
	want := []string{"HOME=/h", "ANTHROPIC_BASE_URL=http://mock", "MOCK_API_KEY=one", "OPENAI_BASE_URL=http://mock/v1", "PATH=/agents/a/bin:/agents/b/bin:/usr/bin"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("env %q, want %q", got, want)
	}
	if got := withAgents([]string{"HOME=/h"}, []*started{mk("/a/claude")}); got[len(got)-1] != "PATH=/a" {
		t.Fatalf("without a PATH: %q", got)
	}
}
