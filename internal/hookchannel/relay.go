package hookchannel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"paddock/internal/hookstate"
)

// Timeout is the relay's whole budget, from the hook command's start to
// the listener's answer: 95 ms, so that with the process's own start and
// exit (about 2 ms here) the agent waits at most 100 ms.
const Timeout = 95 * time.Millisecond

// MaxPayload is the largest payload relayed; the listener takes no more.
const MaxPayload = hookstate.MaxPayloadSize

// maxPreMain caps ProcessStart's estimate of the time before main.
const maxPreMain = 50 * time.Millisecond

// maxOutput bounds a decision read from the listener.
const maxOutput = 64 << 10

// Args is the relay's command line:
//
//	paddock hook [--runtime R] [--data-dir D] [EVENT] [PAYLOAD-JSON]
//
// The payload is read from stdin unless it is given as the last argument
// (Codex notify appends it there).
type Args struct {
	Runtime string // default: ParseArgs's defaultRuntime
	DataDir string // "" means the default data dir
	Event   string // the event the hook was installed for; the payload's own name wins
	Payload []byte // non-nil when given on the command line
	// Async: nobody waits for this run (OpenCode's plugin and Pi's
	// extension spawn it detached for events they do not answer), so it
	// may take AsyncTimeout instead of Timeout: a loaded machine can
	// spend 100 ms starting the process alone, and the event would be lost.
	Async bool
}

// AsyncTimeout is the budget of a run no agent waits for.
const AsyncTimeout = 3 * time.Second

// DecisionTimeout is the budget, up to the listener's headers, of an event
// paddock may hold for the phone (Options.MayDecide, with AcceptDecision): opening
// its item includes a database write, which a loaded machine can take
// past 100 ms — and a relay giving up then would drop a prompt the phone
// was about to show. Paddock down still fails at once (connection
// refused); only a paddock that hangs costs this long.
const DecisionTimeout = 2 * time.Second

