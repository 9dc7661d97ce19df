package hookstate

import (
	"time"

	"paddock/internal/session"
)

// Kind is what a hook event means for the state machine, whatever the
// runtime called it. Decoders map every runtime's event names onto these.
type Kind string

// Event kinds.
const (
	KindSessionStart  Kind = "session_start"  // → idle
	KindPrompt        Kind = "prompt"         // → prompting
	KindBusy          Kind = "busy"           // the agent is processing (OpenCode busy, Pi agent_start): idle/waiting → working
	KindToolStart     Kind = "tool_start"     // → working, starts the inference timer
	KindToolEnd       Kind = "tool_end"       // → working, stops it
	KindPermission    Kind = "permission"     // → approval, or input for question tools
	KindQuestion      Kind = "question"       // → input (OpenCode question.asked, MCP elicitation)
	KindReplied       Kind = "replied"        // a dialog was answered → working
	KindNotification  Kind = "notification"   // density-dependent (NotificationType)
	KindStop          Kind = "stop"           // → waiting
	KindTurnComplete  Kind = "turn_complete"  // → waiting (Codex notify, Cursor afterAgentResponse)
	KindInterrupt     Kind = "interrupt"      // → waiting (Esc: Codex/Kimi Interrupt)
	KindSessionEnd    Kind = "session_end"    // → ended
	KindSubagentStart Kind = "subagent_start" // no state change; counted
	KindSubagentStop  Kind = "subagent_stop"  // no state change; counted
	KindActivity      Kind = "activity"       // a known or unknown event that changes nothing but proves life
)

// revives reports whether an event of this kind brings an ended or asleep
// session back (a resume, or hooks of a session we thought gone).
func (k Kind) revives() bool {
	switch k {
	case KindSessionStart, KindPrompt, KindBusy, KindToolStart, KindPermission, KindQuestion:
		return true
	}
	return false
}

// opensSession reports whether an event of this kind, for a session the
// Tracker has never seen, is evidence of a live interactive session worth a
// machine. Stop, SessionEnd, notify turn completions and the like of unknown
// sessions are ignored (Codex's title threads fire them, for one).
func (k Kind) opensSession() bool {
	switch k {
	case KindSessionStart, KindPrompt, KindToolStart, KindPermission, KindQuestion, KindNotification:
		return true
	}
	return false
}

// Event is one hook event, normalised. Strings are summaries for display and
// matching, never whole tool inputs: the owner keeps the raw payload when it
// needs more (approvals echo the original questions).
type Event struct {
	Runtime   string // "claude", "codex", "opencode", "kimi", "cursor", "pi"
	SessionID string // the runtime's native session id; "" for process-level events
	Name      string // the runtime's own event name (hook_event_name, bus type, …)
	Kind      Kind
	// Time is when the agent fired the event (relay stamp, or the payload's
	// own timestamp); zero when unknown, and Apply then uses its arrival.
	Time time.Time

	Cwd            string
	TranscriptPath string
	Model          string
	PermissionMode string // default, plan, acceptEdits, auto, dontAsk, bypassPermissions; "" when absent
	TurnID         string

	ToolName    string
	ToolUseID   string // tool_use_id / tool_call_id / callID, when the runtime gives one
	ToolSummary string // command, path, url or question text, truncated
	RequestID   string // permission or question request id (OpenCode per_/que_, Kimi approval_)
	Reply       string // answer of a Replied event: once/always/reject, approved/rejected, Yes/No

	NotificationType string // permission_prompt, idle_prompt, elicitation_dialog, …
	// Failed marks a Stop that ended the turn on an error the agent
	// reports (an API error, a rate limit): StopFailure.
	Failed  bool
	Message string // notification text or last assistant message, truncated
	Prompt  string // submitted prompt, truncated
	Steer   bool   // the prompt steers a running turn (Kimi is_steer)
	Source  string // SessionStart source (startup, resume, clear, …)
	Reason  string // SessionEnd / Interrupt / stop reason

	AgentID   string // set when the event comes from inside a subagent
	AgentType string

	Relay RelayInfo // what the relay adds; empty for Claude http hooks unless the listener fills it
}

// Key is the session key of the event's session.
func (e Event) Key() session.Key { return session.Key{Runtime: e.Runtime, ID: e.SessionID} }

// RelayField is the top-level payload field under which `paddock hook`
// adds what the agent leaves out: a RelayInfo marshalled as JSON. Decode
// reads it into Event.Relay; the agent's own fields are never touched. For
// Claude's http hooks there is no relay process: the listener fills
// Event.Relay from the request's headers after Decode.
const RelayField = "paddock"

// RelayInfo is what the relay (`paddock hook`) knows about the hook's
// process and adds to the payload under RelayField. The injected terminal
// id is also accepted as a top-level "agent_terminal_id" field.
type RelayInfo struct {
	TerminalID      string    `json:"terminal_id,omitempty"`       // PADDOCK_TERMINAL_ID of a hosted terminal
	PID             int       `json:"pid,omitempty"`               // the agent process (the hook's parent)
	PPID            int       `json:"ppid,omitempty"`              // the agent's parent (often the shell)
	TTY             string    `json:"tty,omitempty"`               // "" for terminal-less runs (claude -p, CI)
	TermProgram     string    `json:"term_program,omitempty"`      // TERM_PROGRAM
	TmuxPane        string    `json:"tmux_pane,omitempty"`         // TMUX_PANE
	ParentSessionID string    `json:"parent_session_id,omitempty"` // CLAUDE_CODE_PARENT_SESSION_ID (teams)
	SentAt          time.Time `json:"sent_at,omitzero"`            // when the hook command started
}
