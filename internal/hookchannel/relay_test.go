package hookchannel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/hookstate"
)

const payload = `{"session_id":"14d07547","transcript_path":"/tmp/x.jsonl","cwd":"/tmp/proj","hook_event_name":"SessionStart","source":"startup"}`

// bound is the generous limit the fail-open tests assert; the budget is
// 100 ms and the measured figures are logged, not asserted.
const bound = time.Second

func TestParseArgs(t *testing.T) {
	cases := []struct {
		args []string
		want Args
	}{
		{nil, Args{Runtime: "claude"}},
		{[]string{"SessionStart"}, Args{Runtime: "claude", Event: "SessionStart"}},
		{[]string{"--runtime", "codex", "--data-dir", "/d", "Stop"}, Args{Runtime: "codex", DataDir: "/d", Event: "Stop"}},
		{[]string{"--runtime=codex", "--data-dir", "/d", "notify", `{"type":"agent-turn-complete"}`},
			Args{Runtime: "codex", DataDir: "/d", Event: "notify", Payload: []byte(`{"type":"agent-turn-complete"}`)}},
		{[]string{"--runtime", "codex", ` {"type":"x"}`}, Args{Runtime: "codex", Payload: []byte(` {"type":"x"}`)}},
		{[]string{"notify", "extra", `{"a":1}`}, Args{Runtime: "claude", Event: "notify", Payload: []byte(`{"a":1}`)}},
	}
	for _, c := range cases {
		got, err := ParseArgs(c.args, "claude")
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseArgs(%q) = %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
	if _, err := ParseArgs([]string{"--bogus"}, "claude"); err == nil {
		t.Error("unknown flag accepted")
	}
}

func TestWithRelay(t *testing.T) {
	info := hookstate.RelayInfo{PID: 7, TTY: "/dev/pts/1", SentAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	for _, in := range []string{`{}`, ` { } `, "{\"a\":1}\n", `{"a":{"b":"}"}}`, `{"paddock":{"pid":999},"session_id":"s"}`} {
		out := withRelay([]byte(in), info)
		var v map[string]json.RawMessage
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%q → %q: %v", in, out, err)
		}
		var got hookstate.RelayInfo
		if err := json.Unmarshal(v[hookstate.RelayField], &got); err != nil || !reflect.DeepEqual(got, info) {
			t.Fatalf("%q → %q: relay %+v %v", in, out, got, err)
		}
		if strings.Contains(in, `"a"`) && string(v["a"]) == "" {
			t.Fatalf("%q lost its fields: %q", in, out)
		}
	}
	for _, in := range []string{`[1]`, `"x"`, ``, `{`} {
		if out := withRelay([]byte(in), info); string(out) != in {
			t.Errorf("non-object %q changed to %q", in, out)
		}
	}
}

// fakeServe sets up a data dir the way `paddock serve` leaves it.
func fakeServe(t *testing.T, port int, pid int) string {
	t.Helper()
	dir := t.TempDir()
	if _, _, err := LoadOrCreateSecret(dir); err != nil {
		t.Fatal(err)
	}
	st := fmt.Sprintf(`{"pid":%d,"https_port":1,"urls":[],"hook_port":%d,"hook_addr":"127.0.0.1:%d"}`, pid, port, port)
	if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(st), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// listener runs h on a loopback port.
func listener(t *testing.T, h http.Handler) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func closedPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// silentPort accepts connections and never answers.
func silentPort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
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
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().(*net.TCPAddr).Port
}

// deadPID is beyond any pid_max: never alive.
const deadPID = 1 << 30

// TestFailOpen: with paddock down in every way, Run gives up at once or
// within the budget, delivers nothing and returns no output.
func TestFailOpen(t *testing.T) {
	cases := []struct {
		name    string
		dataDir func(t *testing.T) string
		want    error // errors.Is, when set
	}{
		{"no data dir", func(t *testing.T) string { return filepath.Join(t.TempDir(), "none") }, ErrNotRunning},
		{"no serve.json", func(t *testing.T) string { return t.TempDir() }, ErrNotRunning},
		{"serve.json without hook port", func(t *testing.T) string {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, StateFile), []byte(`{"pid":1,"https_port":7443}`), 0o600)
			return d
		}, ErrNotRunning},
		{"serve.json not JSON", func(t *testing.T) string {
			d := t.TempDir()
			os.WriteFile(filepath.Join(d, StateFile), []byte(`{`), 0o600)
			return d
		}, nil},
		{"stale serve.json", func(t *testing.T) string { return fakeServe(t, silentPort(t), deadPID) }, ErrStale},
		{"no secret", func(t *testing.T) string {
			d := fakeServe(t, closedPort(t), os.Getpid())
			os.Remove(filepath.Join(d, SecretFile))
			return d
		}, os.ErrNotExist},
		{"hook_addr not loopback", func(t *testing.T) string {
			d := fakeServe(t, 7081, os.Getpid())
			os.WriteFile(filepath.Join(d, StateFile), []byte(`{"pid":0,"hook_port":7081,"hook_addr":"192.0.2.1:7081"}`), 0o600)
			return d
		}, nil},
		{"connection refused", func(t *testing.T) string { return fakeServe(t, closedPort(t), os.Getpid()) }, nil},
		{"server never answers", func(t *testing.T) string { return fakeServe(t, silentPort(t), os.Getpid()) }, context.DeadlineExceeded},
		{"server answers late", func(t *testing.T) string {
			return fakeServe(t, listener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-time.After(2 * time.Second):
				case <-r.Context().Done():
				}
			})), os.Getpid())
		}, context.DeadlineExceeded},
		{"server rejects", func(t *testing.T) string {
			return fakeServe(t, listener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "no", http.StatusUnauthorized)
			})), os.Getpid())
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.dataDir(t)
			start := time.Now()
			res := Relay(context.Background(), RelayOptions{
				Args:  Args{Runtime: "claude", Event: "SessionStart", DataDir: dir},
				Stdin: strings.NewReader(payload), Start: start, MayDecide: mayDecide, AcceptDecision: true,
			})
			took := time.Since(start)
			t.Logf("%s: gave up after %v: %v", c.name, took, res.Err)
			if res.Delivered || res.Err == nil || res.Output != nil {
				t.Fatalf("result %+v", res)
			}
			if c.want != nil && !errors.Is(res.Err, c.want) {
				t.Fatalf("error %v, want %v", res.Err, c.want)
			}
			if took > bound {
				t.Fatalf("took %v (budget %v)", took, Timeout)
			}
			if strings.Contains(res.Err.Error(), secretOf(dir)) && secretOf(dir) != "" {
				t.Fatal("the error holds the secret")
			}
		})
	}
}

