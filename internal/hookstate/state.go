package hookstate

import (
	"fmt"
	"time"
)

// State is a session's live state. The zero value is not a state.
type State string

// The states, in the order the board explains them.
const (
	StateConnecting State = "connecting" // hosted terminal created, no hook yet
	StateIdle       State = "idle"       // agent at its prompt, nothing pending
	StatePrompting  State = "prompting"  // a prompt was submitted, no tool yet
	StateWorking    State = "working"    // tools are running
	StateApproval   State = "approval"   // a permission dialog waits for the user
	StateInput      State = "input"      // a question or plan dialog waits for the user
	StateWaiting    State = "waiting"    // the turn ended; the agent waits for the user
	StateEnded      State = "ended"      // the session ended or its process is gone
	StateAsleep     State = "asleep"     // paddock closed the idle terminal on purpose
)

// States lists every state, for views that need them all (colours, filters).
func States() []State {
	return []State{StateConnecting, StateIdle, StatePrompting, StateWorking,
		StateApproval, StateInput, StateWaiting, StateEnded, StateAsleep}
}

// Over reports whether the session is not running: ended, or asleep
// (paddock closed its terminal).
func (s State) Over() bool { return s == StateEnded || s == StateAsleep }

// NeedsUser reports whether the state is one of the "needs you" states.
func (s State) NeedsUser() bool { return s == StateApproval || s == StateInput }

// Attention is the card's dot, kept apart from State and liveness:
// waiting-for-answer > working > unread new result > none.
type Attention string

// Attention values, highest priority first. AttentionNone is the zero value.
const (
	AttentionAnswer  Attention = "answer"  // a structured dialog waits for the user (yellow)
	AttentionWorking Attention = "working" // the current turn is running (green)
	AttentionUnread  Attention = "unread"  // a result newer than the read baseline (red)
	AttentionNone    Attention = ""
)

// Density selects which direct permission signals are used:
// PermissionRequest at every density, the permission Notification at medium
// and high.
type Density string

// Densities. The zero value behaves as DensityMedium.
const (
	// DensityLow: PermissionRequest and the inference timers only.
	DensityLow Density = "low"
	// DensityMedium adds Notification permission_prompt while a tool call is
	// in flight, and Notification idle_prompt as a lost-Stop correction.
	DensityMedium Density = "medium"
	// DensityHigh also honours permission_prompt with no known tool call in
	// flight (a lost PreToolUse) and maps elicitation_dialog to input.
	DensityHigh Density = "high"
)

// ParseDensity accepts "low", "medium" or "high"; "" means medium.
func ParseDensity(s string) (Density, error) {
	switch Density(s) {
	case "":
		return DensityMedium, nil
	case DensityLow, DensityMedium, DensityHigh:
		return Density(s), nil
	}
	return "", fmt.Errorf("hookstate: unknown density %q (want low, medium or high)", s)
}

func (d Density) atLeast(min Density) bool {
	rank := func(d Density) int {
		switch d {
		case DensityLow:
			return 0
		case DensityHigh:
			return 2
		}
		return 1
	}
	return rank(d) >= rank(min)
}

// Process is what the owner's process check says about a session's agent.
type Process int8

// Process facts. The zero value is "not checked" and changes nothing.
const (
	ProcessUnknown Process = iota
	ProcessAlive
	ProcessGone
)

// Facts are what the owner observed outside the hooks, handed to Tick.
// Zero values mean "not known" and never trigger a correction on their own.
type Facts struct {
	// OutputAt is when the session's terminal last produced output (hosted
	// sessions; zero when unknown). Output keeps prompting from timing out.
	OutputAt time.Time
	// WaitingFor is non-empty while the agent itself reports a dialog open,
	// e.g. Claude's ~/.claude/sessions/<pid>.json "waitingFor". Such a
	// dialog does not expire.
	WaitingFor string
	// Process is the result of the last process check.
	Process Process
	// ToolChildren is true while the agent has tool child processes running
	// (a build, a test run). A slow tool still running is not a permission
	// wait.
	ToolChildren bool
}
