package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
	"paddock/internal/hookchannel"
	"paddock/internal/hookstate"
	"paddock/internal/testkit/servetest"
)

// A Claude Code 2.1.328 SessionStart and UserPromptSubmit, byte for byte
// as the real CLI sent them to its hooks (only the session id changed).
const (
	claudeSessionStart = `{"session_id":"%s","transcript_path":"/tmp/fakehome1/.claude/projects/-tmp-fakehome1-proj/x.jsonl","cwd":"/tmp/fakehome1/proj","hook_event_name":"SessionStart","source":"startup","model":"claude-opus-5-5"}`
	claudePrompt       = `{"session_id":"%s","transcript_path":"/tmp/fakehome1/.claude/projects/-tmp-fakehome1-proj/x.jsonl","cwd":"/tmp/fakehome1/proj","prompt_id":"8d4422e2","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"please RUN the thing"}`
	claudePermission   = `{"session_id":"%s","transcript_path":"/tmp/x.jsonl","cwd":"/tmp/proj","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"echo hi"}}`
)

// hookRun is one run of the real `paddock hook` binary.
type hookRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runHook runs `paddock hook --runtime R --data-dir D EVENT` with payload on
// stdin, directly (the test is the agent) or through `sh -c` as agents do.
func runHook(t *testing.T, dataDir, runtime, event, payload string, env []string, viaShell bool) hookRun {
	t.Helper()
	bin := servetest.Binary(t)
	args := []string{"hook", "--runtime", runtime, "--data-dir", dataDir, event}
	var cmd *exec.Cmd
	if viaShell {
		cmd = exec.Command("/bin/sh", "-c", bin+` "$@"`, "sh")
		cmd.Args = append(cmd.Args, args...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Env = append(append(os.Environ(), "PADDOCK_HOOK_DEBUG="), env...)
	cmd.Stdin = strings.NewReader(payload)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := hookRun{took: time.Since(start), stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func summarize(d []time.Duration) string {
	s := slices.Clone(d)
	slices.Sort(s)
	return fmt.Sprintf("p50 %v, p90 %v, max %v over %d runs", s[len(s)/2].Round(10*time.Microsecond),
		s[len(s)*9/10].Round(10*time.Microsecond), s[len(s)-1].Round(10*time.Microsecond), len(s))
}

// writeServeState makes dir look like the data dir of a running serve
// whose hook listener is on port.
func writeServeState(t *testing.T, dir string, port int) {
	t.Helper()
	if _, _, err := hookchannel.LoadOrCreateSecret(dir); err != nil {
		t.Fatal(err)
	}
	if err := app.WriteState(dir, app.State{PID: os.Getpid(), HookPort: port, HookAddr: fmt.Sprintf("127.0.0.1:%d", port)}); err != nil {
		t.Fatal(err)
	}
}

// TestHookFailOpen runs the real binary with paddock down in each way: it
// exits 0, prints nothing at all, and returns within a generous bound (the
// budget is 100 ms; the measured times are logged).
// hungPort is a loopback port that accepts connections and never answers
// (nor closes them) until the test ends: a hung paddock.
func hungPort(tb testing.TB) int {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

func TestHookFailOpen(t *testing.T) {
	closed := func(t *testing.T) string {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		d := t.TempDir()
		writeServeState(t, d, port)
		return d
	}
	silent := func(t *testing.T) string {
		d := t.TempDir()
		writeServeState(t, d, hungPort(t))
		return d
	}
	cases := []struct {
		name    string
		dataDir func(t *testing.T) string
		runs    int
	}{
		{"no serve.json", func(t *testing.T) string { return t.TempDir() }, 20},
		{"serve.json pointing at a closed port", closed, 20},
		{"a server that never answers", silent, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dataDir(t)
			var took []time.Duration
			for i := range c.runs {
				// PreToolUse, with no question in it, is not one paddock
				// holds: it fails open as fast as the status events.
				for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest"} {
					r := runHook(t, dir, "claude", ev, fmt.Sprintf(claudeSessionStart, "s1"), nil, i%2 == 1)
					if r.code != 0 || r.stdout != "" || r.stderr != "" {
						t.Fatalf("%s: exit %d, stdout %q, stderr %q", ev, r.code, r.stdout, r.stderr)
					}
					budget := hookchannel.Timeout
					if ev == "PermissionRequest" {
						// paddock may hold it: the listener gets longer to say so
						budget = hookchannel.DecisionTimeout
					}
					if r.took > budget+time.Second {
						t.Fatalf("%s took %v (budget %v)", ev, r.took, budget)
					}
					took = append(took, r.took)
				}
			}
			t.Logf("paddock hook, %s: %s", c.name, summarize(took))
		})
	}
}

// TestHookDelivers runs the real binary against a listener that answers
// every event with a decision body: the event arrives with the relay's
// facts (the pid is the process that ran the hook, through sh -c too),
// and the command prints the body for PermissionRequest only — never for
// SessionStart or UserPromptSubmit, whose output Claude feeds the model.
const decisionBody = `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}},"additionalContext":"INJECTED"}`

func TestHookDelivers(t *testing.T) {
	dir := t.TempDir()
	secret, _, err := hookchannel.LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []hookstate.Event
	intake := hookchannel.NewHandler(hookchannel.HandlerOptions{Secret: secret, Decoders: registry.Default().Decoders(), Sink: sinkFunc(func(ev hookstate.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	})})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		intake.ServeHTTP(rec, r)
		if rec.Code != http.StatusNoContent {
			w.WriteHeader(rec.Code)
			return
		}
		// a decision for every event: printed for PermissionRequest only
		fmt.Fprint(w, decisionBody)
	}))
	defer srv.Close()
	writeServeState(t, dir, srv.Listener.Addr().(*net.TCPAddr).Port)

	env := []string{"PADDOCK_TERMINAL_ID=term-7", "TMUX_PANE=%4", "TERM_PROGRAM=WezTerm", "CLAUDE_CODE_PARENT_SESSION_ID=lead-1"}
	var took []time.Duration
	runs := []struct{ event, payload string }{
		{"SessionStart", claudeSessionStart}, {"UserPromptSubmit", claudePrompt}, {"PermissionRequest", claudePermission},
	}
	for i := range 10 {
		for _, r := range runs {
			res := runHook(t, dir, "claude", r.event, fmt.Sprintf(r.payload, "sess-1"), env, i%2 == 1)
			want := ""
			if r.event == "PermissionRequest" {
				want = decisionBody
			}
			if res.code != 0 || res.stdout != want || res.stderr != "" {
				t.Fatalf("%s: exit %d, stdout %q, stderr %q", r.event, res.code, res.stdout, res.stderr)
			}
			took = append(took, res.took)
		}
	}
	t.Logf("paddock hook, listener up (in-process intake): %s", summarize(took))

	mu.Lock()
	defer mu.Unlock()
	if len(events) != 30 {
		t.Fatalf("%d events arrived, want 30", len(events))
	}
	for i, ev := range events {
		r := ev.Relay
		if ev.SessionID != "sess-1" || ev.Name != runs[i%3].event {
			t.Fatalf("event %d: %+v", i, ev)
		}
		// the test process ran the hook: it is the agent, through sh -c too
		// (on Linux, which looks past the shell; elsewhere when sh execs)
		viaShell := (i/3)%2 == 1
		if (r.PID != os.Getpid() && (runtime.GOOS == "linux" || !viaShell)) || r.TerminalID != "term-7" || r.TmuxPane != "%4" || r.TermProgram != "WezTerm" ||
			r.ParentSessionID != "lead-1" || r.SentAt.IsZero() || time.Since(r.SentAt) > time.Minute {
			t.Fatalf("event %d (shell %v): relay info %+v (test pid %d)", i, viaShell, r, os.Getpid())
		}
		if r.PPID != os.Getppid() && r.PPID != 0 {
			t.Fatalf("ppid %d, want %d", r.PPID, os.Getppid())
		}
	}
}

