package hookstate

import (
	"strings"
	"time"
)

// Machine is one session's state machine. It is not safe for concurrent
// use: the owner serialises Apply, Tick and the other calls.
type Machine struct {
	cfg     Config
	runtime string
	spec    Rules

	state State
	since time.Time // when the current state began
	// stateAt is the event time of the last event-driven state change (or of
	// an owner's MarkConnecting/MarkAsleep, or of a process found gone).
	// Hook processes run concurrently and can post out of order; an event
	// stamped before it is stale and changes no state.
	stateAt    time.Time
	lastHook   time.Time // arrival of the last hook
	failed     bool      // the last turn ended on an error (StopFailure)
	lastOutput time.Time // latest terminal output the owner reported
	mode       string    // last permission mode a payload carried

	pending      []pendingTool
	dialogOpen   bool // invariant: true exactly in approval and input
	dialog       Dialog
	questionOpen bool // a question still unanswered, for attention (survives Stop)
	subagents    int  // running subagents (SubagentStart minus SubagentStop)

	inferHold  time.Time // inference held back by running tool children until then
	dialogHold time.Time // dialog expiry held back by a dialog reported open until then

	lastResult   time.Time // newest result token (Stop, turn complete, interrupt)
	readBaseline time.Time

	metrics Metrics
}

// Options describe a new machine.
type Options struct {
	Runtime string
	// Connecting starts the machine in connecting: a hosted terminal whose
	// agent has not sent its first hook.
	Connecting bool
}