func secretOf(dir string) string {
	s, _ := ReadSecret(dir)
	return s
}

// TestStdinNeverCloses: an agent that never closes the hook's stdin does
// not hold the relay past its budget.
func TestStdinNeverCloses(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	start := time.Now()
	res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: "claude", DataDir: t.TempDir()}, Stdin: pr, Start: start})
	if took := time.Since(start); took > bound || !errors.Is(res.Err, context.DeadlineExceeded) {
		t.Fatalf("took %v: %v", took, res.Err)
	}
}

func TestOversizeAndEmptyPayloads(t *testing.T) {
	dir := fakeServe(t, closedPort(t), os.Getpid())
	huge := strings.NewReader(`{"x":"` + strings.Repeat("a", MaxPayload) + `"}`)
	res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: "claude", DataDir: dir}, Stdin: huge, Timeout: 5 * time.Second})
	if !errors.Is(res.Err, ErrTooLarge) || huge.Len() != 0 {
		t.Fatalf("oversize: %v, %d bytes left unread", res.Err, huge.Len())
	}
	for _, in := range []io.Reader{nil, strings.NewReader(""), strings.NewReader(" \n")} {
		if res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: "claude", DataDir: dir}, Stdin: in}); !errors.Is(res.Err, ErrNoPayload) {
			t.Fatalf("empty payload: %v", res.Err)
		}
	}
}

