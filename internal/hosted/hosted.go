// Package hosted starts and drives agents in paddock's own tmux server: a
// user starts work from the phone, types into it, interrupts or kills it.
// Each hosted terminal runs one agent CLI with PADDOCK_TERMINAL_ID (and
// PADDOCK_SESSION_ID where the CLI takes a chosen id) in its environment,
// so the agent's hooks land on the card paddock opened for it
// (internal/live's matching).
//
// Text reaches an agent only through tmux's literal input and bracketed
// paste (never a shell), only into the pane paddock created for that
// session, and a message counts as delivered only when the agent's own
// hook (or, for an agent without hooks, its screen) shows it arrived.
package hosted

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os/exec"
	"sync"
	"time"

	"paddock/internal/launch"
	"paddock/internal/live"
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
	// (default 10 s; each retry waits 1.5× longer, so a slow agent gets
	// more time).
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

// invalid wraps ErrInvalid with a message for the user.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
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

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}