// ParseArgs reads the relay's arguments; --runtime defaults to
// defaultRuntime. It never writes anything: an agent runs this, and a
// usage message would land in its transcript.
func ParseArgs(args []string, defaultRuntime string) (Args, error) {
	a := Args{}
	fs := flag.NewFlagSet("paddock hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&a.Runtime, "runtime", defaultRuntime, "")
	fs.StringVar(&a.DataDir, "data-dir", "", "")
	fs.BoolVar(&a.Async, "async", false, "")
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	rest := fs.Args()
	switch {
	case len(rest) == 0:
	case len(rest) == 1 && strings.HasPrefix(strings.TrimSpace(rest[0]), "{"):
		a.Payload = []byte(rest[0])
	case len(rest) == 1:
		a.Event = rest[0]
	default:
		a.Event, a.Payload = rest[0], []byte(rest[len(rest)-1])
	}
	return a, nil
}

// Usage is the relay's help text (`paddock hook -h`), for stderr.
const Usage = `Usage: paddock hook [--runtime R] [--data-dir D] [--async] [EVENT] [PAYLOAD-JSON]

The command agents' hooks run (installed by paddock hooks install). It reads
the hook payload from stdin (or the last argument), posts it to the running
paddock serve and always exits 0; when paddock is down or slow it gives up
within 100 ms (3 s with --async: a run nobody waits for; 2 s for a prompt
paddock may hold for the phone, which it then waits for and prints).
PADDOCK_HOOK_DEBUG=1 reports on stderr what it did.
`

// RelayOptions are one relay run.
type RelayOptions struct {
	Args
	Stdin  io.Reader           // the payload when Args.Payload is nil; nil reads as empty
	Getenv func(string) string // default os.Getenv
	// Start is when the hook command started: the budget runs from it, and
	// it is RelayInfo.SentAt. Default: now.
	Start   time.Time
	Timeout time.Duration // default Timeout
	// Process describes the agent process; default ProbeProcess.
	Process func() Process
	// MayDecide says whether the agent takes the hook's stdout for event
	// as a decision (allow/deny/block), the only case the relay may ever
	// print; nil: never. It must be a list of what may, so that an event
	// it does not know — and SessionStart and UserPromptSubmit above all,
	// whose stdout the agent feeds to the model — never prints.
	MayDecide func(runtime, event string) bool
	// AcceptDecision lets Run return an answer of the listener for the
	// events that can carry a decision (MayDecide). The listener answers
	// a held event within the budget with its headers (HoldHeader), and
	// the relay then waits for the body as long as the header says (at
	// most maxHold). Off: the command never prints.
	AcceptDecision bool
	// MayHold says, from the payload, whether the listener may hold this
	// decision event for the phone (a PreToolUse of a question, not of
	// every tool call): only then does the relay give it DecisionTimeout
	// to say so. nil: every MayDecide event may be held.
	MayHold func(runtime, event string, payload []byte) bool
}

// Process is what the relay knows about the agent that ran the hook.
type Process struct {
	PID  int    // the agent (the hook's parent, past a `sh -c` wrapper)
	PPID int    // the agent's parent, usually the shell it was started from
	TTY  string // the agent's controlling terminal, "" when it has none
}

// Result is what a run did; the command shows it only under
// PADDOCK_HOOK_DEBUG.
type Result struct {
	Delivered bool          // the listener accepted the event (2xx)
	Status    int           // the listener's status, 0 when none came
	Output    []byte        // a decision to print; only with AcceptDecision and Options.MayDecide
	Err       error         // why it was not delivered; never holds the secret or payload
	Elapsed   time.Duration // from Start
}

// Errors a Result may carry (test with errors.Is).
var (
	ErrNotRunning = errors.New("paddock serve is not running (no hook listener in " + StateFile + ")")
	ErrStale      = errors.New(StateFile + " is stale: its serve process is gone")
	ErrNoPayload  = errors.New("no payload")
	ErrTooLarge   = errors.New("payload too large")
)

// Relay relays one event. It returns within the budget whatever happens.
func Relay(ctx context.Context, o RelayOptions) (res Result) {
	if o.Start.IsZero() {
		o.Start = time.Now()
	}
	// An event paddock may hold gets longer to hear so, once its payload
	// says it is one; every other event fails open within Timeout.
	extendable := false
	if o.Timeout <= 0 {
		o.Timeout = Timeout
		if o.Async {
			o.Timeout = AsyncTimeout
		}
		extendable = !o.Async
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Process == nil {
		o.Process = ProbeProcess
	}
	defer func() { res.Elapsed = time.Since(o.Start) }()
	// The budget bounds everything up to the listener's headers. A held
	// decision (HoldHeader) then extends it for the body alone, so the
	// request's context is cancelled by a timer rather than a deadline.
	ctx, cancelCause := context.WithCancelCause(ctx)
	defer cancelCause(nil)
	expire := func() { cancelCause(context.DeadlineExceeded) }
	budget := time.AfterFunc(time.Until(o.Start.Add(o.Timeout)), expire)
	defer budget.Stop()

	// The payload first, even when paddock is down: an agent writing it to
	// a hook that exits without reading can see a broken pipe and report
	// the hook as failed.
	payload := o.Payload
	if payload == nil {
		var err error
		if payload, err = readPayload(ctx, o.Stdin); err != nil {
			return Result{Err: err}
		}
	}
	if len(bytes.TrimSpace(payload)) == 0 {
		return Result{Err: ErrNoPayload}
	}
	if len(payload) > MaxPayload {
		return Result{Err: ErrTooLarge}
	}
	decides := o.AcceptDecision && o.mayDecide() && (o.MayHold == nil || o.MayHold(o.Runtime, o.Event, payload))
	if decides && extendable && budget.Stop() {
		budget = time.AfterFunc(time.Until(o.Start.Add(DecisionTimeout)), expire)
	}
	addr, secret, err := locate(o.DataDir)
	if err != nil {
		return Result{Err: err}
	}
	body := withRelay(payload, relayInfo(o))

	u := "http://" + addr + PathPrefix + url.PathEscape(o.Runtime)
	if o.Event != "" {
		u += "/" + url.PathEscape(o.Event)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return Result{Err: fmt.Errorf("request: %w", err)}
	}
	req.Header.Set(SecretHeader, secret)
	req.Header.Set("Content-Type", "application/json")
	// One request, no proxy (the environment's HTTP_PROXY must never see
	// the secret), no redirects, no connection kept.
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true, DialContext: (&net.Dialer{}).DialContext,
		MaxResponseHeaderBytes: 16 << 10}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		if cause := context.Cause(ctx); cause != nil {
			err = cause // the budget ran out, or the agent gave up
		}
		return Result{Err: fmt.Errorf("post to %s: %w", addr, scrub(err))}
	}
	defer resp.Body.Close()
	res = Result{Status: resp.StatusCode, Delivered: resp.StatusCode/100 == 2}
	if !res.Delivered {
		res.Err = fmt.Errorf("the listener answered %s", resp.Status)
		return res
	}
	if decides && resp.StatusCode == http.StatusOK {
		if hold, ok := holdFor(resp.Header.Get(HoldHeader)); ok && budget.Stop() {
			// The listener holds the event for the phone: wait for its
			// answer, no longer than it said. The agent may give up first
			// (its own timeout) and kill this process: that is fine.
			budget = time.AfterFunc(hold, expire)
		}
		out, err := io.ReadAll(io.LimitReader(resp.Body, maxOutput+1))
		if err == nil && len(out) <= maxOutput {
			res.Output = bytes.TrimSpace(out)
		}
	}
	return res
}

// maxHold bounds how long a relay waits for a held decision, whatever the
// listener says: no agent's hook waits longer (Claude's 600 s timeout).
const maxHold = 10 * time.Minute

// holdFor reads HoldHeader: the seconds the listener may hold the event.
func holdFor(v string) (time.Duration, bool) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, false
	}
	return min(time.Duration(n)*time.Second, maxHold), true
}

