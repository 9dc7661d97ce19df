// Package hosted starts and drives agents in paddock's own tmux server
// (seed 001's SessionManager): a user starts work from the phone, types
// into it, interrupts or kills it. Each hosted terminal runs one agent CLI
// with PADDOCK_TERMINAL_ID (and PADDOCK_SESSION_ID where the CLI takes a
// chosen id) in its environment, so the agent's hooks land on the card
// paddock opened for it (internal/live's matching).
//
// Text reaches an agent only through tmux's literal input and bracketed
// paste (never a shell), only into the pane paddock created for that
// session, and a message counts as delivered only when the agent's own
// hook (or, for an agent without hooks, its screen) shows it arrived.
package hosted

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"paddock/internal/hookstate"
	"paddock/internal/launch"
	"paddock/internal/live"
	"paddock/internal/procscan"
	"paddock/internal/screendialog"
	"paddock/internal/session"
	"paddock/internal/tmux"
)

// Terminals is what hosting needs from paddock's tmux server.
type Terminals interface {
	NewWindow(ctx context.Context, w tmux.Window) (tmux.Pane, error)
	SendText(ctx context.Context, p tmux.Pane, text string) error
	Paste(ctx context.Context, p tmux.Pane, text string) error
	SendKeys(ctx context.Context, p tmux.Pane, keys ...string) error
	Capture(ctx context.Context, p tmux.Pane, opts tmux.CaptureOptions) (string, error)
	Alive(ctx context.Context, p tmux.Pane) (bool, error)
	Status(ctx context.Context, p tmux.Pane) (tmux.Info, error)
	Kill(ctx context.Context, p tmux.Pane) error
}

// Live is what hosting needs from the live state.
type Live interface {
	Host(ctx context.Context, t live.Terminal) (session.Key, error)
	Unhost(ctx context.Context, id string) error
	Adopt(ctx context.Context, t live.Terminal, key session.Key) (session.Key, error)
	Sleep(ctx context.Context, terminalID string, freed uint64) (bool, error)
	Restarting(ctx context.Context, terminalID string) (session.Key, bool, error)
	ByTerminal(id string) (live.Card, bool)
}

// Errors the web layer maps to statuses.
var (
	// ErrInvalid: a request paddock will not act on (unknown runtime,
	// missing workdir, bad text); the message says what to fix.
	ErrInvalid = errors.New("hosted: invalid request")
	// ErrNotInstalled: the agent's CLI is not on PATH.
	ErrNotInstalled = errors.New("hosted: agent not installed")
	// ErrNotHosted: the session does not run in a terminal paddock started.
	ErrNotHosted = errors.New("hosted: session not hosted by paddock")
	// ErrGone: its terminal is gone (the agent exited or was killed).
	ErrGone = errors.New("hosted: terminal gone")
)

// killGrace is how long an agent gets to exit after its window closes.
const killGrace = 3 * time.Second

// MaxText is the most text sent in one message: it must fit, JSON-encoded,
// in the dashboard's 64 KiB request limit. A larger text belongs in a file
// the agent reads.
const MaxText = 48 << 10

// Options configure a Manager.
type Options struct {
	Terminals Terminals
	Live      Live
	Logger    *slog.Logger
	// Recipes is how each runtime paddock may host starts and resumes, by
	// runtime name (agent.Registry.Recipes); a runtime without one is
	// refused.
	Recipes map[string]launch.Recipe
	// Screens read the dialogs hosted agents draw on their screens, by
	// runtime name (agent.Registry.Screens), for the screen fallback
	// (WatchScreens); a runtime without one shows none.
	Screens screendialog.Readers
	// LookPath finds an agent's executable; default exec.LookPath.
	LookPath func(string) (string, error)
	// Ready bounds the wait for a new agent's input to be ready before the
	// first prompt (default 60 s); Deliver bounds one delivery attempt
	// (default 10 s; retries wait 1.5× longer each, seed 001).
	Ready, Deliver time.Duration
	// Attempts is how many times a message is sent before giving up
	// (default 3).
	Attempts int
	// Persist keeps the terminals across restarts (Reattach); nil: they
	// are not re-attached.
	Persist Persister
}

// Manager hosts agent sessions. It is safe for concurrent use.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu    sync.Mutex
	terms map[string]*terminal // by terminal id

	// attached is closed once Reattach has put back the terminals of the
	// last run (at once without persistence): until then a session may
	// look unhosted only because it has not been re-attached yet.
	attached     chan struct{}
	attachedOnce sync.Once

	probes   probes
	tmux     tmuxWatch
	fallback fallback
}

// terminal is one hosted agent.
type terminal struct {
	id      string
	runtime string
	cwd     string
	pane    tmux.Pane
	started time.Time
	argv    []string
	// sending serialises deliveries into this pane: two messages typed at
	// once would interleave.
	sending sync.Mutex
	// claimed: a request reusing this idle session (Request.Reuse) holds
	// it; guarded by Manager.mu.
	claimed bool
	// closing: paddock is closing its window (kill, sleep, restart), so its
	// disappearance is no crash; guarded by Manager.mu.
	closing bool

	// statusMu guards the last pane status Health read (see statusTTL).
	statusMu  sync.Mutex
	status    tmux.Info
	statusErr error
	statusAt  time.Time
}

