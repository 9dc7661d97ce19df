package live

import (
	"slices"
	"strings"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// owner is the live state proper: the tracker, what the hooks said about
// each session beyond its state, the hosted terminals, and the matching of
// events to cards. Like hookstate it is pure and single-threaded — every
// method takes the time — so the rules are tested with a fake clock; the
// Service's goroutine is its only caller in production.
type owner struct {
	tracker *hookstate.Tracker
	meta    map[session.Key]*meta
	terms   map[string]*terminal
	// spawns are recent SubagentStarts, for team matching: a SessionStart
	// in the same cwd soon after is a teammate of that session.
	spawns []spawn
}

// meta is what live keeps per session next to its machine.
type meta struct {
	cwd, transcript, model, prompt string
	pid, ppid                      int
	tty, termKind, tmuxPane        string
	terminalID                     string
	parent                         session.Key
	lastEvent                      time.Time

	subagents []Subagent
	tasks     []string // descriptions of main-agent Task/Agent calls not yet matched to a SubagentStart

	facts  hookstate.Facts // the last process check's
	memory Memory

	history []Transition // newest last, at most maxHistory

	// From hosting (Terminal): how the agent was launched, the user's name
	// for it, why a resume settled, the memory freed when it was put to
	// sleep, and the earlier session ids this card showed.
	launch []byte
	name   string
	note   string
	freed  uint64
	runs   []Run
}

// maxRuns is how many earlier runs a card remembers (up to five previous
// runs are linked from its page).
const maxRuns = 5

// maxHistory bounds the transitions kept per card.
const maxHistory = 32

// record appends the machine's state to the card's history when it moved.
func (o *owner) record(k session.Key) {
	mc, m := o.tracker.Get(k), o.meta[k]
	if mc == nil || m == nil {
		return
	}
	if n := len(m.history); n > 0 && m.history[n-1].State == mc.State() {
		return
	}
	if len(m.history) == maxHistory {
		m.history = slices.Delete(m.history, 0, 1)
	}
	m.history = append(m.history, Transition{State: mc.State(), At: mc.Since()})
}

// terminal is a hosted terminal (a tmux window paddock started): matching links
// the sessions that start in it to its card.
type terminal struct {
	spec    Terminal
	created time.Time
	key     session.Key   // its card: a session key, or a provisional one until the first hook
	seen    []session.Key // every session id seen in it, oldest first
}

type spawn struct {
	parent session.Key
	cwd    string
	at     time.Time
}

// Team and matching windows.
const (
	teamWindow       = 10 * time.Second // SubagentStart → teammate SessionStart in the same cwd
	newTerminalAge   = time.Minute      // "a terminal created in the last minute"
	maxSpawns        = 32
	provisionalStart = "pending-"
)

func newOwner(cfg hookstate.Config) *owner {
	return &owner{tracker: hookstate.NewTracker(cfg), meta: map[session.Key]*meta{}, terms: map[string]*terminal{}}
}

// update collects what one step changed, for publishing.
type update struct {
	changed map[session.Key]bool
	removed map[session.Key]bool
}

func newUpdate() *update {
	return &update{changed: map[session.Key]bool{}, removed: map[session.Key]bool{}}
}

func (u *update) touch(k session.Key) { u.changed[k] = true; delete(u.removed, k) }
func (u *update) drop(k session.Key)  { u.removed[k] = true; delete(u.changed, k) }
func (u *update) empty() bool         { return len(u.changed) == 0 && len(u.removed) == 0 }

func (u *update) change() session.Change {
	var c session.Change
	for k := range u.changed {
		c.Updated = append(c.Updated, k)
	}
	for k := range u.removed {
		c.Removed = append(c.Removed, k)
	}
	sortKeys(c.Updated)
	sortKeys(c.Removed)
	return c
}

func sortKeys(ks []session.Key) { slices.SortFunc(ks, session.Key.Compare) }

// event applies one hook event that arrived at now.
func (o *owner) event(ev hookstate.Event, now time.Time, u *update) {
	key := ev.Key()
	if key.ID == "" {
		return
	}
	isNew := o.tracker.Get(key) == nil
	if isNew {
		if !admits(ev) {
			return
		}
		if from, ok := o.match(ev, now); ok && from != key {
			o.rekey(from, key, now, u)
		}
	}
	if !isNew && ev.Kind == hookstate.KindSessionEnd && o.fromOldTerminal(key, ev) {
		return
	}
	changed, tracked := o.tracker.Apply(key, ev, now)
	if !tracked {
		return
	}
	m := o.meta[key]
	if m == nil {
		m = &meta{}
		o.meta[key] = m
	}
	if isNew && o.tracker.Get(key) != nil && m.terminalID == "" {
		o.team(key, m, ev, now)
	}
	if t := o.terms[ev.Relay.TerminalID]; t != nil && m.terminalID == "" && t.spec.Runtime == key.Runtime {
		m.terminalID = t.spec.ID
		changed = true
	}
	if m.note != "" && ev.AgentID == "" {
		m.note, changed = "", true // the agent spoke: the explanation is stale
	}
	if m.observe(ev, now) || changed {
		u.touch(key)
	}
	o.record(key)
	o.saw(key)
	// Evidence of life: a process check's "gone" is stale now (a resume in
	// a new process); the next check says again.
	if ev.Kind != hookstate.KindSessionEnd && m.facts.Process == hookstate.ProcessGone {
		m.facts.Process = hookstate.ProcessUnknown
	}
	o.subagent(key, m, ev, now, u)
}

// fromOldTerminal reports whether ev comes from a hosted terminal the card
// has moved on from (a restart closed it and started the agent in a new
// one): the old agent's SessionEnd must not end the card.
func (o *owner) fromOldTerminal(key session.Key, ev hookstate.Event) bool {
	m := o.meta[key]
	id := ev.Relay.TerminalID
	return m != nil && id != "" && m.terminalID != "" && id != m.terminalID && o.terms[id] == nil
}

// admits reports whether an event of a session no card has may open one:
// evidence of a live interactive main-agent session. Stop, SessionEnd and
// turn completions of unknown sessions, subagent events, and runs without
// a terminal (claude -p, CI, MCP-spawned agents) create nothing and claim
// nothing.
func admits(ev hookstate.Event) bool {
	switch ev.Kind {
	case hookstate.KindSessionStart, hookstate.KindPrompt, hookstate.KindToolStart,
		hookstate.KindPermission, hookstate.KindQuestion, hookstate.KindNotification:
	default:
		return false
	}
	return ev.AgentID == "" && !terminalLess(ev)
}

// terminalLess: the relay ran (it stamps SentAt) and found no terminal and
// no hosted terminal id. Claude's http hooks carry no relay facts; they are
// given the benefit of the doubt.
func terminalLess(ev hookstate.Event) bool {
	r := ev.Relay
	return !r.SentAt.IsZero() && r.TTY == "" && r.TerminalID == "" && r.TmuxPane == ""
}

// observe records what the event says about the session beyond its state; it
// reports whether anything a card shows changed.
func (m *meta) observe(ev hookstate.Event, now time.Time) bool {
	before := *m
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	if ev.AgentID == "" { // a subagent's cwd and transcript are its own
		set(&m.cwd, ev.Cwd)
		set(&m.transcript, ev.TranscriptPath)
	}
	set(&m.model, ev.Model)
	if ev.Kind == hookstate.KindPrompt && ev.AgentID == "" {
		set(&m.prompt, ev.Prompt)
	}
	r := ev.Relay
	if r.PID > 0 {
		m.pid, m.ppid = r.PID, r.PPID
		m.tty = r.TTY
	}
	set(&m.tmuxPane, r.TmuxPane)
	if k := TerminalKind(r.TermProgram, r.TmuxPane); k != "" {
		m.termKind = k
	}
	m.lastEvent = now
	return m.cwd != before.cwd || m.model != before.model || m.prompt != before.prompt ||
		m.pid != before.pid || m.termKind != before.termKind || m.terminalID != before.terminalID
}

// team links a session that just appeared to its team lead: by
// CLAUDE_CODE_PARENT_SESSION_ID when the relay saw it, else by a
// SubagentStart of another session in the same cwd within teamWindow.
func (o *owner) team(key session.Key, m *meta, ev hookstate.Event, now time.Time) {
	if id := ev.Relay.ParentSessionID; id != "" && id != key.ID {
		m.parent = session.Key{Runtime: key.Runtime, ID: id}
		return
	}
	if ev.Kind != hookstate.KindSessionStart || ev.Cwd == "" {
		return
	}
	for i := len(o.spawns) - 1; i >= 0; i-- {
		s := o.spawns[i]
		if s.parent != key && s.parent.Runtime == key.Runtime && s.cwd == ev.Cwd && now.Sub(s.at) <= teamWindow {
			m.parent = s.parent
			o.spawns = slices.Delete(o.spawns, i, i+1)
			return
		}
	}
}

// subagent keeps the AGENTS tab: Task/Agent calls, SubagentStart/Stop and
// the tool calls made inside each subagent.
func (o *owner) subagent(key session.Key, m *meta, ev hookstate.Event, now time.Time, u *update) {
	find := func(id string) int {
		return slices.IndexFunc(m.subagents, func(s Subagent) bool { return s.ID == id })
	}
	switch {
	case ev.AgentID == "" && ev.Kind == hookstate.KindToolStart && isAgentTool(ev.ToolName):
		if len(m.tasks) < maxSubagents {
			m.tasks = append(m.tasks, ev.ToolSummary)
		}
		return
	case ev.Kind == hookstate.KindSubagentStart:
		if ev.AgentID == "" {
			return
		}
		o.spawns = append(o.spawns, spawn{parent: key, cwd: m.cwd, at: now})
		if len(o.spawns) > maxSpawns {
			o.spawns = o.spawns[len(o.spawns)-maxSpawns:]
		}
		if find(ev.AgentID) >= 0 {
			return
		}
		s := Subagent{ID: ev.AgentID, Type: ev.AgentType, Running: true, Started: now}
		if len(m.tasks) > 0 {
			s.Task, m.tasks = m.tasks[0], m.tasks[1:]
		}
		m.addSubagent(s)
	case ev.Kind == hookstate.KindSubagentStop:
		i := find(ev.AgentID)
		if i < 0 {
			if ev.AgentID == "" {
				return
			}
			m.addSubagent(Subagent{ID: ev.AgentID, Type: ev.AgentType, Started: now})
			i = find(ev.AgentID)
		}
		s := &m.subagents[i]
		s.Running, s.Ended = false, now
		if ev.TranscriptPath != "" && ev.TranscriptPath != m.transcript {
			s.Transcript = ev.TranscriptPath
		}
	case ev.AgentID != "":
		i := find(ev.AgentID)
		if i < 0 {
			m.addSubagent(Subagent{ID: ev.AgentID, Type: ev.AgentType, Running: true, Started: now})
			i = find(ev.AgentID)
		}
		if ev.Kind == hookstate.KindToolStart {
			m.subagents[i].ToolCalls++
		}
		if ev.Kind == hookstate.KindStop {
			m.subagents[i].Running, m.subagents[i].Ended = false, now
		}
	default:
		return
	}
	u.touch(key)
}

func isAgentTool(name string) bool { return name == "Task" || name == "Agent" }

func (m *meta) addSubagent(s Subagent) {
	if len(m.subagents) >= maxSubagents {
		i := slices.IndexFunc(m.subagents, func(s Subagent) bool { return !s.Running })
		if i < 0 {
			i = 0
		}
		m.subagents = slices.Delete(m.subagents, i, i+1)
	}
	m.subagents = append(m.subagents, s)
}

// rekey moves a card (machine and meta) to a new session key.
func (o *owner) rekey(from, to session.Key, now time.Time, u *update) {
	if !o.tracker.Rekey(from, to) {
		return
	}
	if m := o.meta[from]; m != nil {
		delete(o.meta, from)
		o.meta[to] = m
		// The card's earlier session (a resume the CLI refused, /clear, a
		// fresh agent on the card) stays reachable from it.
		if !strings.HasPrefix(from.ID, provisionalStart) {
			m.runs = slices.DeleteFunc(m.runs, func(r Run) bool { return r.Key == from || r.Key == to })
			m.runs = append(m.runs, Run{Key: from, Ended: now})
			if len(m.runs) > maxRuns {
				m.runs = slices.Delete(m.runs, 0, len(m.runs)-maxRuns)
			}
		}
	}
	for _, t := range o.terms {
		if t.key == from {
			t.key = to
		}
	}
	u.drop(from)
	u.touch(to)
}

// tick runs the corrections due at now with the last observed facts.
func (o *owner) tick(now time.Time, u *update) {
	facts := make(map[session.Key]hookstate.Facts, len(o.meta))
	for k, m := range o.meta {
		facts[k] = m.facts
	}
	for _, k := range o.tracker.Tick(now, facts) {
		o.record(k)
		u.touch(k)
	}
	o.settleResumes(now, u)
	o.pruneSpawns(now)
}

func (o *owner) pruneSpawns(now time.Time) {
	o.spawns = slices.DeleteFunc(o.spawns, func(s spawn) bool { return now.Sub(s.at) > teamWindow })
}

// Target is one session a process check looks at.
type Target struct {
	Key session.Key
	PID int    // the agent process the hooks named; 0 when unknown
	Cwd string // for scanners that bind by cwd
	// ToolSince is the start of the oldest tool call without an answer, zero
	// when none: children started since then are a tool still running.
	ToolSince time.Time
}

// Observation is what a process check found about one session.
type Observation struct {
	Facts  hookstate.Facts
	PID    int // the agent process, when the check found it (0: keep the hooks')
	Memory Memory
}

// targets lists what the next process check should look at: every card
// not already ended or asleep, nor connecting — a terminal just (re)started
// has no agent process to judge yet, and what the history says of the
// session (its previous run's pid) is stale: judging by it would end a
// restarted card. Connecting settles by its own timers.
func (o *owner) targets() []Target {
	var ts []Target
	for _, k := range o.tracker.Keys() {
		m := o.tracker.Get(k)
		if m.State().Over() || m.State() == hookstate.StateConnecting {
			continue
		}
		t := Target{Key: k, ToolSince: m.ToolSince()}
		if md := o.meta[k]; md != nil {
			t.PID, t.Cwd = md.pid, md.cwd
		}
		ts = append(ts, t)
	}
	return ts
}

// observed stores a process check's results and runs the corrections.
func (o *owner) observed(obs map[session.Key]Observation, now time.Time, u *update) {
	for k, ob := range obs {
		m := o.meta[k]
		if m == nil || o.tracker.Get(k) == nil {
			continue
		}
		m.facts = ob.Facts
		if ob.PID > 0 && ob.PID != m.pid {
			m.pid = ob.PID
			u.touch(k)
		}
		if ob.Memory != m.memory {
			m.memory = ob.Memory
			u.touch(k)
		}
	}
	o.tick(now, u)
}

// card builds the card of key, false when live has none.
func (o *owner) card(k session.Key) (Card, bool) {
	mc := o.tracker.Get(k)
	if mc == nil {
		return Card{}, false
	}
	c := Card{Key: k, State: mc.State(), Since: mc.Since(), Attention: mc.Attention(),
		PermissionMode: mc.PermissionMode(), Metrics: mc.Metrics(), TurnFailed: mc.TurnFailed()}
	if d, ok := mc.Dialog(); ok {
		c.Dialog = &d
	}
	if m := o.meta[k]; m != nil {
		c.Cwd, c.Transcript, c.Model, c.LastPrompt, c.LastEvent = m.cwd, m.transcript, m.model, m.prompt, m.lastEvent
		c.PID, c.TTY, c.Terminal, c.TerminalID = m.pid, m.tty, m.termKind, m.terminalID
		c.Parent = m.parent
		c.Subagents = slices.Clone(m.subagents)
		c.Memory = m.memory
		c.History = slices.Clone(m.history)
		c.Launch = slices.Clone(m.launch)
		c.Name, c.Note, c.Freed = m.name, m.note, m.freed
		c.Runs = slices.Clone(m.runs)
	}
	c.External = c.TerminalID == ""
	if !c.External {
		c.Terminal = "paddock" // its tmux pane is paddock's own
	}
	return c, true
}
