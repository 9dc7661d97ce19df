package hosted

import (
	"cmp"
	"context"
	"strings"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/launch"
	"paddock/internal/live"
	"paddock/internal/session"
)

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
// starts on the same card: never the CLI's --continue, which takes up the
// directory's latest conversation, not necessarily this one.
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
// effort and permission mode, resuming the same conversation. A session
// paddock did not start has no saved launch: Resume is the way back for
// it.
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
// options: the card goes to connecting, never through ended, and comes
// back with its title, group and history.
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