// TestDelivers: with the listener up, the event arrives with the relay's
// facts, and under the path of its runtime and event.
func TestDelivers(t *testing.T) {
	var mu sync.Mutex
	var got []hookstate.Event
	var paths []string
	sink := sinkFunc(func(ev hookstate.Event) { mu.Lock(); got = append(got, ev); mu.Unlock() })
	dir := t.TempDir()
	secret, _, err := LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	intake := NewHandler(HandlerOptions{Secret: secret, Decoders: registry.Default().Decoders(), Sink: sink})
	port := listener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		paths = append(paths, r.URL.EscapedPath())
		mu.Unlock()
		intake.ServeHTTP(w, r)
	}))
	os.WriteFile(filepath.Join(dir, StateFile), fmt.Appendf(nil, `{"pid":%d,"hook_port":%d}`, os.Getpid(), port), 0o600)

	env := map[string]string{"PADDOCK_TERMINAL_ID": "term-42", "TERM_PROGRAM": "iTerm.app", "TMUX_PANE": "%7", "CLAUDE_CODE_PARENT_SESSION_ID": "parent-1"}
	var took []time.Duration
	for i := range 20 {
		res := Relay(context.Background(), RelayOptions{
			Args:    Args{Runtime: "claude", Event: "SessionStart", DataDir: dir},
			Stdin:   strings.NewReader(payload),
			Getenv:  func(k string) string { return env[k] },
			Start:   time.Now(),
			Process: func() Process { return Process{PID: 4242, PPID: 4241, TTY: "/dev/pts/9"} },
		})
		if !res.Delivered || res.Status != 204 || res.Err != nil || res.Output != nil {
			t.Fatalf("run %d: %+v", i, res)
		}
		took = append(took, res.Elapsed)
	}
	slices.Sort(took)
	t.Logf("relay in-process with the listener up: p50 %v, max %v over %d runs", took[len(took)/2], took[len(took)-1], len(took))

	// Codex notify: payload from argv, no event in the payload
	res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: "codex", Event: "notify", DataDir: dir,
		Payload: []byte(`{"type":"agent-turn-complete","thread-id":"t-1","turn-id":"u"}`)}})
	if !res.Delivered {
		t.Fatalf("notify: %+v", res)
	}

	mu.Lock()
	defer mu.Unlock()
	ev := got[0]
	want := hookstate.RelayInfo{TerminalID: "term-42", PID: 4242, PPID: 4241, TTY: "/dev/pts/9", TermProgram: "iTerm.app", TmuxPane: "%7", ParentSessionID: "parent-1"}
	r := ev.Relay
	r.SentAt = time.Time{}
	if !reflect.DeepEqual(r, want) || ev.Relay.SentAt.IsZero() || ev.Time.IsZero() {
		t.Fatalf("relay info %+v, want %+v", ev.Relay, want)
	}
	if ev.SessionID != "14d07547" || ev.Kind != hookstate.KindSessionStart {
		t.Fatalf("event %+v", ev)
	}
	if paths[0] != "/hook/claude/SessionStart" || paths[len(paths)-1] != "/hook/codex/notify" {
		t.Fatalf("paths %v", paths)
	}
	if last := got[len(got)-1]; last.Runtime != "codex" || last.SessionID != "t-1" || last.Kind != hookstate.KindTurnComplete || last.Relay.PID == 0 {
		t.Fatalf("notify event %+v", last)
	}
}

type sinkFunc func(hookstate.Event)

func (f sinkFunc) HookEvent(_ context.Context, ev hookstate.Event) { f(ev) }

// TestNoStdoutRule: even a listener that answers every event with a body
// gets nothing printed for SessionStart or UserPromptSubmit (the agent
// would feed it to the model); and without AcceptDecision, which the
// command does not set yet, nothing for any event.
func TestNoStdoutRule(t *testing.T) {
	decision := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
	port := listener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, decision)
	}))
	dir := fakeServe(t, port, os.Getpid())
	for _, rt := range registry.Default().Decoders().Names() {
		for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PermissionRequest", "PreToolUse", "Stop", "", "beforeShellExecution", "tool_call", "session_start", "input"} {
			for _, accept := range []bool{false, true} {
				res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: rt, Event: ev, DataDir: dir}, Stdin: strings.NewReader(payload), MayDecide: mayDecide, AcceptDecision: accept})
				if !res.Delivered {
					t.Fatalf("%s %s: %+v", rt, ev, res)
				}
				mayPrint := accept && mayDecide(rt, ev)
				if (res.Output != nil) != mayPrint {
					t.Fatalf("%s %s accept=%v: output %q", rt, ev, accept, res.Output)
				}
				if mayPrint && string(res.Output) != decision {
					t.Fatalf("decision %q", res.Output)
				}
			}
		}
	}
	for _, rt := range registry.Default().Decoders().Names() {
		for _, ev := range []string{"SessionStart", "UserPromptSubmit", "beforeSubmitPrompt", "input", "session_start", "Notification", "Stop", "notify", ""} {
			if mayDecide(rt, ev) {
				t.Errorf("MayDecide(%s, %s): the agent feeds this event's stdout to the model or ignores it", rt, ev)
			}
		}
	}
}

func TestProbeProcess(t *testing.T) {
	p := ProbeProcess()
	if p.PID <= 1 {
		t.Fatalf("pid %d (parent %d)", p.PID, os.Getppid())
	}
	t.Logf("probe: %+v", p)
}

