package live

import (
	"slices"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// Card is what the live board knows about one session from its hooks and
// process checks: a copy, safe to keep and read anywhere.
type Card struct {
	Key       session.Key
	State     hookstate.State
	Since     time.Time // when State began
	Attention hookstate.Attention
	// Dialog is the open approval or question, when State is approval or
	// input.
	Dialog         *hookstate.Dialog
	PermissionMode string

	Cwd        string
	Transcript string
	Model      string
	LastPrompt string
	LastEvent  time.Time // arrival of the newest hook

	PID        int    // the agent process, when a hook or a scan named it
	TTY        string // its terminal device
	Terminal   string // terminal kind for display: "VS Code", "tmux", "iTerm"…; "" unknown
	TerminalID string // paddock's hosted terminal, when it runs in one
	External   bool   // not started by paddock: matched to no hosted terminal
	Parent     session.Key

	Subagents []Subagent
	Metrics   hookstate.Metrics
	Memory    Memory
	// History is the card's recent states, oldest first (at most 32).
	History []Transition

	// Launch is how paddock started the agent (hosted's encoding), when it
	// did: Restart and Reconnect start it the same way again.
	Launch []byte
	Name   string // the user's name for the session, when given
	// Note explains a state paddock chose rather than an agent reported
	// (a resume that produced no event); cleared by the next event.
	Note string
	// Freed is the resident memory closed when paddock put the session to
	// sleep; 0 otherwise.
	Freed uint64
	// Runs are the card's earlier sessions, oldest first (at most five).
	Runs []Run
	// TurnFailed: the last turn ended on an error the agent reported (an
	// API error, a rate limit), until the next prompt.
	TurnFailed bool
}

// Run is an earlier session shown on the same card: the conversation
// before a resume became a new session id.
type Run struct {
	Key   session.Key `json:"key"`
	Ended time.Time   `json:"ended"`
}

// Transition is one entry of a card's state history.
type Transition struct {
	State hookstate.State `json:"state"`
	At    time.Time       `json:"at"`
}

// NeedsUser reports whether the card belongs on the "needs you" strip.
func (c Card) NeedsUser() bool { return c.State.NeedsUser() }

// Subagent is one Agent/Task subagent reported by its main session's hooks.
type Subagent struct {
	ID         string
	Type       string // agent_type: Explore, general-purpose, …
	Task       string // the Task/Agent call's description or prompt, when seen
	Running    bool
	ToolCalls  int
	Started    time.Time
	Ended      time.Time
	Transcript string // its own conversation file (Claude subagents/agent-*.jsonl)
}

// Memory is the resident memory of a session's agent process with its
// child processes (tool runs, MCP servers), from the last process check.
type Memory struct {
	RSS       uint64
	Processes int
}

// maxSubagents bounds the subagents kept per session against junk input;
// the oldest finished ones go first.
const maxSubagents = 64

func (c Card) clone() Card {
	c.Subagents = slices.Clone(c.Subagents)
	c.History = slices.Clone(c.History)
	c.Launch = slices.Clone(c.Launch)
	c.Runs = slices.Clone(c.Runs)
	if c.Dialog != nil {
		d := *c.Dialog
		c.Dialog = &d
	}
	return c
}
