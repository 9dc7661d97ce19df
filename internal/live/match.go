package live

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// Terminal describes a terminal paddock started an agent in (a hosted
// session): matching links the session ids that appear in it to its card.
type Terminal struct {
	ID        string // PADDOCK_TERMINAL_ID in the agent's environment
	Runtime   string
	Cwd       string
	ShellPID  int    // the pane's first process
	TmuxPane  string // "%N"
	SessionID string // the id paddock chose for the agent, when it could (claude --session-id)
	// Resume is the session this terminal resumes, when it was started to
	// resume one: its card keeps going under whatever id the agent reports.
	Resume string
	// Launch is how the agent was started (hosted's own encoding, opaque
	// here): kept on the card so that Restart and Reconnect can start it
	// again the same way after it ended.
	Launch []byte
	// Name is the name the user gave the session, shown on its card.
	Name string
	// Parent is the session this one was started from, when the user
	// named one: the board groups it under that card.
	Parent session.Key
}

// setLaunch copies what a hosted terminal says about how its agent was
// started onto its card; empty fields keep what the card had.
func (m *meta) setLaunch(spec Terminal) {
	if len(spec.Launch) > 0 {
		m.launch = slices.Clone(spec.Launch)
	}
	if spec.Name != "" {
		m.name = spec.Name
	}
	if spec.Parent.ID != "" {
		m.parent = spec.Parent
	}
	m.terminalID, m.tmuxPane = spec.ID, spec.TmuxPane
	m.note, m.freed = "", 0
}

// resumeWindow: a resume that produced no event in this long is no longer
// "the resume you just launched".
const resumeWindow = 2 * time.Minute

// sameProcessWindow: a session that ended this recently may hand its card
// to a new session id from the same process (/clear); older ones may have
// had their pid reused.
const sameProcessWindow = time.Minute

// host registers a hosted terminal and puts its card in connecting.
func (o *owner) host(spec Terminal, now time.Time, u *update) session.Key {
	key := session.Key{Runtime: spec.Runtime, ID: spec.SessionID}
	switch {
	case key.ID != "":
	case spec.Resume != "":
		key.ID = spec.Resume
	default:
		key.ID = provisionalStart + spec.ID
	}
	if old := o.terms[spec.ID]; old != nil && old.key != key && strings.HasPrefix(old.key.ID, provisionalStart) {
		o.tracker.Remove(old.key)
		delete(o.meta, old.key)
		u.drop(old.key)
	}
	o.tracker.Host(key, now)
	m := o.meta[key]
	if m == nil {
		m = &meta{}
		o.meta[key] = m
	}
	m.setLaunch(spec)
	if spec.Cwd != "" {
		m.cwd = spec.Cwd
	}
	m.facts = hookstate.Facts{}
	o.terms[spec.ID] = &terminal{spec: spec, created: now, key: key}
	o.record(key)
	u.touch(key)
	return key
}

// adopt re-registers a hosted terminal that paddock found still running
// after a restart: its card (restored with its state) keeps its state and
// learns its terminal again; a card that was not restored starts over
// as a hosted one in connecting.
func (o *owner) adopt(spec Terminal, key session.Key, now time.Time, u *update) session.Key {
	if key.ID == "" || o.tracker.Get(key) == nil {
		return o.host(spec, now, u)
	}
	m := o.meta[key]
	if m == nil {
		m = &meta{}
		o.meta[key] = m
	}
	m.setLaunch(spec)
	if spec.Cwd != "" && m.cwd == "" {
		m.cwd = spec.Cwd
	}
	o.terms[spec.ID] = &terminal{spec: spec, created: now, key: key, seen: []session.Key{key}}
	u.touch(key)
	return key
}

// restarting moves a hosted terminal's card into connecting before paddock
// closes the terminal to start its agent again: the old agent's
// SessionEnd and its process exit must not end the card (a restart shows
// no ended in between). The terminal is forgotten; Adopt
// registers the new one on the same card.
func (o *owner) restarting(id string, now time.Time, u *update) (session.Key, bool) {
	t := o.terms[id]
	if t == nil || o.tracker.Get(t.key) == nil {
		return session.Key{}, false
	}
	delete(o.terms, id)
	if m := o.meta[t.key]; m != nil {
		m.pid, m.ppid, m.facts, m.note = 0, 0, hookstate.Facts{}, ""
	}
	o.tracker.Get(t.key).MarkConnecting(now)
	o.record(t.key)
	u.touch(t.key)
	return t.key, true
}

// settleResumes returns to idle the cards of resumes (and restarts) whose
// agent has reported nothing within resumeWindow, saying why on the card.
func (o *owner) settleResumes(now time.Time, u *update) {
	for _, t := range o.terms {
		if t.spec.Resume == "" || now.Sub(t.created) <= resumeWindow {
			continue
		}
		mc, m := o.tracker.Get(t.key), o.meta[t.key]
		if mc == nil || m == nil || mc.State() != hookstate.StateConnecting || m.lastEvent.After(t.created) {
			continue
		}
		if mc.Settle(now) {
			m.note = "Resumed " + resumeWindow.String() + " ago, but the agent has reported nothing since: " +
				"it may be waiting on a question in its terminal (open the terminal view), or its hooks are not installed (paddock hooks install)."
			o.record(t.key)
			u.touch(t.key)
		}
	}
}

