package decisions

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"paddock/internal/broadcast"
	"paddock/internal/session"
	"paddock/internal/store"
)

// Persister keeps items across restarts; *store.Store implements it.
type Persister interface {
	SavePendingItem(ctx context.Context, it store.PendingItem) error
	// SettlePendingItem records a resolution, the row only if the item
	// is still pending (false: it was resolved already), with its audit
	// entry, in one transaction.
	SettlePendingItem(ctx context.Context, it store.PendingItem, a store.AuditEntry) (bool, error)
	// ResolvePendingItem records a resolution only if the item is still
	// pending; false means it was resolved already.
	ResolvePendingItem(ctx context.Context, id string, res string, by string, at time.Time, data []byte) (bool, error)
	PendingItems(ctx context.Context, since time.Time) ([]store.PendingItem, error)
}

// pruner is the optional part of a Persister that forgets old resolved
// items; *store.Store has it.
type pruner interface {
	PrunePendingItems(ctx context.Context, before time.Time) (int64, error)
}

// Options configures a Broker; the zero value is usable (memory only).
type Options struct {
	Persist Persister // nil: memory only, no audit
	Now     func() time.Time
	Logger  *slog.Logger
	// Keep is how long a resolved item stays listed (and in the store);
	// default 24h.
	Keep time.Duration
}

// Filter selects items for List; zero fields match everything.
type Filter struct {
	Kind        Kind
	Key         session.Key // Runtime and ID each match when not empty
	PendingOnly bool
	// ResolvedSince skips items resolved before it, so a view of recent
	// answers does not copy a day of old ones; waiting items always pass.
	ResolvedSince time.Time
	Limit         int // at most this many, newest first; 0: all
}

// MaxRecord is the longest a decision's record may take to write; past
// it the decision is refused as unrecorded. A hold whose end comes while
// a decision is being recorded waits this long for its outcome.
const MaxRecord = 3 * time.Second

const (
	defaultKeep  = 24 * time.Hour
	writeTimeout = 10 * time.Second // one store write; busy_timeout is 5 s
	maxSleep     = time.Minute      // Run looks again at least this often (pruning, clock changes)
	pruneEvery   = time.Hour        // store pruning
	byPaddock    = "paddock"
	byDesk       = "desk"
)

// Broker owns every pending item. It is safe for concurrent use; Run owns
// its only goroutine (the expiry timer).
type Broker struct {
	persist Persister
	now     func() time.Time
	logger  *slog.Logger
	keep    time.Duration
	bc      *broadcast.Broadcaster[Item]
	wake    chan struct{} // Open tells Run a new expiry exists

	mu        sync.Mutex
	items     map[string]*entry
	opening   map[string]bool // ids whose Open is saving them; Restore leaves them alone
	seq       uint64          // insertion order, to break ties of Created
	waiting   int             // pending items, and those being opened
	lastPrune time.Time
}

type entry struct {
	item Item
	seq  uint64
	// wait gets the one Outcome; nil once delivered, and for items
	// restored from the store (their hooks are gone).
	wait chan Outcome
	// recording is closed when the decision whose record is being
	// written ends, recorded or refused; nil while none is. Meanwhile
	// the item stays pending and nothing else resolves it.
	recording chan struct{}
	// release is a release asked while a decision was being recorded:
	// the decision came first and stands if its record is written; if
	// not, the release applies then.
	release *release
}

type release struct {
	res Resolution
	by  string
}