// statusTTL is how long one pane status answers Health. A working
// session's page is re-rendered on every push, several a second while the
// agent streams, for every open view; each would otherwise ask tmux (a
// process round trip of a few ms) for what a second cannot change much.
const statusTTL = time.Second

// paneStatus is Terminals.Status of t's pane, at most statusTTL old. The
// lock is not held while tmux answers: a caller with a short deadline (a
// board push) must not wait behind one without (an API request) on a hung
// tmux; two callers at once both ask, which is harmless.
func (m *Manager) paneStatus(ctx context.Context, t *terminal) (tmux.Info, error) {
	t.statusMu.Lock()
	if !t.statusAt.IsZero() && time.Since(t.statusAt) < statusTTL {
		in, err := t.status, t.statusErr
		t.statusMu.Unlock()
		return in, err
	}
	t.statusMu.Unlock()
	in, err := m.opts.Terminals.Status(ctx, t.pane)
	if ctx.Err() != nil {
		return in, err // cut short: not an answer worth keeping
	}
	t.statusMu.Lock()
	t.status, t.statusErr, t.statusAt = in, err, time.Now()
	t.statusMu.Unlock()
	return in, err
}

// New returns a Manager.
func New(o Options) *Manager {
	if o.Terminals == nil || o.Live == nil {
		panic("hosted: Terminals and Live are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	// Copies: the caller's maps are not shared with the Manager's goroutines.
	o.Recipes = maps.Clone(o.Recipes)
	o.Screens = maps.Clone(o.Screens)
	if o.Ready <= 0 {
		o.Ready = 60 * time.Second
	}
	if o.Deliver <= 0 {
		o.Deliver = 10 * time.Second
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	m := &Manager{opts: o, log: o.Logger, terms: map[string]*terminal{}, attached: make(chan struct{})}
	if o.Persist == nil {
		m.markAttached()
	}
	return m
}

func (m *Manager) markAttached() { m.attachedOnce.Do(func() { close(m.attached) }) }

// reattachWait bounds how long a request waits for Reattach.
const reattachWait = 15 * time.Second

// waitAttached waits (bounded) for Reattach before a session is looked up.
func (m *Manager) waitAttached(ctx context.Context) {
	select {
	case <-m.attached:
	case <-ctx.Done():
	case <-time.After(reattachWait):
	}
}

// Request is a new hosted session.
type Request struct {
	Runtime        string `json:"runtime"`
	Workdir        string `json:"workdir"`
	Name           string `json:"name,omitempty"`
	Prompt         string `json:"prompt,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	Model          string `json:"model,omitempty"`
	Effort         string `json:"effort,omitempty"`
	// Parent is the session ("runtime:id") this one is started from: the
	// board groups it under that card.
	Parent string `json:"parent,omitempty"`
	// Reuse: an idle session paddock hosts for the same agent in the same
	// directory takes the prompt instead of a new one starting (seed 001
	// findIdleSessionByWorkDir); a new one starts when there is none.
	Reuse bool `json:"reuse,omitempty"`
}

func (r Request) launch() Launch {
	return Launch{Runtime: r.Runtime, Workdir: r.Workdir, Name: r.Name, PermissionMode: r.PermissionMode, Model: r.Model, Effort: r.Effort}
}

// Delivery says whether a message reached the agent.
type Delivery struct {
	Delivered bool   `json:"delivered"`
	Attempts  int    `json:"attempts"`
	By        string `json:"by,omitempty"`          // "hook" or "screen"
	Reason    string `json:"reason,omitempty"`      // why not, when not
	Screen    string `json:"screen_tail,omitempty"` // the pane's last lines, when not delivered
	Queued    bool   `json:"queued,omitempty"`      // the agent was busy: it takes the text after its turn
}

// Created is the answer to Create.
type Created struct {
	Key        session.Key `json:"-"`
	TerminalID string      `json:"terminal_id"`
	Prompt     *Delivery   `json:"prompt,omitempty"`
	// Fresh: a resume the CLI refused, replaced by a new agent on the
	// same card.
	Fresh bool `json:"fresh,omitempty"`
	// Reused: the prompt went to an idle session already running in the
	// directory (Request.Reuse) instead of a new one.
	Reused bool `json:"reused,omitempty"`
}

// invalid wraps ErrInvalid with a message for the user.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// bin finds a recipe's executable on PATH; "" when it is not installed.
func (m *Manager) bin(rc launch.Recipe) string {
	for _, name := range rc.Bins {
		if p, err := m.opts.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// maxName bounds a session's name.
const maxName = 100

// check validates a request and finds the agent's executable.
func (m *Manager) check(r *Request) (launch.Recipe, string, error) {
	rc, ok := m.opts.Recipes[r.Runtime]
	if !ok {
		return rc, "", invalid("unknown agent %q; one of %s", r.Runtime, strings.Join(m.Runtimes(), ", "))
	}
	bin := m.bin(rc)
	if bin == "" {
		return rc, "", fmt.Errorf("%w: %s (%s is not on paddock's PATH)", ErrNotInstalled, r.Runtime, strings.Join(rc.Bins, ", "))
	}
	if !filepath.IsAbs(r.Workdir) {
		return rc, "", invalid("the working directory must be an absolute path")
	}
	r.Workdir = filepath.Clean(r.Workdir)
	if st, err := os.Stat(r.Workdir); err != nil || !st.IsDir() {
		return rc, "", invalid("%s is not an existing directory", r.Workdir)
	}
	if r.PermissionMode != "" && !slices.Contains(rc.Modes, r.PermissionMode) {
		if len(rc.Modes) == 0 {
			return rc, "", invalid("%s takes no permission mode from paddock", r.Runtime)
		}
		return rc, "", invalid("permission mode %q is not one of %s", r.PermissionMode, strings.Join(rc.Modes, ", "))
	}
	if r.Effort != "" && !slices.Contains(rc.Efforts, r.Effort) {
		if len(rc.Efforts) == 0 {
			return rc, "", invalid("%s takes no effort level", r.Runtime)
		}
		return rc, "", invalid("effort %q is not one of %s", r.Effort, strings.Join(rc.Efforts, ", "))
	}
	if r.Model != "" && (len(r.Model) > 200 || strings.ContainsAny(r.Model, " \t\n\x00") || strings.HasPrefix(r.Model, "-")) {
		return rc, "", invalid("the model name is not valid")
	}
	r.Name = strings.TrimSpace(r.Name)
	if r.Name != "" {
		if err := checkText(r.Name); err != nil || strings.ContainsAny(r.Name, "\n\t") || utf8.RuneCountInString(r.Name) > maxName || strings.HasPrefix(r.Name, "-") {
			return rc, "", invalid("the name must be one line of at most %d characters, not starting with '-'", maxName)
		}
	}
	if r.Parent != "" {
		rt, id, ok := strings.Cut(r.Parent, ":")
		if _, known := m.opts.Recipes[rt]; !ok || !known || id == "" || len(id) > 200 {
			return rc, "", invalid("the parent session must be given as runtime:id")
		}
	}
	if err := checkText(r.Prompt); err != nil {
		return rc, "", err
	}
	return rc, bin, nil
}

// checkText accepts what can be typed into an agent: valid UTF-8, at most
// MaxText bytes, no control characters but newline and tab.
func checkText(s string) error {
	if len(s) > MaxText {
		return invalid("the text is %d KB; at most %d KB go in one message", len(s)>>10, MaxText>>10)
	}
	if !utf8.ValidString(s) {
		return invalid("the text is not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			return invalid("the text holds a control character (%U); only newlines and tabs are allowed", r)
		}
	}
	return nil
}

// Create starts an agent in a new hosted terminal and, when the request has
// a prompt, sends it once the agent's input is ready. With Reuse, an idle
// hosted session of the same agent in the same directory takes the prompt
// instead.
func (m *Manager) Create(ctx context.Context, r Request) (Created, error) {
	rc, bin, err := m.check(&r)
	if err != nil {
		return Created{}, err
	}
	if r.Reuse {
		if out, ok, err := m.reuse(ctx, r); ok || err != nil {
			return out, err
		}
	}
	id := newTerminalID()
	var sid string
	if rc.ChoosesID {
		sid = newUUID()
	}
	l := r.launch()
	argv, err := commandLine(rc, bin, rc.Fresh(sid), l)
	if err != nil {
		return Created{}, err
	}
	env := []string{"PADDOCK_TERMINAL_ID=" + id}
	if sid != "" {
		env = append(env, "PADDOCK_SESSION_ID="+sid)
	}
	lt := live.Terminal{ID: id, Runtime: r.Runtime, Cwd: r.Workdir, SessionID: sid, Launch: l.encode(), Name: r.Name}
	if rt, pid, ok := strings.Cut(r.Parent, ":"); ok {
		lt.Parent = session.Key{Runtime: rt, ID: pid}
	}
	t, key, err := m.start(ctx, id, r.Workdir, argv, env, lt, session.Key{})
	if err != nil {
		return Created{}, err
	}
	out := Created{Key: key, TerminalID: id}
	if r.Prompt != "" {
		d, err := m.sendInitial(ctx, t, r.Prompt)
		if err != nil {
			return out, err
		}
		out.Prompt = &d
		if c, ok := m.opts.Live.ByTerminal(id); ok {
			out.Key = c.Key
		}
	}
	return out, nil
}

// start opens the window and registers it with the live state: a new card
// in connecting, or, when onto is set, the existing card onto (a restart or
// re-attach). It remembers the terminal. On failure nothing is left behind.
func (m *Manager) start(ctx context.Context, id, dir string, argv, env []string, lt live.Terminal, onto session.Key) (*terminal, session.Key, error) {
	pane, err := m.opts.Terminals.NewWindow(ctx, tmux.Window{Name: id, Dir: dir, Env: env, Argv: argv})
	if err != nil {
		return nil, session.Key{}, fmt.Errorf("hosted: starting %s: %w", lt.Runtime, err)
	}
	lt.ShellPID, lt.TmuxPane = pane.PID, pane.ID
	var key session.Key
	if onto.ID != "" {
		key, err = m.opts.Live.Adopt(ctx, lt, onto)
	} else {
		key, err = m.opts.Live.Host(ctx, lt)
	}
	if err != nil {
		// No half-created card: the window goes too.
		_ = m.opts.Terminals.Kill(context.WithoutCancel(ctx), pane)
		return nil, session.Key{}, fmt.Errorf("hosted: registering %s: %w", lt.Runtime, err)
	}
	t := &terminal{id: id, runtime: lt.Runtime, cwd: dir, pane: pane, started: time.Now(), argv: argv}
	m.mu.Lock()
	m.terms[id] = t
	m.mu.Unlock()
	m.save(ctx, t, key, lt.Resume)
	m.log.Info("hosted session started", "runtime", lt.Runtime, "terminal", id, "pane", pane.String(), "pid", pane.PID, "resume", lt.Resume)
	return t, key, nil
}

// hostedCard finds the hosted terminal behind a live card.
func (m *Manager) hostedCard(ctx context.Context, c live.Card) (*terminal, error) {
	m.waitAttached(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.terms[c.TerminalID]
	if c.TerminalID == "" || t == nil {
		return nil, ErrNotHosted
	}
	return t, nil
}

// sendInitial sends a new session's first prompt once its input is ready.
func (m *Manager) sendInitial(ctx context.Context, t *terminal, text string) (Delivery, error) {
	if err := m.waitReady(ctx, t); err != nil {
		return Delivery{Reason: err.Error(), Screen: m.tail(ctx, t)}, nil
	}
	return m.deliver(ctx, t, text)
}

// blockers are start-up questions an agent asks before its input is
// ready, by the words of the pinned CLIs.
var blockers = []struct {
	re   *regexp.Regexp
	what string
}{
	// Claude: "Do you trust the files in this folder?" / "Is this a
	// project you … trust?"; Kimi 2.1.0: "Trust this folder?"; Codex:
	// "Do you trust the contents of this directory?".
	{regexp.MustCompile(`(?i)do you trust|trust this folder\?|trust (the files|the authors|the contents)|project you .*trust`), "whether to trust this folder"},
	{regexp.MustCompile(`(?i)select login method|sign in with|log ?in to|paste (your )?(api )?key`), "to log in"},
	// Codex 0.169.0: "Hooks need review … 1. Review hooks 2. Trust all and
	// continue" — trusting hooks is the user's call, once.
	{regexp.MustCompile(`(?i)hooks need review`), "whether to trust the hooks installed for it (review or trust them once, in its terminal)"},
	{regexp.MustCompile(`(?i)choose the text style|select a theme`), "its first-run setup"},
}

func blocker(screen string) string {
	for _, b := range blockers {
		if b.re.MatchString(screen) {
			return b.what
		}
	}
	return ""
}

// stableFor is how long the screen must stay unchanged to count as a TUI
// waiting for input.
const stableFor = 600 * time.Millisecond

// waitReady waits until the agent has started (its first hook moved the
// card out of connecting, or for an agent without hooks installed, the
// screen has content) and its screen has settled.
func (m *Manager) waitReady(ctx context.Context, t *terminal) error {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Ready)
	defer cancel()
	var last string
	var since time.Time
	for {
		if alive, err := m.opts.Terminals.Alive(ctx, t.pane); err == nil && !alive {
			return fmt.Errorf("%s exited before its input was ready", t.runtime)
		}
		screen, _ := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		hooked := false
		if c, ok := m.opts.Live.ByTerminal(t.id); ok && !c.LastEvent.IsZero() {
			hooked = true
		}
		if screen != last {
			last, since = screen, time.Now()
		}
		// A question of the agent's own (trust this folder? log in?) must
		// be answered by the user: a prompt typed now would answer it.
		if q := blocker(screen); q != "" && time.Since(since) >= stableFor {
			return fmt.Errorf("%s is asking %s; answer it in its terminal first", t.runtime, q)
		}
		// Without a hook, wait longer on the screen alone: the CLI may not
		// have paddock's hooks installed.
		settle := stableFor
		if !hooked {
			settle = 4 * stableFor
		}
		if strings.TrimSpace(screen) != "" && time.Since(since) >= settle && (hooked || time.Since(t.started) > 5*time.Second) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s's input was not ready within %s", t.runtime, m.opts.Ready)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Send types a message into a hosted session and verifies it arrived.
func (m *Manager) Send(ctx context.Context, c live.Card, text string) (Delivery, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Delivery{}, err
	}
	if strings.TrimSpace(text) == "" {
		return Delivery{}, invalid("the message is empty")
	}
	if err := checkText(text); err != nil {
		return Delivery{}, err
	}
	if alive, err := m.opts.Terminals.Alive(ctx, t.pane); err != nil || !alive {
		return Delivery{}, ErrGone
	}
	d, err := m.deliver(ctx, t, text)
	if err == nil && !d.Delivered && (c.State == hookstate.StateWorking || c.State == hookstate.StatePrompting) {
		// The agent queues what is typed during a turn and takes it
		// after (Claude Code, Codex): it has the text, unconfirmed.
		d.Queued = true
	}
	return d, err
}

// deliver types text into the pane and presses Enter, then waits for the
// agent to confirm (its prompt hook with this text, or the card leaving
// its idle states); retries wait 1.5× longer each (seed 001).
func (m *Manager) deliver(ctx context.Context, t *terminal, text string) (Delivery, error) {
	t.sending.Lock()
	defer t.sending.Unlock()
	before, _ := m.opts.Live.ByTerminal(t.id)
	wait := m.opts.Deliver
	var d Delivery
	typed := false
	for d.Attempts < m.opts.Attempts {
		d.Attempts++
		screen, _ := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		// Type the text unless a previous attempt left it in the input
		// line (then only Enter is missing).
		if !typed || !strings.Contains(screen, firstLine(text)) {
			if err := m.typeText(ctx, t, text); err != nil {
				return d, err
			}
			typed = true
			// TUIs debounce input; Enter right after the text can be
			// taken as part of a paste.
			if err := sleep(ctx, 300*time.Millisecond); err != nil {
				return d, err
			}
		}
		pre, _ := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{})
		// A question of the agent's own that came up meanwhile (a slow
		// start): Enter would answer it. Leave it to the user.
		if q := blocker(pre); q != "" {
			d.Reason = fmt.Sprintf("%s is asking %s; answer it in its terminal first", t.runtime, q)
			d.Screen = m.tail(ctx, t)
			return d, nil
		}
		if err := m.opts.Terminals.SendKeys(ctx, t.pane, "Enter"); err != nil {
			return d, fmt.Errorf("hosted: %w", err)
		}
		if by, ok := m.confirm(ctx, t, text, before, pre, wait); ok {
			d.Delivered, d.By = true, by
			return d, nil
		}
		wait = wait * 3 / 2
	}
	d.Reason = fmt.Sprintf("no sign of the message in %s after %d attempts", t.runtime, d.Attempts)
	d.Screen = m.tail(ctx, t)
	return d, nil
}

func (m *Manager) typeText(ctx context.Context, t *terminal, text string) error {
	var err error
	if strings.ContainsAny(text, "\n") {
		err = m.opts.Terminals.Paste(ctx, t.pane, text)
	} else {
		err = m.opts.Terminals.SendText(ctx, t.pane, text)
	}
	if err != nil {
		return fmt.Errorf("hosted: %w", err)
	}
	return nil
}

// confirm waits up to wait for evidence the agent took the text: its
// prompt hook carrying it, or a card that moved from an idle state into a
// turn since before.
//
// An agent whose hooks never reported (its card still connecting: hooks
// not installed for it) is judged by its screen instead: it changed after
// Enter and shows the text.
func (m *Manager) confirm(ctx context.Context, t *terminal, text string, before live.Card, pre string, wait time.Duration) (string, bool) {
	deadline := time.Now().Add(wait)
	want := clipCompare(text)
	for time.Now().Before(deadline) {
		c, ok := m.opts.Live.ByTerminal(t.id)
		if ok && c.LastEvent.After(before.LastEvent) && (c.LastPrompt != "" && strings.HasPrefix(want, clipCompare(c.LastPrompt)) ||
			c.State == hookstate.StatePrompting || c.State == hookstate.StateWorking) {
			return "hook", true
		}
		if !ok || c.LastEvent.IsZero() { // no hook ever came: hooks not installed
			if s, err := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{}); err == nil && s != pre && strings.Contains(s, firstLine(text)) {
				return "screen", true
			}
		}
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return "", false
		}
	}
	return "", false
}

// clipCompare normalises text for comparison with a hook's (clipped,
// whitespace-trimmed) prompt.
func clipCompare(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "…")
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 40 {
		line = line[:40]
		for !utf8.ValidString(line) {
			line = line[:len(line)-1]
		}
	}
	return line
}

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// tailLines is how much of the screen a failed delivery shows.
const tailLines = 15

func (m *Manager) tail(ctx context.Context, t *terminal) string {
	s, err := m.opts.Terminals.Capture(context.WithoutCancel(ctx), t.pane, tmux.CaptureOptions{})
	if err != nil {
		return ""
	}
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-tailLines):], "\n")
}

// Keys presses keys in a hosted session: interrupt (C-c), Escape, and the
// key bar's keys (tmux's allowlist decides).
func (m *Manager) Keys(ctx context.Context, c live.Card, keys ...string) error {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return err
	}
	if err := m.opts.Terminals.SendKeys(ctx, t.pane, keys...); err != nil {
		if errors.Is(err, tmux.ErrBadKey) {
			return invalid("%v", err)
		}
		if errors.Is(err, tmux.ErrNoPane) || errors.Is(err, tmux.ErrNoServer) {
			return ErrGone
		}
		return err
	}
	return nil
}

// Screen is the hosted terminal's text with scrollBack lines of history.
func (m *Manager) Screen(ctx context.Context, c live.Card, scrollBack int) (string, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return "", err
	}
	s, err := m.opts.Terminals.Capture(ctx, t.pane, tmux.CaptureOptions{ScrollBack: scrollBack, Join: true})
	if errors.Is(err, tmux.ErrNoPane) || errors.Is(err, tmux.ErrNoServer) {
		return "", ErrGone
	}
	return s, err
}

// Kill ends a hosted session: its window (and the agent in it) is closed
// and its card ends at once.
func (m *Manager) Kill(ctx context.Context, c live.Card) error {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return err
	}
	if err := m.close(ctx, t); err != nil {
		return err
	}
	m.log.Info("hosted session killed", "runtime", t.runtime, "terminal", t.id)
	return m.opts.Live.Unhost(ctx, t.id)
}

// close closes a terminal's window and waits (bounded) for its agent to
// exit, so that "closed" means it no longer runs or writes; then paddock
// forgets the terminal. The card is the caller's business.
func (m *Manager) close(ctx context.Context, t *terminal) error {
	m.mu.Lock()
	t.closing = true
	m.mu.Unlock()
	if err := m.opts.Terminals.Kill(ctx, t.pane); err != nil && !errors.Is(err, tmux.ErrNoPane) && !errors.Is(err, tmux.ErrNoServer) {
		return fmt.Errorf("hosted: %w", err)
	}
	// Closing the window hangs the agent up; one that does not exit soon
	// is killed.
	deadline := time.Now().Add(killGrace)
	for procscan.Alive(t.pane.PID) && time.Now().Before(deadline) {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			break
		}
	}
	if procscan.Alive(t.pane.PID) {
		m.log.Warn("hosted agent ignored its hang-up; killing it", "terminal", t.id, "pid", t.pane.PID)
		_ = kill(t.pane.PID)
	}
	m.drop(ctx, t)
	return nil
}

// drop forgets a terminal (memory and store).
func (m *Manager) drop(ctx context.Context, t *terminal) {
	m.mu.Lock()
	delete(m.terms, t.id)
	m.mu.Unlock()
	m.forget(ctx, t.id)
}

// Installed lists the runtimes whose CLI is on paddock's PATH, sorted.
func (m *Manager) Installed() []string {
	var out []string
	for _, r := range m.Runtimes() {
		if m.bin(m.opts.Recipes[r]) != "" {
			out = append(out, r)
		}
	}
	return out
}

// Resumable is what Resume needs to know of a session.
type Resumable struct {
	Key        session.Key
	Cwd        string
	Transcript string    // its history file (Pi resumes by file)
	Card       live.Card // its live card; zero when it has none
}

// resumeFailFast: a resume that exits this soon has failed (an id the CLI
// does not know), and a fresh agent starts on the same card instead.
const resumeFailFast = 3 * time.Second

// resumable checks that runtime can be resumed: a recipe exists and the
// installed CLI's --help (Probe) still lists its resume arguments.
func (m *Manager) resumable(runtime string) (launch.Recipe, error) {
	rc, ok := m.opts.Recipes[runtime]
	if !ok || rc.Resume == nil {
		return rc, invalid("paddock cannot resume %s sessions", runtime)
	}
	if p, ok := m.probes.get(runtime); ok && !p.CanResume {
		return rc, invalid("the installed %s's --help no longer lists %s; paddock will not guess how to resume it", runtime, strings.Join(rc.ResumeHelp, " "))
	}
	return rc, nil
}

// Resume brings an ended or asleep session back in a new hosted terminal
// running the CLI's own resume command in the session's directory, with
// the options it was launched with when paddock started it. A session
// still running is refused. When the CLI cannot resume it, a new agent
// starts on the same card (seed 000: never --continue).
func (m *Manager) Resume(ctx context.Context, r Resumable) (Created, error) {
	rc, err := m.resumable(r.Key.Runtime)
	if err != nil {
		return Created{}, err
	}
	if c := r.Card; c.Key.ID != "" && !c.State.Over() {
		return Created{}, invalid("the session is still running (%s); there is nothing to resume", c.State)
	}
	l, saved := launchOf(r.Card)
	if !saved {
		l = Launch{Runtime: r.Key.Runtime}
	}
	l.Workdir = cmp.Or(r.Cwd, l.Workdir)
	req := Request{Runtime: l.Runtime, Workdir: l.Workdir, Name: l.Name, PermissionMode: l.PermissionMode, Model: l.Model, Effort: l.Effort}
	_, bin, err := m.check(&req)
	if err != nil {
		return Created{}, err
	}
	// A dead window of an earlier run of this card goes first.
	if t, err := m.hostedCard(ctx, r.Card); err == nil {
		_ = m.opts.Terminals.Kill(ctx, t.pane)
		m.drop(ctx, t)
	}
	return m.relaunch(ctx, rc, bin, r.Key, r.Transcript, req.launch(), session.Key{})
}

// Reconnect opens a new terminal for an ended (or asleep) session paddock
// started, from its saved launch: the same agent, directory, name, model,
// effort and permission mode, resuming the same conversation (seed 000
// Reconnect). A session paddock did not start has no saved launch: Resume
// is the way back for it.
func (m *Manager) Reconnect(ctx context.Context, r Resumable) (Created, error) {
	if _, ok := launchOf(r.Card); !ok {
		return Created{}, invalid("paddock has no saved launch command for this session; use Resume")
	}
	return m.Resume(ctx, r)
}

// relaunch starts runtime's resume of key in a new terminal (onto its card
// when onto is set, else on a card the live state finds by the resume),
// and starts a new agent on the same card when the CLI refuses the resume.
func (m *Manager) relaunch(ctx context.Context, rc launch.Recipe, bin string, key session.Key, transcript string, l Launch, onto session.Key) (Created, error) {
	id := newTerminalID()
	argv, err := commandLine(rc, bin, rc.Resume(key.ID, transcript), l)
	if err != nil {
		return Created{}, err
	}
	lt := live.Terminal{ID: id, Runtime: l.Runtime, Cwd: l.Workdir, Resume: key.ID, Launch: l.encode(), Name: l.Name}
	// PADDOCK_SESSION_ID names the resumed session to the scanners: Kimi
	// and Pi write their title over their arguments, so the process
	// table alone cannot say which session a resumed agent runs.
	env := []string{"PADDOCK_TERMINAL_ID=" + id, "PADDOCK_SESSION_ID=" + key.ID}
	t, got, err := m.start(ctx, id, l.Workdir, argv, env, lt, onto)
	if err != nil {
		return Created{}, err
	}
	if !m.exitsEarly(ctx, t, resumeFailFast) {
		return Created{Key: got, TerminalID: t.id}, nil
	}
	// The CLI did not know the session: a new agent on the same card.
	m.log.Info("resume failed at once; starting a new agent on the card", "runtime", l.Runtime, "session", key.ID)
	_ = m.opts.Terminals.Kill(ctx, t.pane)
	m.drop(ctx, t)
	var sid string
	id2 := newTerminalID()
	env = []string{"PADDOCK_TERMINAL_ID=" + id2}
	if rc.ChoosesID {
		sid = newUUID()
		env = append(env, "PADDOCK_SESSION_ID="+sid)
	}
	argv, err = commandLine(rc, bin, rc.Fresh(sid), l)
	if err != nil {
		return Created{}, err
	}
	lt.ID = id2
	if t, got, err = m.start(ctx, id2, l.Workdir, argv, env, lt, got); err != nil {
		return Created{}, err
	}
	return Created{Key: got, TerminalID: t.id, Fresh: true}, nil
}

// Restart exits a hosted session's agent and starts it again in a new
// terminal on the same card, resuming the same conversation with the same
// options (seed 000 Restart session): the card goes to connecting, never
// through ended, and comes back with its title, group and history.
func (m *Manager) Restart(ctx context.Context, c live.Card) (Created, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Created{}, err
	}
	rc, err := m.resumable(t.runtime)
	if err != nil {
		return Created{}, err
	}
	l, ok := launchOf(c)
	if !ok {
		l = Launch{Runtime: t.runtime, Workdir: t.cwd}
	}
	req := Request{Runtime: l.Runtime, Workdir: cmp.Or(l.Workdir, t.cwd), Name: l.Name, PermissionMode: l.PermissionMode, Model: l.Model, Effort: l.Effort}
	_, bin, err := m.check(&req)
	if err != nil {
		return Created{}, err
	}
	key, ok, err := m.opts.Live.Restarting(ctx, t.id)
	if err != nil {
		return Created{}, err
	}
	if !ok {
		return Created{}, ErrNotHosted
	}
	if err := m.close(ctx, t); err != nil {
		return Created{}, err
	}
	m.log.Info("restarting hosted session", "session", key.String(), "terminal", t.id)
	if strings.HasPrefix(key.ID, "pending-") {
		// The agent never said which session it was: nothing to resume,
		// a new agent with the same options on the same card.
		return m.relaunchFresh(ctx, rc, bin, req.launch(), key)
	}
	return m.relaunch(ctx, rc, bin, key, c.Transcript, req.launch(), key)
}

// relaunchFresh starts a new agent with launch l on the card onto.
func (m *Manager) relaunchFresh(ctx context.Context, rc launch.Recipe, bin string, l Launch, onto session.Key) (Created, error) {
	id := newTerminalID()
	env := []string{"PADDOCK_TERMINAL_ID=" + id}
	var sid string
	if rc.ChoosesID {
		sid = newUUID()
		env = append(env, "PADDOCK_SESSION_ID="+sid)
	}
	argv, err := commandLine(rc, bin, rc.Fresh(sid), l)
	if err != nil {
		return Created{}, err
	}
	lt := live.Terminal{ID: id, Runtime: l.Runtime, Cwd: l.Workdir, SessionID: sid, Launch: l.encode(), Name: l.Name}
	t, key, err := m.start(ctx, id, l.Workdir, argv, env, lt, onto)
	if err != nil {
		return Created{}, err
	}
	return Created{Key: key, TerminalID: t.id, Fresh: true}, nil
}

// exitsEarly reports whether the pane's program exits within d; it stops
// looking as soon as the agent's first hook shows it running.
func (m *Manager) exitsEarly(ctx context.Context, t *terminal, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if alive, err := m.opts.Terminals.Alive(ctx, t.pane); err == nil && !alive {
			return true
		}
		if c, ok := m.opts.Live.ByTerminal(t.id); ok && !c.LastEvent.IsZero() && c.LastEvent.After(t.started) && c.State != hookstate.StateConnecting {
			return false
		}
		if sleep(ctx, 100*time.Millisecond) != nil {
			return false
		}
	}
	return false
}

// Slept is one session put to sleep.
type Slept struct {
	Key   session.Key
	Freed uint64 // resident memory of the agent and its children before
}

// sleepable reports why a card must not be put to sleep ("" when it may):
// never while working, asking, or waiting for an approval or an answer.
func sleepable(c live.Card) string {
	switch c.State {
	case hookstate.StateIdle, hookstate.StateWaiting:
		return ""
	case hookstate.StateAsleep:
		return "it is asleep already"
	}
	return fmt.Sprintf("it is %s; only an idle session is put to sleep", c.State)
}

// Sleep closes an idle hosted session's terminal now to free its memory;
// the card stays, marked asleep, and Resume brings it back.
func (m *Manager) Sleep(ctx context.Context, c live.Card) (Slept, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Slept{}, err
	}
	if why := sleepable(c); why != "" {
		return Slept{}, invalid("not put to sleep: %s", why)
	}
	if m.claimed(t.id) {
		return Slept{}, invalid("not put to sleep: a request is using it right now")
	}
	return m.sleep(ctx, t, c)
}

func (m *Manager) sleep(ctx context.Context, t *terminal, c live.Card) (Slept, error) {
	if err := m.close(ctx, t); err != nil {
		return Slept{}, err
	}
	if _, err := m.opts.Live.Sleep(ctx, t.id, c.Memory.RSS); err != nil {
		m.log.Warn("card not marked asleep", "terminal", t.id, "error", err)
	}
	m.log.Info("session put to sleep", "session", c.Key.String(), "freed_bytes", c.Memory.RSS)
	return Slept{Key: c.Key, Freed: c.Memory.RSS}, nil
}

// SleepIdle closes the windows of hosted sessions idle for longer than
// limit (seed 000 "Sleep idle sessions"): the card stays, marked asleep,
// and Resume brings it back. A session working, asking or waiting for an
// approval or answer is never put to sleep, and neither is one a request
// has claimed.
func (m *Manager) SleepIdle(ctx context.Context, now time.Time, limit time.Duration) []Slept {
	m.mu.Lock()
	terms := make([]*terminal, 0, len(m.terms))
	for _, t := range m.terms {
		if !t.claimed {
			terms = append(terms, t)
		}
	}
	m.mu.Unlock()
	var out []Slept
	for _, t := range terms {
		c, ok := m.opts.Live.ByTerminal(t.id)
		if !ok || c.State != hookstate.StateIdle || now.Sub(c.Since) < limit {
			continue
		}
		s, err := m.sleep(ctx, t, c)
		if err != nil {
			m.log.Warn("idle session not put to sleep", "terminal", t.id, "error", err)
			continue
		}
		out = append(out, s)
	}
	return out
}

// RunSleeper puts idle sessions to sleep until ctx ends; limit 0 is off.
func (m *Manager) RunSleeper(ctx context.Context, limit time.Duration) error {
	if limit <= 0 {
		return nil
	}
	tick := time.NewTicker(min(limit/10, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case now := <-tick.C:
			m.SleepIdle(ctx, now, limit)
		}
	}
}

// StallAfter is how long a working session may go without output or a
// hook before health calls it stalled (seed 001's stall detection).
const StallAfter = 5 * time.Minute

// Health is a hosted session's health (seed 001 getHealth).
type Health struct {
	Alive        bool      `json:"alive"`         // the window exists and its program runs
	Window       bool      `json:"window"`        // the window exists (perhaps with an exited program)
	AgentRunning bool      `json:"agent_running"` // the agent process runs
	Command      string    `json:"pane_command,omitempty"`
	State        string    `json:"state"`
	Transcript   bool      `json:"has_transcript"`
	LastActivity time.Time `json:"last_activity,omitzero"` // newest of the pane's output and the last hook
	Age          string    `json:"age"`
	Stalled      bool      `json:"stalled"`
	Hint         string    `json:"hint,omitempty"`
	// Tmux is paddock's tmux server: its crashes and the sessions
	// recovered or lost with them.
	Tmux TmuxHealth `json:"tmux"`
}

// Health reports on a hosted session at now.
func (m *Manager) Health(ctx context.Context, c live.Card, now time.Time) (Health, error) {
	t, err := m.hostedCard(ctx, c)
	if err != nil {
		return Health{}, err
	}
	h := Health{State: string(c.State), Age: now.Sub(t.started).Round(time.Second).String(), LastActivity: c.LastEvent, Tmux: m.Tmux()}
	if c.Transcript != "" {
		if _, err := os.Stat(c.Transcript); err == nil {
			h.Transcript = true
		}
	}
	in, err := m.paneStatus(ctx, t)
	switch {
	case errors.Is(err, tmux.ErrNoPane), errors.Is(err, tmux.ErrNoServer):
		h.Hint = "Its terminal is gone: the agent exited or was killed. Resume brings it back."
		return h, nil
	case err != nil:
		return h, err
	}
	h.Window, h.Alive, h.Command = true, !in.Dead, in.Command
	h.AgentRunning = !in.Dead && procscan.Alive(t.pane.PID)
	if in.Activity.After(h.LastActivity) {
		h.LastActivity = in.Activity
	}
	switch {
	case in.Dead:
		h.Hint = "The agent exited; its last screen is kept. Resume starts it again."
	case (c.State == hookstate.StateWorking || c.State == hookstate.StatePrompting) && !h.LastActivity.IsZero() && now.Sub(h.LastActivity) > StallAfter:
		h.Stalled = true
		h.Hint = fmt.Sprintf("No output and no hook for %s while working: look at the terminal; Ctrl-C interrupts, Kill and Resume restart it.",
			now.Sub(h.LastActivity).Round(time.Minute))
	}
	return h, nil
}