// unhost forgets a hosted terminal (its window closed). Its card stays,
// unless it never got past the provisional key.
func (o *owner) unhost(id string, now time.Time, u *update) {
	t := o.terms[id]
	if t == nil {
		return
	}
	delete(o.terms, id)
	if strings.HasPrefix(t.key.ID, provisionalStart) {
		o.tracker.Remove(t.key)
		delete(o.meta, t.key)
		u.drop(t.key)
		return
	}
	if m := o.meta[t.key]; m != nil {
		m.facts.Process = hookstate.ProcessGone
		o.tick(now, u)
	}
}

// match finds the card an event of a session no card has belongs to, in
// the order the numbered steps below give (the resume just launched, the
// injected terminal id, the same process, a new terminal's directory, the
// parent shell, the tmux pane). It returns the key of that card; the
// caller moves it to the event's session id.
func (o *owner) match(ev hookstate.Event, now time.Time) (session.Key, bool) {
	r := ev.Relay
	// 1. The resume just launched.
	for _, t := range o.terms {
		if t.spec.Resume != "" && t.spec.Runtime == ev.Runtime && now.Sub(t.created) <= resumeWindow &&
			(r.TerminalID == t.spec.ID || r.TerminalID == "" && ev.Cwd != "" && ev.Cwd == t.spec.Cwd) {
			return t.key, o.free(t.key)
		}
	}
	// 2. The injected terminal id — unless the hook ran in another hosted
	// terminal's directory: an agent that runs every session's hooks from
	// one shared process (Codex's app-server daemon) hands them all the
	// environment, and so the terminal id, of the session that started
	// that process.
	if t := o.terms[r.TerminalID]; t != nil && r.TerminalID != "" && t.spec.Runtime == ev.Runtime && !o.elsewhere(ev, t) {
		return t.key, o.free(t.key)
	}
	// 3. A new session id from the same process (/clear, a resume inside
	// the TUI), in the same directory: a process that runs several
	// sessions' hooks reports one pid for all of them.
	if r.PID > 0 {
		var best session.Key
		var bestAt time.Time
		for k, m := range o.meta {
			mc := o.tracker.Get(k)
			if m.pid != r.PID || k.Runtime != ev.Runtime || mc == nil || !inDir(ev.Cwd, m.cwd) {
				continue
			}
			if mc.State() == hookstate.StateEnded && now.Sub(mc.Since()) > sameProcessWindow {
				continue
			}
			if m.lastEvent.After(bestAt) || best.ID == "" {
				best, bestAt = k, m.lastEvent
			}
		}
		if best.ID != "" {
			return best, true
		}
	}
	// 4. The cwd of a terminal created in the last minute that has no
	// session yet; 5. a terminal still connecting in that cwd.
	if ev.Cwd != "" {
		for _, t := range o.terms {
			if t.spec.Runtime == ev.Runtime && t.spec.Cwd == ev.Cwd && now.Sub(t.created) <= newTerminalAge &&
				strings.HasPrefix(t.key.ID, provisionalStart) {
				return t.key, o.free(t.key)
			}
		}
		for _, t := range o.terms {
			if mc := o.tracker.Get(t.key); mc != nil && t.spec.Runtime == ev.Runtime && t.spec.Cwd == ev.Cwd &&
				mc.State() == hookstate.StateConnecting {
				return t.key, o.free(t.key)
			}
		}
	}
	// 6. The agent's parent shell is a hosted terminal's.
	if r.PPID > 0 {
		for _, t := range o.terms {
			if t.spec.ShellPID == r.PPID && t.spec.Runtime == ev.Runtime && !o.elsewhere(ev, t) {
				return t.key, o.free(t.key)
			}
		}
	}
	// 7. A terminal (its tmux pane) that has had a single session takes the
	// new id over: no duplicate card after a lost SessionStart.
	if r.TmuxPane != "" {
		for _, t := range o.terms {
			if t.spec.TmuxPane == r.TmuxPane && t.spec.Runtime == ev.Runtime && len(t.seen) <= 1 && !o.elsewhere(ev, t) {
				return t.key, o.free(t.key)
			}
		}
	}
	return session.Key{}, false
}

// elsewhere reports whether ev's directory is another hosted terminal's
// of its runtime and not t's: then what ties ev to t (its environment, its
// process) came from a process the agent shares between sessions.
func (o *owner) elsewhere(ev hookstate.Event, t *terminal) bool {
	if ev.Cwd == "" || inDir(ev.Cwd, t.spec.Cwd) {
		return false
	}
	for _, u := range o.terms {
		if u != t && u.spec.Runtime == ev.Runtime && u.spec.Cwd != "" && inDir(ev.Cwd, u.spec.Cwd) {
			return true
		}
	}
	return false
}

// inDir reports whether an event's directory fits a terminal's: the same,
// or below it; either unknown fits.
func inDir(evCwd, termCwd string) bool {
	if evCwd == "" || termCwd == "" {
		return true
	}
	e, t := filepath.Clean(evCwd), filepath.Clean(termCwd)
	return e == t || strings.HasPrefix(e, strings.TrimSuffix(t, string(filepath.Separator))+string(filepath.Separator))
}

// free reports whether a card can be taken over: it exists.
func (o *owner) free(k session.Key) bool { return o.tracker.Get(k) != nil }

// saw records that a session id appeared in its hosted terminal.
func (o *owner) saw(key session.Key) {
	m := o.meta[key]
	if m == nil || m.terminalID == "" {
		return
	}
	t := o.terms[m.terminalID]
	if t == nil {
		return
	}
	t.key = key
	for _, k := range t.seen {
		if k == key {
			return
		}
	}
	t.seen = append(t.seen, key)
}
