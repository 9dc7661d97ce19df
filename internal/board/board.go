// Package board owns "a session" as paddock shows it: it joins what the
// agent's own history says (the catalog), what its hooks, timers and
// process checks say (the live card), what waits for the user (pending
// items) and whether paddock can host it, into one Entry with the facts
// derived from them — is it over, can it be resumed, does it need the
// user, which team is it in — and tells subscribers which entries changed,
// as one stream.
//
// The web pages, the API and anything else that shows sessions (push,
// search, the command line) ask here instead of joining the sources
// themselves. It reads only: it never writes an agent's files, and it
// changes nothing in the sources but a card's read mark.
package board

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"paddock/internal/broadcast"
	"paddock/internal/catalog"
	"paddock/internal/decisions"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// History is what the board needs of the session catalog.
type History interface {
	Loaded() bool
	// All is every listed session, newest first, as a snapshot the board
	// only reads.
	All() []session.Info
	Get(ctx context.Context, k session.Key) (session.Info, error)
	Messages(ctx context.Context, k session.Key) ([]session.Message, error)
	RecentMessages(ctx context.Context, k session.Key, n int) ([]session.Message, int, error)
	Subscribe() (<-chan catalog.Change, func())
	// Problems are the parts of the agents' histories that cannot be read
	// or watched just now (catalog.Problems).
	Problems() []session.SourceProblem
	Events(ctx context.Context, k session.Key) ([]session.Event, error)
	EachEvent(ctx context.Context, k session.Key, fn func(session.Event) error) error
	Delete(ctx context.Context, k session.Key) error
	HasSubagents(runtime string) bool
	SubagentConversation(ctx context.Context, k session.Key, agentID string) ([]session.Message, error)
}

// Live is what the board needs of the live state.
type Live interface {
	Card(k session.Key) (live.Card, bool)
	ByTerminal(terminalID string) (live.Card, bool)
	Cards() []live.Card
	Subscribe() (<-chan session.Change, func())
	Machine() live.MachineMemory
	MarkRead(ctx context.Context, k session.Key) error
}

// Items is what the board needs of the pending approvals and questions.
type Items interface {
	Subscribe() (<-chan decisions.Item, func())
}

// Options wire a Board.
type Options struct {
	History History // required
	Live    Live    // nil: history only, no live state
	Items   Items   // nil: nothing is asked of the user
	// CanHost says paddock can start agents (tmux is there): only then
	// may an ended session be resumed.
	CanHost bool
	// Home is the user's home directory, for the project name of a
	// session known only from its hooks; default os.UserHomeDir.
	Home   string
	Logger *slog.Logger
	// Links, when set, are bound to the new Board: see Links.
	Links *Links
}

// Change tells a subscriber which entries to show again; Full: all of
// them (after the first scan, or when the subscriber fell behind).
type Change = session.Change

// Board is the one view of every session. Create it with New; call Run
// for Subscribe to receive changes. Its methods are safe for concurrent
// use.
type Board struct {
	o       Options
	live    Live
	log     *slog.Logger
	changes *broadcast.Broadcaster[Change]
}

