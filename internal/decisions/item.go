// Package decisions holds the approvals, questions and plans agents wait on
// while the phone decides, and guarantees each resolves exactly once: the
// first decision wins (one mutex in memory, a guarded UPDATE in the store),
// a decision is recorded before the waiting hook learns it, and the hook
// learns it once, before the decision call returns. A decision the store
// cannot record is refused and the item waits on.
//
// It knows nothing of HTTP, hooks or any agent's wire format: callers turn
// an agent's request into an Item and an Outcome back into the agent's
// answer. It must never auto-deny: an item whose hold ends is Expired, and
// the agent's own prompt takes over. It never logs or audits an item's
// input or answers.
package decisions

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"

	"paddock/internal/session"
)

// Kind is what an item asks of the user.
type Kind string

// Kinds of item.
const (
	KindApproval Kind = "approval" // may the agent use this tool?
	KindQuestion Kind = "question" // which option? (AskUserQuestion)
	KindPlan     Kind = "plan"     // approve the plan, or keep planning
)

// Verbs a Decision may carry; an Item lists the ones its runtime accepts in
// Can.
const (
	VerbAllow  = "allow"
	VerbDeny   = "deny"
	VerbAlways = "always"
	VerbAnswer = "answer"
)

// Resolution is how an item ended; Pending while it waits.
type Resolution string

// Resolutions.
const (
	Pending   Resolution = ""
	Allowed   Resolution = "allowed"
	Denied    Resolution = "denied"
	Always    Resolution = "always"    // allowed with the suggested permanent rule
	Answered  Resolution = "answered"  // a question answered from paddock
	Desk      Resolution = "desk"      // answered at the desk (in the agent's own terminal)
	Expired   Resolution = "expired"   // its hold ended (timeout, or paddock restarted): the agent's own prompt took over
	Withdrawn Resolution = "withdrawn" // the agent stopped waiting (the hook hung up, the session ended)
)

// Limits on what an item and a decision may carry; beyond them Open and
// Decide return ErrInvalid.
const (
	MaxInput     = 256 << 10 // Input, and Suggestions, in bytes
	MaxQuestions = 16
	MaxOptions   = 32       // per question
	MaxText      = 8 << 10  // a deny message, an answer, a question, a label, a description
	MaxReason    = 64 << 10 // what the agent said about it
	maxShort     = 1 << 10  // ids, tool names, "by"
	maxCwd       = 4 << 10
	maxPending   = 1024 // items waiting at once; more is a runaway agent
)

// Option is one choice of a question.
type Option struct{ Label, Description string }

// Question is one question of an AskUserQuestion call. Its text is the key
// of its answer, so the texts of an item's questions are unique.
type Question struct {
	Question, Header string
	Options          []Option
	MultiSelect      bool
}

// Item is one thing an agent waits on. Values handed out are copies.
type Item struct {
	ID          string // stable, unguessable: "itm_" + 32 hex digits
	Kind        Kind
	Key         session.Key
	Tool        string // Bash, Edit, AskUserQuestion, ExitPlanMode, mcp__…
	ToolUseID   string
	Input       json.RawMessage // the tool's full input, as the agent sent it
	Suggestions json.RawMessage // Claude's permission_suggestions (raw), for "always"
	Questions   []Question      // Kind question
	Reason      string          // what the agent said about it, may be ""
	Cwd         string
	Can         []string // verbs this runtime takes: e.g. allow, deny, always; or answer, deny
	FreeText    bool     // questions: a free-text answer is allowed
	Created     time.Time
	Expires     time.Time // zero: no timer; the item waits until decided or released

	Resolution Resolution
	ResolvedBy string // "device:<id>", "token:<id>", "desk", "paddock"
	ResolvedAt time.Time
	Message    string            // deny message (to the agent)
	Answers    map[string]string // question text -> answer (multi-select labels joined with ", ")
}

// Decision is a user's answer to an item.
type Decision struct {
	Verb string
	// Message is told to the agent with deny; ignored with other verbs.
	Message string
	// Answers, with answer, has one entry per question, keyed by the
	// question's text: the answer exactly as the agent is to get it. For a
	// single-select question that is one option's label; for multi-select,
	// the chosen labels joined with ", " (in any order, the form Claude
	// takes); with FreeText any non-empty text instead, newlines allowed.
	// Ignored with other verbs.
	Answers map[string]string
	By      string // who decided: "device:<id>", "token:<id>"; recorded and audited
}

// Outcome is what a waiting hook learns, once.
type Outcome struct {
	Item     Item
	Decision Decision // zero unless resolved by Decide
}

// Errors callers map to their own; compare with errors.Is / errors.As.
var (
	ErrNotFound = errors.New("pending: no such item")
	// ErrInvalid is an item Open cannot take or a decision this item
	// cannot take; the wrapping error says which in plain words, safe to
	// show the user.
	ErrInvalid = errors.New("pending: invalid")
	// ErrNotRecorded is a decision (or an item) the store could not
	// record: nothing was delivered and the item still waits (or was
	// never opened). The wrapped error says why (a *store.WriteError
	// when the disk refused it).
	ErrNotRecorded = errors.New("pending: not recorded")
)

// ResolvedError is returned when an item was resolved already: the first
// decision won. Its text says how, in words fit for the user.
type ResolvedError struct{ Item Item }

func (e *ResolvedError) Error() string {
	switch e.Item.Resolution {
	case Allowed:
		return "already answered here: allowed"
	case Always:
		return "already answered here: always allowed"
	case Denied:
		return "already answered here: denied"
	case Answered:
		return "already answered here"
	case Desk:
		return "answered at the desk"
	case Expired:
		return "expired: the agent's own prompt took over"
	case Withdrawn:
		return "withdrawn: the agent stopped waiting"
	}
	return "already resolved: " + string(e.Item.Resolution)
}

// Clone returns a deep copy of it, sharing nothing with it.
func (it Item) Clone() Item {
	it.Input = cloneRaw(it.Input)
	it.Suggestions = cloneRaw(it.Suggestions)
	it.Can = slices.Clone(it.Can)
	it.Answers = maps.Clone(it.Answers)
	if it.Questions != nil {
		qs := make([]Question, len(it.Questions))
		for i, q := range it.Questions {
			q.Options = slices.Clone(q.Options)
			qs[i] = q
		}
		it.Questions = qs
	}
	return it
}

// Waiting reports whether the item is still pending.
func (it Item) Waiting() bool { return it.Resolution == Pending }

func cloneRaw(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return bytes.Clone(b)
}

func (d Decision) clone() Decision {
	d.Answers = maps.Clone(d.Answers)
	return d
}

// Command is the one line that says what the tool would do (its command,
// file, path, URL, pattern or query); "" when its input names none.
func (it Item) Command() string { return session.ToolSubject(it.Input) }
