// Package views renders paddock's HTML with templ components. Components take
// the plain view structs below — already formatted, already sanitised — so
// they hold no logic beyond layout and never reach into domain packages.
package views

import (
	"html/template"
	"strings"
)

// Assets are the content-addressed URLs every page links to.
type Assets struct {
	CSS, ChromaCSS, AppJS, HTMX, HTMXWS, Icon, Manifest, TouchIcon string
}

// Page is what the layout needs around any view.
type Page struct {
	Title  string
	Assets Assets
	CSRF   string // per-session token sent by htmx as X-CSRF-Token; "" on public pages
	WSURL  string // websocket to connect to; "" for none
	Theme  string // "light" or "dark" as the device chose; "" follows its system
}

// Card is one session on the LIVE board.
type Card struct {
	DOMID       string // stable element id, e.g. "card-claude-<id>"
	URL         string
	Runtime     string
	Agent       string // the runtime's display name
	ID          string
	Project     string
	Cwd         string
	Title       string
	Prompt      string // last real prompt, for a second line
	UpdatedISO  string
	UpdatedText string
	Live        bool
	State       string // CSS class and label: busy, waiting, idle, ended…
	StateLabel  string
	Attention   string // answer, working, unread or ""
	Terminal    string // "VS Code", "tmux", "paddock"… "" unknown
	External    bool   // started outside paddock
	Memory      string // "312 MB": the agent with its child processes
	Subagents   int    // running subagents
	TeamSize    int    // on a team lead: the sessions in its team, itself included
	Member      bool   // a team member, shown under its lead
	// CanResume: ended or asleep, and paddock can start its agent again.
	CanResume bool
	// DeskOnly says, on the "needs you" strip, why this prompt has no card
	// to answer from here (answer it in the agent's terminal).
	DeskOnly string
	// DialogTool and DialogSummary describe an open approval or question.
	DialogTool    string
	DialogSummary string
	// Found is where the board's search words were found inside the
	// conversation, for a card whose own lines do not hold them; FoundURL
	// opens the session at that message.
	Found    Marked
	FoundURL string
	// HandedOff names the agent this session's work was last handed
	// off to ("" when never).
	HandedOff string
	// Error says why part or all of its history could not be read ("3
	// lines could not be read"); "" when it was read whole.
	Error string
	// Context is how full its context is (zero Label: not known).
	Context ContextFill
	// swap is the hx-swap-oob of a card sent alone over the websocket.
	swap string
}

// withSwap is c to be swapped in as swap says.
func withSwap(c Card, swap string) Card {
	c.swap = swap
	return c
}

// Board is the LIVE board.
type Board struct {
	Loaded   bool // false until the first scan finished: show a skeleton, never "no sessions"
	Cards    []Card
	NeedsYou []Card // approvals and questions, oldest first
	// Pending are the prompts and questions paddock can answer from here,
	// oldest first.
	Pending []Approval
	Memory  string // "5.1 GB of 16.0 GB in use"; "" before the first process check
	CanHost bool   // paddock can start agents (tmux is available)
	// Errors name what of the agents' histories cannot be read or
	// watched just now, one line each.
	Errors []string
	// Unsaved is why paddock cannot save what it is told (its disk is
	// full, say): the board's banner; "" while it can.
	Unsaved string
	// Agents and Projects are the filter choices: those on the board.
	Agents   []Option
	Projects []string
	// Filter is the choice the board was filtered by (the form shows it);
	// Filtered says whether any is set.
	Filter   BoardFilter
	Filtered bool
	// More is the link to the next page of cards; empty on the last.
	More More
	// Office is the office view; nil when the setting is off.
	Office *Office
	// Indexing says how far the search index's first build is ("" once
	// it is done, or without an index).
	Indexing string
}

// BoardFilter narrows the board to one agent, one project, or live
// sessions.
type BoardFilter struct {
	Agent, Project string
	Live           bool
	Query          string // the search box: title, project, directory or prompt
}

// More is the board's "show more" link.
type More struct {
	URL, Label string
}

// Option is one choice of a select or a question.
type Option struct {
	Value, Label, Description string
}

// Subagent is one row of a session's AGENTS tab.
type Subagent struct {
	ID, Type, Task          string
	URL                     string // its conversation's page; "" when it has none
	Running                 bool
	ToolCalls               int
	StartedISO, StartedText string
}

// Message is one conversation turn, ready to show.
type Message struct {
	// ID is the message's element id, "m-" and its place in the
	// conversation ("" when the page does not know it): what a search
	// hit links to.
	ID       string
	Role     string        // "user" or "assistant"
	Text     string        // user text, shown verbatim (escaped)
	HTML     template.HTML // assistant Markdown, rendered and sanitised
	TimeISO  string
	TimeText string
}

// Conversation is a page of messages plus the link to the page before it.
type Conversation struct {
	Messages []Message
	OlderURL string // "" when this page starts at the first message
	// NewerURL is set on a page opened at a message (a search hit) that
	// stops before the newest: where the newest page is.
	NewerURL string
	Newer    int // how many messages are after this page
}