// New returns a Board over o's sources.
func New(o Options) *Board {
	if o.History == nil {
		panic("board: a History is required")
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	b := &Board{o: o, live: o.Live, log: o.Logger}
	if b.live == nil {
		b.live = noLive{}
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if o.Links != nil {
		o.Links.b.Store(b)
	}
	b.changes = broadcast.New(func() Change { return Change{Full: true} }, func(c Change) Change {
		c.Updated, c.Removed = slices.Clone(c.Updated), slices.Clone(c.Removed)
		return c
	})
	return b
}

// noLive stands in without a live state: no cards, no changes.
type noLive struct{}

func (noLive) Card(session.Key) (live.Card, bool)          { return live.Card{}, false }
func (noLive) ByTerminal(string) (live.Card, bool)         { return live.Card{}, false }
func (noLive) Cards() []live.Card                          { return nil }
func (noLive) Machine() live.MachineMemory                 { return live.MachineMemory{} }
func (noLive) MarkRead(context.Context, session.Key) error { return nil }
func (noLive) Subscribe() (<-chan session.Change, func()) {
	return make(chan session.Change), func() {}
}

// Entry is one session as paddock shows it: what its history says, and
// what its hooks say when it has a live card.
type Entry struct {
	Info session.Info
	Card *live.Card // nil when no hook, timer or hosted terminal knows it
	// Hostable: paddock can start agents, so this one could be started
	// again (set by the Board).
	Hostable bool
}

// Key is the session's key.
func (e Entry) Key() session.Key { return e.Info.Key() }

// SortTime orders the board: the newest activity from either source.
func (e Entry) SortTime() time.Time {
	t := e.Info.Updated
	if e.Card != nil && e.Card.LastEvent.After(t) {
		t = e.Card.LastEvent
	}
	return t
}

// Over reports whether the session's agent is done with it. The hooks'
// state wins when there is a card: SessionEnd (or paddock putting the
// session to sleep) arrives the moment it happens, while the process scan
// is a periodic snapshot that can still see an exiting agent. Without a
// card only the scan knows.
func (e Entry) Over() bool {
	if e.Card != nil {
		return e.Card.State.Over()
	}
	return !e.Info.Live
}

// Dir is where the session ran: its history's working directory, else
// its card's.
func (e Entry) Dir() string {
	if e.Info.Cwd == "" && e.Card != nil {
		return e.Card.Cwd
	}
	return e.Info.Cwd
}

// CanResume is the one rule for offering Resume, wherever it is offered:
// paddock can host, the session is over, and there is a directory to
// resume it in.
func (e Entry) CanResume() bool { return e.Hostable && e.Over() && e.Dir() != "" }

// State is the board's state vocabulary for an entry — the hooks' state
// when the session has a live card, else what the agent's own files say —
// as a class name and its label.
func (e Entry) State() (class, label string) {
	if e.Card != nil {
		st := e.Card.State
		return string(st), StateLabel(st)
	}
	in := e.Info
	if !in.Live {
		return "ended", "ended"
	}
	switch in.State {
	case "busy":
		return "working", "working"
	case "waiting":
		if in.WaitingFor == "" {
			return "waiting", StateLabel(hookstate.StateWaiting)
		}
		if containsFold(in.WaitingFor, "permission") || containsFold(in.WaitingFor, "approv") {
			return "approval", StateLabel(hookstate.StateApproval)
		}
		return "input", StateLabel(hookstate.StateInput)
	case "idle":
		return "idle", "idle"
	}
	return "idle", "live"
}

// StateLabel is a state as the board words it.
func StateLabel(st hookstate.State) string {
	switch st {
	case hookstate.StateApproval:
		return "needs approval"
	case hookstate.StateInput:
		return "needs answer"
	case hookstate.StateWaiting:
		return "your turn"
	}
	return string(st)
}

// containsFold reports whether s contains sub (lower case) ignoring case.
// Matches runs it over every session at each search, so an ASCII sub (what
// is typed nearly always) is compared in place, without lowering a copy
// of s.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	for i := 0; i < len(sub); i++ {
		if sub[i] >= utf8.RuneSelf {
			return strings.Contains(strings.ToLower(s), sub)
		}
	}
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// Matches reports whether the session's title, project, directory, first
// prompt or latest prompt contains q, ignoring case: what List's Query
// matches, for a caller that filters a list it already has. q must be
// lower case and trimmed (LowerQuery).
func (e *Entry) Matches(q string) bool {
	if q == "" {
		return true
	}
	in := &e.Info
	if containsFold(in.Title, q) || containsFold(in.Project, q) || containsFold(in.Cwd, q) ||
		containsFold(in.FirstPrompt, q) || containsFold(in.LastPrompt, q) {
		return true
	}
	return e.Card != nil && (containsFold(e.Card.LastPrompt, q) || containsFold(e.Card.Cwd, q))
}

// LowerQuery is a search box's text as Matches takes it.
func LowerQuery(q string) string { return strings.ToLower(strings.TrimSpace(q)) }

// NeedsYou reports whether the session waits for an approval or an
// answer.
func (e Entry) NeedsYou() bool {
	cls, _ := e.State()
	return cls == string(hookstate.StateApproval) || cls == string(hookstate.StateInput)
}

// Since is when the session entered its state (its card's), else its
// history's last activity.
func (e Entry) Since() time.Time {
	if e.Card != nil {
		return e.Card.Since
	}
	return e.Info.Updated
}

// Provisional reports whether a live card still waits for its session id
// (a hosted terminal before its first hook); such cards have no page yet.
func Provisional(c live.Card) bool {
	return c.TerminalID != "" && c.State == hookstate.StateConnecting
}

// infoFromCard is the history entry of a session paddock knows only from
// its hooks so far (no history file yet, or an agent without a scanner).
func (b *Board) infoFromCard(c live.Card) session.Info {
	return session.Info{
		Runtime: c.Key.Runtime, ID: c.Key.ID, Cwd: c.Cwd, Project: session.ShortProject(c.Cwd, b.o.Home),
		Title: c.LastPrompt, LastPrompt: c.LastPrompt, Updated: c.LastEvent, Model: c.Model,
		Live: !c.State.Over(), PID: c.PID, Path: c.Transcript,
	}
}

// Filter narrows List: by agent, and by a case-insensitive query over the
// history's title, project, directory and first prompt (and a live-only
// session's last prompt and directory). Zero values mean "any".
type Filter struct {
	Runtime string
	Query   string
}

// Loaded reports whether the history's first scan has finished: until
// then the board must say it is loading, never "no sessions".
func (b *Board) Loaded() bool { return b.o.History.Loaded() }

// List merges the history with the live cards, newest activity first,
// keeping the entries f keeps. The slice is the caller's.
//
// It runs at every change the board shows, over every session the
// machine has: the history's snapshot comes in its order already, so only
// the entries a card moved ahead of it (and the sessions known only from
// their hooks) are sorted and merged in, not the whole list.
func (b *Board) List(f Filter) []Entry {
	all := b.o.History.All()
	q := LowerQuery(f.Query)
	keeps := func(e *Entry) bool { return (f.Runtime == "" || e.Info.Runtime == f.Runtime) && e.Matches(q) }
	cards := b.live.Cards()
	byKey := make(map[session.Key]*live.Card, len(cards))
	for i := range cards {
		byKey[cards[i].Key] = &cards[i]
	}
	var out []Entry
	if f == (Filter{}) {
		out = make([]Entry, 0, len(all)+len(cards))
	}
	var moved []Entry
	for i := range all {
		in := &all[i]
		if f.Runtime != "" && in.Runtime != f.Runtime {
			continue
		}
		e := Entry{Info: *in, Hostable: b.o.CanHost}
		if len(byKey) > 0 {
			if c, ok := byKey[in.Key()]; ok {
				e.Card = c
				delete(byKey, in.Key())
			}
		}
		if !keeps(&e) {
			continue
		}
		if e.Card != nil && e.Card.LastEvent.After(in.Updated) {
			moved = append(moved, e)
			continue
		}
		out = append(out, e)
	}
	for _, c := range cards {
		if _, left := byKey[c.Key]; left {
			e := Entry{Info: b.infoFromCard(c), Card: byKey[c.Key], Hostable: b.o.CanHost}
			if keeps(&e) {
				moved = append(moved, e)
			}
		}
	}
	// Newest activity first; equal times by key, so the order is total
	// and a Page cursor names one place in it. The history's order is
	// checked, not trusted: one pass, and a sort only if it ever differs.
	order := func(a, b Entry) int { return comparePositions(positionOf(&a), positionOf(&b)) }
	for i := 1; i < len(out); i++ {
		if comparePositions(positionOf(&out[i-1]), positionOf(&out[i])) > 0 {
			slices.SortFunc(out, order)
			break
		}
	}
	slices.SortFunc(moved, order)
	return mergeSorted(out, moved, order)
}

// mergeSorted merges the sorted b into the sorted a, in a's own array
// (grown by len(b)), from the back so nothing is overwritten unread.
func mergeSorted(a, b []Entry, order func(x, y Entry) int) []Entry {
	n := len(a)
	a = slices.Grow(a, len(b))[:n+len(b)]
	i, j := n-1, len(b)-1
	for w := len(a) - 1; j >= 0; w-- {
		if i >= 0 && order(a[i], b[j]) > 0 {
			a[w] = a[i]
			i--
		} else {
			a[w] = b[j]
			j--
		}
	}
	return a
}

// Get finds one session in the history or, failing that, among the live
// cards; session.ErrNotFound when neither knows it.
func (b *Board) Get(ctx context.Context, k session.Key) (Entry, error) {
	in, err := b.o.History.Get(ctx, k)
	c, hasCard := b.live.Card(k)
	switch {
	case err == nil:
		e := Entry{Info: in, Hostable: b.o.CanHost}
		if hasCard {
			e.Card = &c
		}
		return e, nil
	case hasCard && errors.Is(err, session.ErrNotFound):
		return Entry{Info: b.infoFromCard(c), Card: &c, Hostable: b.o.CanHost}, nil
	}
	return Entry{}, err
}

// Messages is the whole conversation; a session known only from its
// hooks has none yet.
func (b *Board) Messages(ctx context.Context, e Entry) ([]session.Message, error) {
	msgs, err := b.o.History.Messages(ctx, e.Key())
	if err != nil && e.Card != nil && errors.Is(err, session.ErrNotFound) {
		return nil, nil
	}
	return msgs, err
}

// Recent is the newest page of a conversation.
type Recent struct {
	Msgs []session.Message // oldest first
	// Total counts the whole conversation; -1 when it was not counted
	// (the page was read from the end of a long history).
	Total int
}

// Recent is the newest n messages: what a session's page shows first and
// its live updates carry, read from the end of a long history. A session
// known only from its hooks has none yet.
func (b *Board) Recent(ctx context.Context, e Entry, n int) (Recent, error) {
	msgs, total, err := b.o.History.RecentMessages(ctx, e.Key(), n)
	if err != nil && e.Card != nil && errors.Is(err, session.ErrNotFound) {
		return Recent{}, nil
	}
	return Recent{Msgs: msgs, Total: total}, err
}

// Events reads a session's full record (catalog.ErrUnsupported where its
// agent's format gives none).
func (b *Board) Events(ctx context.Context, k session.Key) ([]session.Event, error) {
	return b.o.History.Events(ctx, k)
}

// EachEvent hands a session's full record to fn as its agent reads it,
// never holding it whole where the agent can stream it (an export).
func (b *Board) EachEvent(ctx context.Context, k session.Key, fn func(session.Event) error) error {
	return b.o.History.EachEvent(ctx, k, fn)
}

// Delete deletes a session's history, as its agent keeps it — only once
// the session is over, by the same rule as everywhere else
// (session.ErrLive otherwise); the agent's scanner still refuses one a
// process holds, whatever the hooks said.
func (b *Board) Delete(ctx context.Context, k session.Key) error {
	e, err := b.Get(ctx, k)
	if err != nil {
		return err
	}
	if !e.Over() {
		return session.ErrLive
	}
	return b.o.History.Delete(ctx, k)
}

// HasSubagents says whether runtime's subagents keep conversations of
// their own, which SubagentConversation reads (catalog.ErrUnsupported
// where they do not).
func (b *Board) HasSubagents(runtime string) bool { return b.o.History.HasSubagents(runtime) }

// SubagentConversation reads one of a session's subagents' conversation.
func (b *Board) SubagentConversation(ctx context.Context, k session.Key, agentID string) ([]session.Message, error) {
	return b.o.History.SubagentConversation(ctx, k, agentID)
}

// Card is a session's live card, without reading its history.
func (b *Board) Card(k session.Key) (live.Card, bool) { return b.live.Card(k) }

// Problems are the parts of the agents' histories that cannot be read or
// watched just now: an agent whose last scan failed (its sessions are the
// last list read), a directory or database a scan could not read (its
// sessions may be missing), a directory the file watcher cannot watch.
// A change of them comes as a full Change.
func (b *Board) Problems() []session.SourceProblem { return b.o.History.Problems() }

// Machine is the machine's memory, as the live state last measured it.
func (b *Board) Machine() live.MachineMemory { return b.live.Machine() }

// MarkRead clears a session's unread result: the user looked at it.
func (b *Board) MarkRead(ctx context.Context, k session.Key) error { return b.live.MarkRead(ctx, k) }

// Subscribe returns the entries' changes (Run must be running) and a func
// that unsubscribes.
func (b *Board) Subscribe() (<-chan Change, func()) { return b.changes.Subscribe() }

// Run turns the history's, the live state's and the pending items'
// changes into the board's until ctx ends. A burst becomes one Change:
// whatever is already waiting on any source is merged in, and a lone
// change goes out at once.
func (b *Board) Run(ctx context.Context) error {
	hist, cancelHist := b.o.History.Subscribe()
	defer cancelHist()
	lives, cancelLive := b.live.Subscribe()
	defer cancelLive()
	var items <-chan decisions.Item
	if b.o.Items != nil {
		var cancelItems func()
		items, cancelItems = b.o.Items.Subscribe()
		defer cancelItems()
	}
	for {
		var ch Change
		select {
		case <-ctx.Done():
			return nil
		case c, ok := <-hist:
			if !ok {
				hist = nil
				continue
			}
			ch = c
		case c, ok := <-lives:
			if !ok {
				lives = nil
				continue
			}
			ch = c
		case it, ok := <-items:
			if !ok {
				items = nil
				continue
			}
			ch = itemChange(it)
		}
		b.changes.Publish(coalesce(ch, hist, lives, items))
	}
}

// itemChange is what a pending item's open or resolution changes: its
// session; or, for the items' "list again" (the zero Item, sent when the
// board fell behind), every session, since which ones were missed is
// unknown.
func itemChange(it decisions.Item) Change {
	if it.ID == "" {
		return Change{Full: true}
	}
	return Change{Updated: []session.Key{it.Key}}
}

// coalesce merges into ch every change already waiting on the sources,
// never waiting for one.
func coalesce(ch Change, hist, lives <-chan Change, items <-chan decisions.Item) Change {
	const most = 256
	add := func(more Change) {
		ch.Updated = append(ch.Updated, more.Updated...)
		ch.Removed = append(ch.Removed, more.Removed...)
		ch.Full = ch.Full || more.Full
	}
	for range most {
		got := false
		select {
		case more, ok := <-hist:
			if ok {
				add(more)
				got = true
			}
		default:
		}
		select {
		case more, ok := <-lives:
			if ok {
				add(more)
				got = true
			}
		default:
		}
		select {
		case it, ok := <-items:
			if ok {
				add(itemChange(it))
				got = true
			}
		default:
		}
		if !got {
			break
		}
	}
	return ch
}

// Links answer what the history and the live state ask about each other:
// which sessions run now (the history lists them however old they are),
// which session a hosted terminal runs (for agents whose processes hide
// their arguments), and what the history says of a session the live
// state checks. Both are built before the Board that joins them, so make
// Links first, give its methods to both, and New binds them to the
// Board. Until then they answer nothing.
type Links struct{ b atomic.Pointer[Board] }

// Running lists the ids of runtime's sessions whose live card is not over.
func (l *Links) Running(runtime string) []string {
	b := l.b.Load()
	if b == nil {
		return nil
	}
	var ids []string
	for _, c := range b.live.Cards() {
		if c.Key.Runtime == runtime && !c.State.Over() {
			ids = append(ids, c.Key.ID)
		}
	}
	return ids
}

// HostedSession names the session a paddock-hosted terminal runs.
func (l *Links) HostedSession(terminalID string) (session.Key, bool) {
	b := l.b.Load()
	if b == nil {
		return session.Key{}, false
	}
	c, ok := b.live.ByTerminal(terminalID)
	return c.Key, ok
}

// Lookup is what the history says of a session.
func (l *Links) Lookup(ctx context.Context, k session.Key) (session.Info, bool) {
	b := l.b.Load()
	if b == nil {
		return session.Info{}, false
	}
	in, err := b.o.History.Get(ctx, k)
	return in, err == nil
}