func TestProcessStart(t *testing.T) {
	now := time.Now()
	if s := ProcessStart(now); s.After(now) || now.Sub(s) > maxPreMain {
		t.Fatalf("ProcessStart = now - %v", now.Sub(s))
	}
}

func TestTermProgramFromOtherTerminals(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TERM_PROGRAM": "vscode", "KITTY_WINDOW_ID": "1"}, "vscode"},
		{map[string]string{"TERMINAL_EMULATOR": "JetBrains-JediTerm"}, "JetBrains-JediTerm"},
		{map[string]string{"KITTY_WINDOW_ID": "3"}, "kitty"},
		{map[string]string{"ALACRITTY_SOCKET": "/run/user/1000/Alacritty.sock"}, "alacritty"},
		{map[string]string{"WEZTERM_PANE": "0"}, "WezTerm"},
		{map[string]string{"GHOSTTY_RESOURCES_DIR": "/usr/share/ghostty"}, "ghostty"},
		{map[string]string{}, ""},
	} {
		if got := termProgram(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("termProgram(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestAsyncRunsGetALongerBudget(t *testing.T) {
	a, err := ParseArgs([]string{"--runtime", "opencode", "--async", "session.status"}, "claude")
	if err != nil || !a.Async || a.Event != "session.status" {
		t.Fatalf("ParseArgs: %+v %v", a, err)
	}
	// A listener slower than Timeout but well within AsyncTimeout (a
	// loaded machine): the waited-for run gives up, the async one delivers.
	port := listener(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(3 * Timeout)
		w.WriteHeader(http.StatusNoContent)
	}))
	dir := fakeServe(t, port, os.Getpid())
	run := func(async bool) Result {
		return Relay(context.Background(), RelayOptions{
			Args:    Args{Runtime: "opencode", Event: "session.status", DataDir: dir, Async: async},
			Stdin:   strings.NewReader(`{"type":"session.status","properties":{"sessionID":"s"}}`),
			Process: func() Process { return Process{PID: 1} },
		})
	}
	if res := run(false); res.Delivered || res.Elapsed > 2*Timeout {
		t.Fatalf("waited-for run: %+v, want given up within the budget", res)
	}
	if res := run(true); !res.Delivered {
		t.Fatalf("async run: %+v, want delivered", res)
	}
}

// holdDecider holds Claude's PermissionRequest: it answers with body after
// delay, or nothing; it records whether the hook hung up on it.
type holdDecider struct {
	delay  time.Duration
	body   []byte
	hungUp chan struct{}
}

func (d *holdDecider) Hold(ctx context.Context, ev hookstate.Event, _ []byte) (time.Time, func(context.Context) []byte, bool) {
	if ev.Name != "PermissionRequest" {
		return time.Time{}, nil, false
	}
	return time.Now().Add(5 * time.Second), func(ctx context.Context) []byte {
		select {
		case <-time.After(d.delay):
			return d.body
		case <-ctx.Done():
			close(d.hungUp)
			return nil
		}
	}, true
}

// TestHeldDecision: a decision the listener holds past the relay's 100 ms
// budget still reaches the relay (and only for events that take one); no
// decision is no output; a relay that gives up hangs up on the hold.
func TestHeldDecision(t *testing.T) {
	decision := []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)
	for _, tc := range []struct {
		name    string
		decider *holdDecider
		ctxFor  time.Duration // the agent kills the relay after this; 0: never
		want    []byte
	}{
		{"answered after the budget", &holdDecider{delay: 400 * time.Millisecond, body: decision}, 0, decision},
		{"no decision", &holdDecider{delay: 200 * time.Millisecond}, 0, nil},
		{"the agent gives up first", &holdDecider{delay: time.Minute, body: decision}, 300 * time.Millisecond, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.decider.hungUp = make(chan struct{})
			dir := t.TempDir()
			secret, _, err := LoadOrCreateSecret(dir)
			if err != nil {
				t.Fatal(err)
			}
			intake := NewHandler(HandlerOptions{Secret: secret, Decoders: registry.Default().Decoders(), Sink: sinkFunc(func(hookstate.Event) {}), Decider: tc.decider})
			port := listener(t, intake)
			os.WriteFile(filepath.Join(dir, StateFile), fmt.Appendf(nil, `{"pid":%d,"hook_port":%d}`, os.Getpid(), port), 0o600)
			ctx := context.Background()
			if tc.ctxFor > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.ctxFor)
				defer cancel()
			}
			res := Relay(ctx, RelayOptions{Args: Args{Runtime: "claude", Event: "PermissionRequest", DataDir: dir,
				Payload: []byte(`{"session_id":"s1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`)},
				MayDecide: mayDecide, AcceptDecision: true})
			if !res.Delivered || string(res.Output) != string(tc.want) {
				t.Fatalf("result %+v, output %q; want %q", res, res.Output, tc.want)
			}
			if tc.ctxFor > 0 {
				select {
				case <-tc.decider.hungUp:
				case <-time.After(5 * time.Second):
					t.Fatal("the hold never learned that the hook hung up")
				}
			}
			// Events that take no decision are not held and print nothing.
			res = Relay(context.Background(), RelayOptions{Args: Args{Runtime: "claude", Event: "SessionStart", DataDir: dir,
				Payload: []byte(`{"session_id":"s1","hook_event_name":"SessionStart"}`)}, MayDecide: mayDecide, AcceptDecision: true})
			if res.Status != http.StatusNoContent || res.Output != nil {
				t.Fatalf("SessionStart: %+v", res)
			}
		})
	}
}