// Session is the session page.
type Session struct {
	Card         Card
	Model        string
	Conversation Conversation
	Total        int // messages in the whole conversation; -1: not counted (its newest page was read from the end)

	HasLive        bool // hooks have reported on this session
	PermissionMode string
	Since          string // how long it has been in its state
	SinceISO       string
	// The hosted terminal's latency metrics, as text; "" without data.
	HookLatency, Detection, PermissionResponse string
	ParentURL                                  string // the team lead's page
	Subagents                                  []Subagent
	Hosted                                     bool // runs in paddock's tmux: it can be messaged and controlled
	CanResume                                  bool // ended or asleep, and paddock can start its agent again
	// CanReconnect: paddock started it and kept its launch, so a new
	// terminal can start it the same way (model, effort, mode, name).
	CanReconnect bool
	// AutoResume: an asleep session paddock put to sleep wakes when its
	// page is opened.
	AutoResume bool
	// Busy says how the agent takes a message typed while it works ("" when
	// it is not working).
	Busy string
	Note string // why paddock chose the state (a resume that reported nothing)
	// HistoryError says that part or all of its history could not be
	// read, and why ("" when it was read whole).
	HistoryError string
	// HandedOff says where this session's work was last handed off to
	// ("" when never).
	HandedOff string
	Freed     string // "312 MB" freed when it was put to sleep
	Runs      []Run  // earlier sessions of the same card, newest first
	Health    *Health
	// Pending are this session's prompts and questions waiting on the
	// user, oldest first.
	Pending []Approval
	// NewHereURL starts a new session in this one's directory with this
	// one as its parent; "" when paddock cannot start agents.
	NewHereURL string
	// HandoffTargets are the running sessions paddock hosts that this
	// one's work can be handed to (none: no Hand off sheet).
	// MarkRead: the session had an unread result; the page, once shown,
	// posts that it was read.
	MarkRead       bool
	HandoffTargets []Option
	// HandoffStarts are the agents a hand-off can start a new session of,
	// in this session's directory, with the hand-off as its first prompt.
	HandoffStarts []Option
	// CanDelete: not running, so its history may be deleted (after a
	// confirmation).
	CanDelete bool
	// Usage is its own tokens and cost, when any were recorded.
	Usage    SessionUsage
	HasUsage bool
}

// Run is an earlier session shown on the same card.
type Run struct {
	URL, Label, EndedISO, EndedText string
}

// Health is a hosted session's health, as text.
type Health struct {
	Alive, Window, AgentRunning, Transcript, Stalled bool
	Command, LastActivityISO, LastActivityText, Age  string
	Hint                                             string
	Tmux                                             string // "tmux server: 1 crash, 2 recovered, 1 lost"; "" when none
}

// Pair is the "pair this device" page.
type Pair struct {
	Code    string // from the link; posted back with the form
	Error   string
	HasCode bool
	CAURL   string
}

// CA is the certificate authority page (also served over plain HTTP).
type CA struct {
	HasCA        bool
	Fingerprint  string
	PEMURL       string
	DERURL       string
	ProfileURL   string
	DashboardURL string
	// Platform is the device the page was opened on, from its user agent:
	// ios, android, macos, windows, linux or "" (unknown); its steps come
	// first, the others' below.
	Platform string
	// TrustCheckURL is an image on the dashboard's own HTTPS address: it
	// loads only when the device trusts paddock's certificate.
	TrustCheckURL string
}

// Error is a full-page error.
type Error struct {
	Status  int
	Title   string
	Message string
}

// NewSession is the "New session" form, with what was entered when it
// comes back with an error.
type NewSession struct {
	Agents                                          []AgentChoice // installed agents
	RecentDirs                                      []string      // recent project directories, newest first
	Runtime, Workdir, Prompt, PermissionMode, Model string
	Effort, Name, Parent                            string
	Error                                           string
}

// AgentChoice is one agent the form can start, with the permission modes
// and effort levels its CLI takes.
type AgentChoice struct {
	Name, Label    string
	Modes, Efforts []string
}

// Result is the answer to a message sent or an action taken.
type Result struct {
	OK     bool
	Text   string
	Screen string // the terminal's last lines, when a message did not arrive
}

// Approval is a card of a prompt or question an agent waits on: in the
// board's "needs you" strip and on its session's page.
type Approval struct {
	ID, DOMID, Kind     string
	Agent, Project, URL string
	Tool, Reason        string
	Command             string // the command or path, on its own line
	Input               string // the whole input, indented JSON
	PlanHTML            template.HTML
	CanAllow, CanDeny   bool
	AllowLabel          string // "" is Approve
	CanAlways           bool
	AlwaysScope         string // what "Always" grants, in words
	Questions           []Question
	FreeText            bool
	DecideURL           string
	Note                string // what this agent does meanwhile
	ExpiresISO          string
	ExpiresText         string
	Resolved            string // what became of it; "" while it waits
	ResolvedClass       string // ok, error or muted
	Error               string // why the last tap did not count
}

// Question is one question of a question card.
type Question struct {
	Name, Question, Header string
	Multi                  bool
	Options                []Option
}

// AuditEntry is one line of the audit log page.
type AuditEntry struct {
	AtISO    string `json:"at"`
	AtText   string `json:"-"`
	Who      string `json:"who"`
	Action   string `json:"action"`
	Detail   string `json:"detail"`
	Decision bool   `json:"-"` // a decision on an agent's prompt or question
}

// Marked is text whose found words stand between MarkOpen and MarkClose:
// a string, so that a Card stays comparable (pushes send only cards that
// changed).
type Marked string

// The marks of a Marked text: control characters, never in shown text.
const (
	MarkOpen  = "\x02"
	MarkClose = "\x03"
)

// Parts splits m at its marks.
func (m Marked) Parts() []SnippetPart {
	var out []SnippetPart
	s := string(m)
	for s != "" {
		open := strings.Index(s, MarkOpen)
		if open < 0 {
			return append(out, SnippetPart{Text: s})
		}
		if open > 0 {
			out = append(out, SnippetPart{Text: s[:open]})
		}
		s = s[open+len(MarkOpen):]
		end := strings.Index(s, MarkClose)
		if end < 0 {
			return append(out, SnippetPart{Text: s, Match: true})
		}
		out = append(out, SnippetPart{Text: s[:end], Match: true})
		s = s[end+len(MarkClose):]
	}
	return out
}