func (o RelayOptions) mayDecide() bool { return o.MayDecide != nil && o.MayDecide(o.Runtime, o.Event) }

// readPayload reads stdin to its end, within the budget. An oversized
// payload is drained (so the agent's write completes) and dropped.
func readPayload(ctx context.Context, r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, ErrNoPayload
	}
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
		if err == nil && len(b) > MaxPayload {
			_, _ = io.Copy(io.Discard, r)
			b, err = nil, ErrTooLarge
		}
		ch <- read{b, err}
	}()
	select {
	case rd := <-ch:
		if rd.err != nil && !errors.Is(rd.err, ErrTooLarge) {
			return nil, fmt.Errorf("reading the payload: %w", rd.err)
		}
		return rd.b, rd.err
	case <-ctx.Done():
		return nil, fmt.Errorf("reading the payload: %w", context.Cause(ctx))
	}
}

// locate finds the listener and the secret from the data dir.
func locate(dataDir string) (addr, secret string, err error) {
	if dataDir == "" {
		return "", "", errors.New("no data dir")
	}
	b, err := os.ReadFile(filepath.Join(dataDir, StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", "", ErrNotRunning
	}
	if err != nil {
		return "", "", err
	}
	var st struct {
		PID      int    `json:"pid"`
		HookPort int    `json:"hook_port"`
		HookAddr string `json:"hook_addr"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return "", "", fmt.Errorf("%s: %w", StateFile, err)
	}
	if st.HookPort <= 0 || st.HookPort > 65535 {
		return "", "", ErrNotRunning
	}
	// serve removes serve.json when it stops; one left by a crash must not
	// send the secret to whatever took the port since.
	if st.PID > 0 && !processAlive(st.PID) {
		return "", "", ErrStale
	}
	addr = fmt.Sprintf("127.0.0.1:%d", st.HookPort)
	if st.HookAddr != "" {
		// never anywhere but loopback, whatever the file says
		if addr, err = LoopbackAddr(st.HookAddr); err != nil {
			return "", "", err
		}
	}
	secret, err = ReadSecret(dataDir)
	if err != nil {
		return "", "", err
	}
	return addr, secret, nil
}

// relayInfo is what the relay adds to the payload.
func relayInfo(o RelayOptions) hookstate.RelayInfo {
	p := o.Process()
	env := func(k string) string { return clip(o.Getenv(k)) }
	return hookstate.RelayInfo{
		TerminalID:      env("PADDOCK_TERMINAL_ID"),
		PID:             p.PID,
		PPID:            p.PPID,
		TTY:             p.TTY,
		TermProgram:     clip(termProgram(o.Getenv)),
		TmuxPane:        env("TMUX_PANE"),
		ParentSessionID: env("CLAUDE_CODE_PARENT_SESSION_ID"),
		SentAt:          o.Start.UTC(),
	}
}

// termProgram names the terminal emulator: TERM_PROGRAM where it is set
// (VS Code, iTerm, Apple Terminal, WezTerm, Ghostty, Warp, Hyper, tmux),
// else the variables the others export.
func termProgram(getenv func(string) string) string {
	if p := getenv("TERM_PROGRAM"); p != "" {
		return p
	}
	for _, c := range []struct{ env, name string }{
		{"TERMINAL_EMULATOR", ""}, // JetBrains: "JetBrains-JediTerm"
		{"KITTY_WINDOW_ID", "kitty"},
		{"ALACRITTY_WINDOW_ID", "alacritty"},
		{"ALACRITTY_SOCKET", "alacritty"},
		{"WEZTERM_PANE", "WezTerm"},
		{"GHOSTTY_RESOURCES_DIR", "ghostty"},
		{"VSCODE_PID", "vscode"},
		{"WT_SESSION", "Windows Terminal"},
	} {
		if v := getenv(c.env); v != "" {
			if c.name == "" {
				return v
			}
			return c.name
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 256 {
		return strings.ToValidUTF8(s[:256], "")
	}
	return s
}

// withRelay adds `"paddock": info` as the last member of the payload's
// top-level object, without decoding the payload: the agent's own fields
// stay as they are, and being last, ours wins over any "paddock" key the
// agent might send. A payload that is not an object is sent as it is, and
// the listener says what is wrong with it.
func withRelay(payload []byte, info hookstate.RelayInfo) []byte {
	p := bytes.TrimSpace(payload)
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return payload
	}
	extra, err := json.Marshal(info)
	if err != nil {
		return payload
	}
	head := bytes.TrimRight(p[:len(p)-1], " \t\r\n")
	out := make([]byte, 0, len(head)+len(extra)+len(hookstate.RelayField)+8)
	out = append(out, head...)
	if len(head) > 1 { // not an empty object
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, hookstate.RelayField...)
	out = append(out, `":`...)
	out = append(out, extra...)
	return append(out, '}')
}

// scrub keeps a transport error to its kind: a url.Error would repeat the
// URL (harmless today) and wraps the cause we want.
func scrub(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