// slowDecider holds after a slow start (a database write on a loaded
// machine): the relay of a decision event waits for its headers past the
// 100 ms budget of other events.
type slowDecider struct{ holdDecider }

func (d *slowDecider) Hold(ctx context.Context, ev hookstate.Event, p []byte) (time.Time, func(context.Context) []byte, bool) {
	time.Sleep(300 * time.Millisecond)
	return d.holdDecider.Hold(ctx, ev, p)
}

func TestDecisionEventsWaitLongerForTheHold(t *testing.T) {
	decision := []byte(`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`)
	d := &slowDecider{holdDecider{delay: 50 * time.Millisecond, body: decision, hungUp: make(chan struct{})}}
	dir := t.TempDir()
	secret, _, err := LoadOrCreateSecret(dir)
	if err != nil {
		t.Fatal(err)
	}
	port := listener(t, NewHandler(HandlerOptions{Secret: secret, Decoders: registry.Default().Decoders(), Sink: sinkFunc(func(hookstate.Event) {}), Decider: d}))
	os.WriteFile(filepath.Join(dir, StateFile), fmt.Appendf(nil, `{"pid":%d,"hook_port":%d}`, os.Getpid(), port), 0o600)
	res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: "claude", Event: "PermissionRequest", DataDir: dir,
		Payload: []byte(`{"session_id":"s1","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls"}}`)},
		MayDecide: mayDecide, AcceptDecision: true})
	if !res.Delivered || string(res.Output) != string(decision) {
		t.Fatalf("result %+v, output %q", res, res.Output)
	}
}

// mayDecide is the shipped agents' list of decision events, as the hook
// command passes it.
var mayDecide = registry.Default().MayDecide

// TestOnlyHoldableEventsWaitLonger: against a listener that never
// answers, a Claude PreToolUse of an ordinary tool call — the payload
// says paddock will not hold it — fails open within Timeout, as any
// status event; a PreToolUse of a question paddock may answer from the
// phone, and a PermissionRequest, get DecisionTimeout to hear so.
func TestOnlyHoldableEventsWaitLonger(t *testing.T) {
	dir := fakeServe(t, silentPort(t), os.Getpid())
	mayHold := registry.Default().MayHold
	for _, tc := range []struct {
		name, event, payload string
		long                 bool
	}{
		{"a Bash call", "PreToolUse", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"permission_mode":"default"}`, false},
		{"a question asked through PermissionRequest", "PreToolUse", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","permission_mode":"default"}`, false},
		{"a question in auto mode", "PreToolUse", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","permission_mode":"auto"}`, true},
		{"a permission prompt", "PermissionRequest", `{"session_id":"s1","hook_event_name":"PermissionRequest","tool_name":"Bash"}`, true},
		{"not JSON", "PreToolUse", `{"tool_name":`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res := Relay(context.Background(), RelayOptions{Args: Args{Runtime: "claude", Event: tc.event, DataDir: dir},
				Stdin: strings.NewReader(tc.payload), Start: start, MayDecide: mayDecide, MayHold: mayHold, AcceptDecision: true})
			took := time.Since(start)
			if res.Delivered || !errors.Is(res.Err, context.DeadlineExceeded) {
				t.Fatalf("result %+v", res)
			}
			if long := took >= DecisionTimeout; long != tc.long {
				t.Errorf("gave up after %v; want the decision budget: %v", took, tc.long)
			}
			if !tc.long && took > bound {
				t.Errorf("took %v, over the fail-open bound %v", took, bound)
			}
		})
	}
}