// New returns a Broker. Call Restore before serving, and Run for expiry.
func New(o Options) *Broker {
	b := &Broker{
		persist: o.Persist,
		now:     o.Now,
		logger:  o.Logger,
		keep:    o.Keep,
		wake:    make(chan struct{}, 1),
		items:   map[string]*entry{},
		opening: map[string]bool{},
	}
	if b.now == nil {
		b.now = time.Now
	}
	if b.logger == nil {
		b.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	b.logger = b.logger.WithGroup("pending")
	if b.keep <= 0 {
		b.keep = defaultKeep
	}
	// A subscriber that falls behind gets the zero Item: "List again".
	b.bc = broadcast.New(func() Item { return Item{} }, Item.Clone)
	return b
}

// Open adds an item an agent now waits on: it assigns the ID (if empty) and
// Created, validates (ErrInvalid), persists and publishes it. The channel
// gets exactly one Outcome when the item resolves by any means, then is
// closed; it is buffered, so nobody has to be reading.
func (b *Broker) Open(ctx context.Context, it Item) (Item, <-chan Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Item{}, nil, err
	}
	it = it.Clone()
	if it.ID == "" {
		it.ID = newID()
	}
	it.ResolvedBy, it.ResolvedAt, it.Message, it.Answers = "", time.Time{}, "", nil
	if err := checkItem(&it); err != nil {
		return Item{}, nil, err
	}

	b.mu.Lock()
	if b.items[it.ID] != nil || b.opening[it.ID] {
		b.mu.Unlock()
		return Item{}, nil, fmt.Errorf("%w: an item with this id exists", ErrInvalid)
	}
	if b.waiting >= maxPending {
		b.mu.Unlock()
		return Item{}, nil, fmt.Errorf("%w: %d items are waiting already", ErrInvalid, maxPending)
	}
	b.opening[it.ID] = true
	b.waiting++
	it.Created = b.now()
	b.mu.Unlock()

	// Saved before anyone can know the id, so a resolution always finds
	// the row. An item the store cannot keep is not opened: no answer to
	// it could be recorded, so nobody could decide it, and the agent's
	// own prompt had better take it at once.
	if err := b.save(ctx, it); err != nil {
		b.mu.Lock()
		delete(b.opening, it.ID)
		b.waiting--
		b.mu.Unlock()
		return Item{}, nil, fmt.Errorf("%w: %w", ErrNotRecorded, err)
	}

	wait := make(chan Outcome, 1)
	b.mu.Lock()
	delete(b.opening, it.ID)
	b.seq++
	b.items[it.ID] = &entry{item: it, seq: b.seq, wait: wait}
	b.bc.Publish(it) // under mu, so subscribers never see a resolution before its open
	b.mu.Unlock()
	b.poke()
	b.logger.Debug("opened", "item", it.ID, "kind", it.Kind, "session", it.Key.String(), "tool", it.Tool)
	return it.Clone(), wait, nil
}

// Decide applies a user's decision, exactly once: the first decision wins
// and later ones get a *ResolvedError; a decision the item cannot take is
// ErrInvalid, an unknown id ErrNotFound. The decision is recorded (the
// item's row and its audit entry) before the waiting hook has its Outcome,
// and the hook has it before Decide returns. A decision the store cannot
// record is refused, ErrNotRecorded, and the item waits on: nothing is
// told to the agent that the record would not show. The verb makes the
// resolution: allow → Allowed, always → Always, deny → Denied, answer →
// Answered.
func (b *Broker) Decide(ctx context.Context, id string, d Decision) (Item, error) {
	for {
		b.mu.Lock()
		e := b.items[id]
		if e == nil {
			b.mu.Unlock()
			return Item{}, ErrNotFound
		}
		if !e.item.Waiting() {
			err := &ResolvedError{Item: e.item.Clone()}
			b.mu.Unlock()
			return Item{}, err
		}
		if busy := e.recording; busy != nil {
			// Another decision is being recorded: it wins if it is.
			b.mu.Unlock()
			<-busy
			continue
		}
		// What a decision is checked against (questions, Can) never
		// changes after Open, so the check runs unlocked on a shallow
		// copy.
		asked := e.item
		b.mu.Unlock()

		res, d, err := checkDecision(&asked, d)
		if err != nil {
			return Item{}, err
		}

		b.mu.Lock()
		if !e.item.Waiting() || e.recording != nil { // another one came meanwhile
			b.mu.Unlock()
			continue
		}
		done := make(chan struct{})
		e.recording = done
		it := resolve(e.item, res, d.By, d, b.now())
		b.mu.Unlock()

		err = b.recordDecision(ctx, it)

		b.mu.Lock()
		e.recording = nil
		close(done)
		rel := e.release
		e.release = nil
		if err != nil {
			var released Item
			if rel != nil {
				released = b.settleLocked(e, resolve(e.item, rel.res, rel.by, Decision{}, b.now()), Decision{})
			}
			b.mu.Unlock()
			if rel != nil {
				b.record(ctx, released)
			}
			b.poke() // an expiry that came meanwhile was left to Run
			b.logger.Error("decision refused: it could not be recorded", "item", id, "resolution", res, "by", d.By, "err", err)
			return Item{}, fmt.Errorf("%w: %w", ErrNotRecorded, err)
		}
		it = b.settleLocked(e, it, d)
		b.mu.Unlock()
		return it, nil
	}
}

// Release ends a pending item without a user's decision: Desk (answered
// in the agent's terminal), Expired or Withdrawn (the hook hung up). by
// defaults to "desk" for Desk and "paddock" otherwise. The hook has its
// Outcome at once; the record follows, and a failure to write it is
// logged (the next start marks an item left pending expired, which is
// what became of it). It reports false, with the item as it is, when the
// item was resolved already, or when a decision is being recorded — the
// release then applies only if that record fails; false and the zero Item
// when there is no such item or res is not one of those.
func (b *Broker) Release(ctx context.Context, id string, res Resolution, by string) (Item, bool) {
	if !releasable(res) {
		b.logger.Error("release with a resolution only a decision makes", "item", id, "resolution", res)
		return Item{}, false
	}
	b.mu.Lock()
	e := b.items[id]
	if e == nil {
		b.mu.Unlock()
		return Item{}, false
	}
	if !e.item.Waiting() || b.deferLocked(e, res, releaser(res, by)) {
		it := e.item.Clone()
		b.mu.Unlock()
		return it, false
	}
	it := b.settleLocked(e, resolve(e.item, res, releaser(res, by), Decision{}, b.now()), Decision{})
	b.mu.Unlock()
	b.record(ctx, it)
	return it, true
}