type sinkFunc func(hookstate.Event)

func (f sinkFunc) HookEvent(_ context.Context, ev hookstate.Event) { f(ev) }

// TestServeHookEndToEnd: a real `paddock serve` on free ports takes a real
// `paddock hook` (the event shows in its debug log), writes the hook port
// and a 0600 secret, refuses a wrong secret, and once it stops the relay
// is silent again.
func TestServeHookEndToEnd(t *testing.T) {
	srv := servetest.Start(t, t.TempDir(), "--log-level", "debug")
	st, err := app.ReadState(srv.DataDir)
	if err != nil || st.HookPort == 0 || !strings.HasPrefix(st.HookAddr, "127.0.0.1:") {
		t.Fatalf("serve.json: %+v %v", st, err)
	}
	fi, err := os.Stat(filepath.Join(srv.DataDir, hookchannel.SecretFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("hook.secret: %v %v", fi, err)
	}

	var took []time.Duration
	for i := range 20 {
		r := runHook(t, srv.DataDir, "claude", "SessionStart", fmt.Sprintf(claudeSessionStart, fmt.Sprintf("e2e-%d", i)), []string{"PADDOCK_TERMINAL_ID=t-e2e"}, false)
		if r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
		took = append(took, r.took)
	}
	t.Logf("paddock hook, paddock serve up: %s", summarize(took))
	until(t, 5*time.Second, "the event in serve's log", func() (bool, string) {
		log := srv.Stderr()
		return strings.Contains(log, `msg="hook event"`) && strings.Contains(log, "session=e2e-19") &&
			strings.Contains(log, "terminal=t-e2e") && strings.Contains(log, fmt.Sprintf("pid=%d", os.Getpid())), ""
	})

	req, _ := http.NewRequest("POST", "http://"+st.HookAddr+"/hook/claude/SessionStart", strings.NewReader(fmt.Sprintf(claudeSessionStart, "x")))
	req.Header.Set(hookchannel.SecretHeader, strings.Repeat("0", 64))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong secret: %d", resp.StatusCode)
	}
	if secret, _ := os.ReadFile(filepath.Join(srv.DataDir, hookchannel.SecretFile)); strings.Contains(srv.Stderr(), strings.TrimSpace(string(secret))) {
		t.Fatal("the secret is in serve's log")
	}

	_ = srv.Cmd.Process.Signal(os.Interrupt)
	_ = srv.Cmd.Wait()
	if !strings.Contains(srv.Stderr(), "hook listener stopped") || !strings.Contains(srv.Stderr(), "accepted=20") {
		t.Fatalf("no final hook counts in the log:\n%s", srv.Stderr())
	}
	r := runHook(t, srv.DataDir, "claude", "SessionStart", fmt.Sprintf(claudeSessionStart, "after"), nil, false)
	if r.code != 0 || r.stdout != "" || r.stderr != "" || r.took > time.Second {
		t.Fatalf("after serve stopped: %+v", r)
	}
}