// Dialog describes the open approval or question dialog.
type Dialog struct {
	Kind      State  `json:"kind"` // StateApproval or StateInput
	Tool      string `json:"tool,omitempty"`
	Summary   string `json:"summary,omitempty"`
	ToolUseID string `json:"tool_use_id,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	AgentID   string `json:"agent_id,omitempty"`
	// Inferred is true when no hook announced the dialog: a tool timer ran
	// out (permission inference).
	Inferred bool      `json:"inferred,omitempty"`
	OpenedAt time.Time `json:"opened_at"`
}

type pendingTool struct {
	id, name, agent, summary string
	class                    toolClass
	startedAt                time.Time
	due                      time.Time // zero: no inference for this tool
	asked                    bool      // a dialog was announced or inferred for it
}

// spawnsSubagents: a main-agent Task/Agent call (or a tool we do not know,
// such as Codex's multi_agent_v1) runs for as long as its subagents do.
// Other main-agent tools keep their timers: Claude's background subagents
// run on after their Task returned, while the main agent calls Bash.
func (p pendingTool) spawnsSubagents() bool {
	return p.agent == "" && (p.class == classAgent || p.class == classOther)
}

// maxPending bounds the tools tracked per session against junk input.
const maxPending = 64

// NewMachine returns a machine in idle (or connecting) at now.
func NewMachine(cfg Config, opts Options, now time.Time) *Machine {
	cfg = cfg.withDefaults()
	m := &Machine{
		cfg:          cfg,
		runtime:      opts.Runtime,
		spec:         cfg.rules(opts.Runtime),
		state:        StateIdle,
		since:        now,
		lastHook:     now,
		readBaseline: cfg.ReadBaseline,
	}
	if opts.Connecting {
		m.state = StateConnecting
		m.stateAt = now
	}
	return m
}

// State is the current state.
func (m *Machine) State() State { return m.state }

// TurnFailed reports whether the last turn ended on an error the agent
// reported (until the next prompt).
func (m *Machine) TurnFailed() bool { return m.failed }

// Since is when the current state began.
func (m *Machine) Since() time.Time { return m.since }

// Runtime is the runtime the machine was made for.
func (m *Machine) Runtime() string { return m.runtime }

// PermissionMode is the last permission mode a hook payload carried.
func (m *Machine) PermissionMode() string { return m.mode }

// Dialog returns the open approval/question dialog, if any.
func (m *Machine) Dialog() (Dialog, bool) { return m.dialog, m.dialogOpen }

// view is what a change is judged by: what a board shows.
type view struct {
	state     State
	attention Attention
}

func (m *Machine) view() view { return view{m.state, m.Attention()} }

// Apply feeds one event that arrived at now. It reports whether the state
// or the attention changed. Events of other sessions are the owner's
// business: Apply does not look at ev.SessionID.
func (m *Machine) Apply(ev Event, now time.Time) (changed bool) {
	before := m.view()
	at := ev.Time
	if at.IsZero() || at.After(now) {
		at = now
	}
	if !ev.Time.IsZero() {
		m.metrics.HookLatency.add(now.Sub(ev.Time))
	}
	if now.After(m.lastHook) {
		m.lastHook = now
	}
	if ev.PermissionMode != "" {
		m.mode = ev.PermissionMode
	}
	prev := m.state
	if !ev.Time.IsZero() && ev.Time.Before(m.stateAt) {
		m.applyStale(ev, at)
	} else {
		m.apply(ev, at)
	}
	if m.state != prev && !ev.Time.IsZero() {
		m.metrics.Detection.add(now.Sub(ev.Time))
	}
	return m.view() != before
}

// applyStale keeps the bookkeeping of an event older than the current
// state's cause without letting it change the state.
func (m *Machine) applyStale(ev Event, at time.Time) {
	switch ev.Kind {
	case KindToolEnd:
		m.removePending(ev)
	case KindSubagentStart:
		m.subagentStart()
	case KindSubagentStop:
		m.subagentStop(at)
	}
}

func (m *Machine) apply(ev Event, at time.Time) {
	if m.state.Over() {
		if !ev.Kind.revives() {
			return
		}
		m.subagents = 0
	}
	switch ev.Kind {
	case KindSessionStart:
		m.clearTurn(at)
		m.subagents = 0
		m.enter(StateIdle, at, true)

	case KindPrompt:
		if ev.Steer && (m.state == StateWorking || m.state == StatePrompting) {
			break // steering a running turn changes nothing
		}
		m.clearTurn(at)
		m.failed = false
		m.enter(StatePrompting, at, true)

	case KindBusy:
		switch m.state {
		case StateIdle, StateWaiting, StateConnecting, StateEnded, StateAsleep:
			m.enter(StateWorking, at, true)
		}

	case KindToolStart:
		m.addPending(ev, at)
		if m.dialogOpen {
			if m.dialog.AgentID != ev.AgentID {
				break // another agent's tool; the dialog is still open
			}
			m.closeDialog(at, closeAnswered)
		}
		m.enter(StateWorking, at, true)

	case KindToolEnd:
		m.removePending(ev)
		if m.dialogOpen {
			if m.dialog.AgentID != ev.AgentID {
				break
			}
			m.closeDialog(at, closeAnswered)
			m.enter(StateWorking, at, true)
			break
		}
		// A tool end while waiting or idle is a straggler of an ended turn.
		if m.state == StatePrompting || m.state == StateConnecting {
			m.enter(StateWorking, at, true)
		}

	case KindPermission, KindQuestion:
		kind := StateApproval
		if ev.Kind == KindQuestion || IsQuestionTool(ev.ToolName) {
			kind = StateInput
		}
		d := Dialog{Kind: kind, Tool: ev.ToolName, Summary: ev.ToolSummary,
			ToolUseID: ev.ToolUseID, RequestID: ev.RequestID, AgentID: ev.AgentID}
		if p := m.markAsked(ev); p != nil {
			if d.Tool == "" {
				d.Tool = p.name
			}
			if d.Summary == "" {
				d.Summary = p.summary
			}
			if d.ToolUseID == "" {
				d.ToolUseID = p.id
			}
		}
		m.openDialog(d, at)

	case KindReplied:
		if m.dialogOpen {
			m.closeDialog(at, closeAnswered)
			m.enter(StateWorking, at, true)
		}

	case KindNotification:
		m.notification(ev, at)

	case KindStop, KindTurnComplete:
		if ev.Kind == KindStop && m.spec.StopIncludesSubagents && m.subagents > 0 {
			break // a subagent's turn ended, not the session's
		}
		m.pending = nil
		m.inferHold = time.Time{}
		if m.dialogOpen {
			m.closeDialog(at, closeStop)
		}
		m.result(at)
		m.failed = ev.Kind == KindStop && ev.Failed
		m.enter(StateWaiting, at, true)

	case KindInterrupt:
		if m.dialogOpen {
			m.closeDialog(at, closeAnswered) // Esc on the dialog: the user denied it
		}
		m.clearTurn(at)
		m.result(at)
		m.enter(StateWaiting, at, true)

	case KindSessionEnd:
		if m.state == StateConnecting {
			break // the previous incarnation of a restarted terminal
		}
		m.clearTurn(at)
		m.subagents = 0
		m.enter(StateEnded, at, true)

	case KindSubagentStart:
		m.subagentStart()

	case KindSubagentStop:
		m.subagentStop(at)
	}
	if m.state == StateConnecting && ev.Kind != KindSessionEnd {
		m.enter(StateIdle, at, true) // any hook proves the agent is up
	}
}

func (m *Machine) notification(ev Event, at time.Time) {
	d := m.cfg.Density
	switch ev.NotificationType {
	case "permission_prompt":
		if !d.atLeast(DensityMedium) || m.dialogOpen {
			return
		}
		if p := m.oldestUnasked(); p != nil && m.state == StateWorking {
			p.asked = true
			kind := StateApproval
			if p.class == classQuestion {
				kind = StateInput
			}
			m.openDialog(Dialog{Kind: kind, Tool: p.name, Summary: p.summary,
				ToolUseID: p.id, AgentID: p.agent}, at)
			return
		}
		if d.atLeast(DensityHigh) && (m.state == StateWorking || m.state == StatePrompting) {
			m.openDialog(Dialog{Kind: StateApproval, Summary: ev.Message}, at)
		}
	case "elicitation_dialog":
		if d.atLeast(DensityHigh) && !m.dialogOpen &&
			(m.state == StateWorking || m.state == StatePrompting) {
			m.openDialog(Dialog{Kind: StateInput, Summary: ev.Message}, at)
		}
	case "idle_prompt":
		// The agent says it sits idle at its prompt: a Stop was lost.
		if d.atLeast(DensityMedium) && !m.dialogOpen &&
			(m.state == StatePrompting || m.state == StateWorking) {
			m.pending = nil
			m.enter(StateWaiting, at, true)
		}
	}
}

// Tick applies the corrections due at now, given what the owner observed.
// It reports whether the state or the attention changed. Call it at
// NextDeadline and after each process check.
func (m *Machine) Tick(now time.Time, f Facts) (changed bool) {
	before := m.view()
	if out := f.OutputAt; !out.IsZero() {
		if out.After(now) {
			out = now
		}
		if out.After(m.lastOutput) {
			m.lastOutput = out
		}
	}
	if f.Process == ProcessGone && !m.state.Over() {
		m.clearTurn(now)
		m.subagents = 0
		m.enter(StateEnded, now, false)
		m.stateAt = now // hooks stamped before the process died are stragglers
		return m.view() != before
	}
	if m.dialogOpen && m.dialog.Inferred && m.dialog.Kind == StateApproval && f.ToolChildren {
		// The tool runs after all: it was approved at the desk, or never asked.
		m.closeDialog(now, closeQuiet)
		m.enter(StateWorking, now, false)
	}
	for range 16 { // each round fires one timer or holds one back
		t := m.nextTimer()
		if t.due.IsZero() || t.due.After(now) {
			break
		}
		m.fire(t, now, f)
	}
	return m.view() != before
}

// NextDeadline is the earliest time at which Tick may change something
// without a new event or fact, or the zero time when no timer runs. The
// owner schedules one timer for it instead of polling.
func (m *Machine) NextDeadline() time.Time { return m.nextTimer().due }

type timerKind int8

const (
	timerNone timerKind = iota
	timerConnecting
	timerPrompting
	timerWaiting
	timerDialog
	timerWorking
	timerInfer
)

type timer struct {
	kind timerKind
	due  time.Time
	tool int // index into pending, for timerInfer
}

func (m *Machine) nextTimer() timer {
	var best timer
	consider := func(t timer) {
		if best.kind == timerNone || t.due.Before(best.due) {
			best = t
		}
	}
	c := m.cfg
	switch m.state {
	case StateConnecting:
		if m.spec.ConnectingTimesOut {
			consider(timer{kind: timerConnecting, due: m.since.Add(c.ConnectingIdle)})
		}
	case StatePrompting:
		base := latest(m.since, m.lastHook, m.lastOutput)
		consider(timer{kind: timerPrompting, due: base.Add(c.PromptingQuiet)})
	case StateWaiting:
		consider(timer{kind: timerWaiting, due: m.since.Add(c.WaitingIdle)})
	case StateApproval, StateInput:
		consider(timer{kind: timerDialog, due: latest(m.since.Add(c.DialogIdle), m.dialogHold)})
	case StateWorking:
		consider(timer{kind: timerWorking, due: latest(m.since, m.lastHook).Add(c.WorkingIdle)})
		for i, p := range m.pending {
			if p.asked || p.due.IsZero() {
				continue
			}
			if m.subagents > 0 && p.spawnsSubagents() {
				continue // the main agent waits on its subagents, not on a dialog
			}
			due := p.due
			if p.class != classQuestion {
				due = latest(due, m.inferHold)
			}
			consider(timer{kind: timerInfer, due: due, tool: i})
		}
	}
	return best
}

func (m *Machine) fire(t timer, now time.Time, f Facts) {
	switch t.kind {
	case timerConnecting:
		m.correct(StateIdle, t.due, now)
	case timerPrompting:
		// No hook and no output: the turn ended without a Stop we saw. (A
		// real Esc sends Stop and never comes this way.)
		m.pending = nil
		m.correct(StateWaiting, t.due, now)
	case timerWaiting:
		m.correct(StateIdle, t.due, now)
	case timerDialog:
		if f.WaitingFor != "" {
			m.dialogHold = now.Add(m.cfg.Recheck) // the agent reports it still open
			return
		}
		m.clearTurn(t.due)
		m.correct(StateIdle, t.due, now)
	case timerWorking:
		m.clearTurn(t.due)
		m.correct(StateIdle, t.due, now)
	case timerInfer:
		p := &m.pending[t.tool]
		if p.class != classQuestion && f.ToolChildren {
			m.inferHold = now.Add(m.cfg.Recheck) // a slow tool still running
			return
		}
		p.asked = true
		kind := StateApproval
		if p.class == classQuestion {
			kind = StateInput
		}
		prev := m.state
		m.openDialog(Dialog{Kind: kind, Tool: p.name, Summary: p.summary, ToolUseID: p.id,
			AgentID: p.agent, Inferred: true, OpenedAt: p.startedAt}, t.due)
		if m.state != prev {
			m.metrics.Detection.add(now.Sub(t.due))
		}
	}
}

// correct enters a state because a timer ran out at due (detected at now).
func (m *Machine) correct(s State, due, now time.Time) {
	if m.state != s {
		m.metrics.Detection.add(now.Sub(due))
	}
	m.enter(s, due, false)
}

// enter switches state at time at. eventDriven changes move the ordering
// guard; timer corrections do not (a hook stamped just before a correction
// but delivered after it must still count).
func (m *Machine) enter(s State, at time.Time, eventDriven bool) {
	if eventDriven && at.After(m.stateAt) {
		m.stateAt = at
	}
	if m.state == s {
		return
	}
	m.state = s
	m.since = latest(at, m.since)
	m.dialogHold = time.Time{}
	if s != StateWorking {
		m.inferHold = time.Time{}
	}
}

type closeHow int8

const (
	closeAnswered closeHow = iota // the agent went on: the user answered (metered)
	closeStop                     // the turn ended around it (a question stays unanswered for attention)
	closeQuiet                    // reset, timeout, or evidence the tool ran: not metered
)

func (m *Machine) openDialog(d Dialog, at time.Time) {
	if m.dialogOpen && strings.EqualFold(m.dialog.Tool, d.Tool) && m.dialog.AgentID == d.AgentID {
		// The same dialog again (a second PermissionRequest hook, or the
		// real request for an inferred one): keep when it opened.
		d.OpenedAt = m.dialog.OpenedAt
		if d.Summary == "" {
			d.Summary = m.dialog.Summary
		}
		if d.RequestID == "" {
			d.RequestID = m.dialog.RequestID
		}
		if d.ToolUseID == "" {
			d.ToolUseID = m.dialog.ToolUseID
		}
	}
	if d.OpenedAt.IsZero() {
		d.OpenedAt = at
	}
	m.dialog = d
	m.dialogOpen = true
	if d.Kind == StateInput {
		m.questionOpen = true
	}
	m.enter(d.Kind, at, !d.Inferred)
}

func (m *Machine) closeDialog(at time.Time, how closeHow) {
	if how == closeAnswered {
		m.metrics.PermissionResponse.add(at.Sub(m.dialog.OpenedAt))
	}
	if how != closeStop {
		m.questionOpen = false
	}
	m.dialogOpen = false
	m.dialog = Dialog{}
	m.dialogHold = time.Time{}
}

// clearTurn forgets everything of the current turn: tools, dialogs,
// unanswered questions.
func (m *Machine) clearTurn(at time.Time) {
	m.pending = nil
	m.inferHold = time.Time{}
	if m.dialogOpen {
		m.closeDialog(at, closeQuiet)
	}
	m.questionOpen = false
}

func (m *Machine) subagentStart() {
	if m.subagents < maxPending {
		m.subagents++
	}
}

func (m *Machine) subagentStop(at time.Time) {
	if m.subagents == 0 {
		return
	}
	m.subagents--
	if m.subagents > 0 {
		return
	}
	// The spawning tools were exempt while subagents ran; give them a fresh
	// timer rather than firing at once.
	for i := range m.pending {
		p := &m.pending[i]
		if !p.spawnsSubagents() || p.asked || p.due.IsZero() {
			continue
		}
		if d, ok := m.cfg.toolTimeout(p.name); ok {
			p.due = latest(p.due, at.Add(d))
		}
	}
}

func (m *Machine) addPending(ev Event, at time.Time) {
	if ev.ToolUseID != "" {
		for _, p := range m.pending {
			if p.id == ev.ToolUseID {
				return // the same call reported twice (Pi tool_call, OpenCode part + hook)
			}
		}
	}
	p := pendingTool{id: ev.ToolUseID, name: ev.ToolName, agent: ev.AgentID,
		summary: ev.ToolSummary, class: classify(ev.ToolName), startedAt: at}
	if m.spec.InferPermissions && !inferenceOff(m.mode, ev.ToolName) {
		if d, ok := m.cfg.toolTimeout(ev.ToolName); ok {
			p.due = at.Add(d)
		}
	}
	if len(m.pending) >= maxPending {
		m.pending = append(m.pending[:0], m.pending[1:]...)
	}
	m.pending = append(m.pending, p)
}

func (m *Machine) findPending(ev Event, unaskedOnly bool) int {
	if ev.ToolUseID != "" {
		for i, p := range m.pending {
			if p.id == ev.ToolUseID {
				return i
			}
		}
	}
	if ev.ToolName != "" {
		for i := len(m.pending) - 1; i >= 0; i-- {
			p := m.pending[i]
			if strings.EqualFold(p.name, ev.ToolName) && p.agent == ev.AgentID && !(unaskedOnly && p.asked) {
				return i
			}
		}
	}
	return -1
}

func (m *Machine) removePending(ev Event) {
	if i := m.findPending(ev, false); i >= 0 {
		m.pending = append(m.pending[:i], m.pending[i+1:]...)
	}
}

// markAsked finds the pending tool a dialog is about and stops its timer:
// by call id, else the newest unasked call of that tool, else the newest
// unasked call of the same agent (OpenCode asks for "edit" about "write").
func (m *Machine) markAsked(ev Event) *pendingTool {
	i := m.findPending(ev, true)
	if i < 0 {
		for j := len(m.pending) - 1; j >= 0; j-- {
			if !m.pending[j].asked && m.pending[j].agent == ev.AgentID {
				i = j
				break
			}
		}
	}
	if i < 0 {
		return nil
	}
	m.pending[i].asked = true
	return &m.pending[i]
}

func (m *Machine) oldestUnasked() *pendingTool {
	for i := range m.pending {
		if !m.pending[i].asked {
			return &m.pending[i]
		}
	}
	return nil
}

// MarkConnecting puts the machine into connecting: a new hosted terminal,
// or a restart (a restart shows no ended in between — the old
// process's SessionEnd is ignored while connecting).
func (m *Machine) MarkConnecting(now time.Time) (changed bool) {
	before := m.view()
	m.clearTurn(now)
	m.subagents = 0
	m.enter(StateConnecting, now, false)
	m.stateAt = latest(m.stateAt, now)
	return m.view() != before
}

// Settle ends a connecting no event will end: a resume or restart whose
// agent reported nothing in time goes back to idle ("no event
// within two minutes → idle"). Other states are left alone.
func (m *Machine) Settle(now time.Time) (changed bool) {
	if m.state != StateConnecting {
		return false
	}
	m.enter(StateIdle, now, false)
	m.stateAt = latest(m.stateAt, now)
	return true
}

// MarkAsleep records that paddock closed the idle terminal to free memory.
// An asleep session ignores SessionEnd and a gone process; a SessionStart,
// prompt or tool event wakes it.
func (m *Machine) MarkAsleep(now time.Time) (changed bool) {
	before := m.view()
	m.clearTurn(now)
	m.subagents = 0
	m.enter(StateAsleep, now, false)
	m.stateAt = latest(m.stateAt, now)
	return m.view() != before
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// ToolSince is when the oldest tool call still waiting for its end (and
// not yet shown as a dialog) started, zero when there is none. The owner's
// process check looks for child processes started since then: a slow tool
// still running is not a permission wait.
func (m *Machine) ToolSince() time.Time {
	if p := m.oldestUnasked(); p != nil {
		return p.startedAt
	}
	return time.Time{}
}