// deferLocked keeps a release for after the decision being recorded, if
// one is, and reports whether it did; b.mu is held.
func (b *Broker) deferLocked(e *entry, res Resolution, by string) bool {
	if e.recording == nil {
		return false
	}
	if e.release == nil {
		e.release = &release{res: res, by: by}
	}
	return true
}

// ReleaseSession releases every pending item of session k — only those of
// toolUseID when it is not empty — as Release does, and returns them,
// oldest first: the user answered at the desk, or the session ended. An
// item whose decision is being recorded is left to it, as Release does.
func (b *Broker) ReleaseSession(ctx context.Context, k session.Key, toolUseID string, res Resolution, by string) []Item {
	if !releasable(res) {
		b.logger.Error("release with a resolution only a decision makes", "session", k.String(), "resolution", res)
		return nil
	}
	by = releaser(res, by)
	b.mu.Lock()
	var hit []*entry
	for _, e := range b.items {
		if e.item.Waiting() && e.item.Key == k && (toolUseID == "" || e.item.ToolUseID == toolUseID) {
			hit = append(hit, e)
		}
	}
	slices.SortFunc(hit, func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]Item, 0, len(hit))
	for _, e := range hit {
		if !b.deferLocked(e, res, by) {
			out = append(out, b.settleLocked(e, resolve(e.item, res, by, Decision{}, b.now()), Decision{}))
		}
	}
	b.mu.Unlock()
	for _, it := range out {
		b.record(ctx, it)
	}
	return out
}

// Get returns a copy of an item, pending or resolved within Keep.
func (b *Broker) Get(id string) (Item, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.items[id]
	if e == nil {
		return Item{}, false
	}
	return e.item.Clone(), true
}

// List returns copies of the items f selects, newest first.
func (b *Broker) List(f Filter) []Item {
	b.mu.Lock()
	var hit []*entry
	for _, e := range b.items {
		it := &e.item
		if f.Kind != "" && it.Kind != f.Kind ||
			f.Key.Runtime != "" && it.Key.Runtime != f.Key.Runtime ||
			f.Key.ID != "" && it.Key.ID != f.Key.ID ||
			f.PendingOnly && !it.Waiting() ||
			!it.Waiting() && it.ResolvedAt.Before(f.ResolvedSince) {
			continue
		}
		hit = append(hit, e)
	}
	slices.SortFunc(hit, func(a, b *entry) int {
		return cmp.Or(b.item.Created.Compare(a.item.Created), cmp.Compare(b.seq, a.seq))
	})
	if f.Limit > 0 && len(hit) > f.Limit {
		hit = hit[:f.Limit]
	}
	out := make([]Item, len(hit))
	for i, e := range hit {
		out[i] = e.item.Clone()
	}
	b.mu.Unlock()
	return out
}

// Subscribe returns every open and every resolution as it happens, in
// order, without ever holding the broker up: a subscriber that falls
// behind gets the zero Item (ID "") in place of what it missed, meaning
// "List again". Call the func to unsubscribe.
func (b *Broker) Subscribe() (<-chan Item, func()) { return b.bc.Subscribe() }

// resolve returns it resolved as res by by, at now, with d's message and
// answers.
func resolve(it Item, res Resolution, by string, d Decision, now time.Time) Item {
	it = it.Clone()
	it.Resolution, it.ResolvedBy, it.ResolvedAt = res, by, now
	it.Message, it.Answers = d.Message, maps.Clone(d.Answers)
	return it
}

// settleLocked makes a pending entry the resolved it, hands its hook the
// Outcome and publishes it; b.mu is held. A decision's record is written
// before; a release's, by the caller after unlocking.
func (b *Broker) settleLocked(e *entry, it Item, d Decision) Item {
	e.item = it
	b.waiting--
	if e.wait != nil {
		e.wait <- Outcome{Item: e.item.Clone(), Decision: d.clone()} // buffered 1, sent once: never blocks
		close(e.wait)
		e.wait = nil
	}
	b.bc.Publish(e.item)
	return e.item.Clone()
}

// poke tells Run to look at expiries again.
func (b *Broker) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func releasable(res Resolution) bool { return res == Desk || res == Expired || res == Withdrawn }

func releaser(res Resolution, by string) string {
	switch {
	case by != "":
		return by
	case res == Desk:
		return byDesk
	}
	return byPaddock
}

// newID returns "itm_" and 128 random bits in hex: ids appear in URLs and
// must not be guessable.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥1.24)
	return "itm_" + hex.EncodeToString(b[:])
}
