// Package live owns the live state of every agent session: it takes hook
// events from the hook listener, matches each to a card (in a fixed
// order: see match), runs them through the hookstate machines, corrects them
// with timers and process checks, and tells subscribers which cards
// changed so every open board updates within a blink of the hook.
//
// One goroutine (Run) owns all of it; the hook listener only hands events
// over, and readers get copies, so nothing here is shared without a lock
// and no hook ever waits on a slow board.
package live

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/broadcast"
	"paddock/internal/hookstate"
	"paddock/internal/procscan"
	"paddock/internal/session"
)

// Observer checks processes for the live state, every ProcessCheck and
// when a permission-inference timer is about to fire. It runs on a
// goroutine of its own, never on the one that applies hooks.
type Observer interface {
	Observe(ctx context.Context, targets []Target) Report
}

// Report is one process check.
type Report struct {
	Sessions map[session.Key]Observation
	Machine  MachineMemory // zero when not measured
}

// MachineMemory is the machine's memory, for the board's header.
type MachineMemory struct {
	Total, Used uint64
}

// Options configure a Service. Zero values take the defaults noted.
type Options struct {
	State hookstate.Config
	// ProcessCheck is how often live sessions' processes are checked;
	// default 15 s.
	ProcessCheck time.Duration
	Observer     Observer // nil: no process checks (tests, platforms without /proc)
	// Agents lists the machine's agent processes, every Discover; nil
	// turns the scan off.
	Agents   func(ctx context.Context) ([]procscan.AgentProcess, error)
	Discover time.Duration // default 20 s
	// Persist keeps cards across restarts; nil keeps them in memory only.
	Persist Persister
	Logger  *slog.Logger
	Now     func() time.Time
	// Queue is how many events may wait for the owner; default 4096. A
	// hook that finds it full waits (up to its own deadline) rather than
	// lose its event.
	Queue int
}

// Service is the live state. Create it with New and start it with Run;
// every other method is safe for concurrent use.
type Service struct {
	opts Options
	log  *slog.Logger
	now  func() time.Time

	events   chan arrival
	calls    chan call
	tunes    chan Tuning
	stopped  chan struct{}
	restored chan struct{}
	changes  *broadcast.Broadcaster[session.Change]

	mu      sync.RWMutex
	cards   map[session.Key]Card
	machine MachineMemory

	received, dropped atomic.Uint64
}

type arrival struct {
	ev hookstate.Event
	at time.Time
}

// New returns a Service; it does nothing until Run.
func New(o Options) *Service {
	if o.ProcessCheck <= 0 {
		o.ProcessCheck = hookstate.DefaultProcessCheckInterval
	}
	if o.Queue <= 0 {
		o.Queue = 4096
	}
	if o.Discover <= 0 {
		o.Discover = 20 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Service{
		opts: o, log: o.Logger, now: o.Now,
		events:   make(chan arrival, o.Queue),
		calls:    make(chan call),
		tunes:    make(chan Tuning),
		stopped:  make(chan struct{}),
		restored: make(chan struct{}),
		changes: broadcast.New(func() session.Change { return session.Change{Full: true} }, func(c session.Change) session.Change {
			return session.Change{Updated: slices.Clone(c.Updated), Removed: slices.Clone(c.Removed), Full: c.Full}
		}),
		cards: map[session.Key]Card{},
	}
}

// HookEvent takes one accepted hook event (hookchannel.Sink). It only
// queues it: the hook is answered at once and the owner applies it.
func (s *Service) HookEvent(ctx context.Context, ev hookstate.Event) {
	at := s.now()
	ev.Time = onServiceClock(ev.Time, at)
	a := arrival{ev: ev, at: at}
	// Names, kinds and ids only: prompts and tool inputs stay out of logs.
	s.log.LogAttrs(ctx, slog.LevelDebug, "hook event",
		slog.String("runtime", ev.Runtime), slog.String("session", ev.SessionID),
		slog.String("event", ev.Name), slog.String("kind", string(ev.Kind)),
		slog.String("tool", ev.ToolName), slog.Int("pid", ev.Relay.PID),
		slog.String("terminal", ev.Relay.TerminalID), slog.String("tty", ev.Relay.TTY))
	select {
	case s.events <- a:
		s.received.Add(1)
		return
	default:
	}
	select {
	case s.events <- a:
		s.received.Add(1)
	case <-ctx.Done():
		s.dropped.Add(1)
		s.log.Warn("live: hook event dropped, the owner is behind", "runtime", ev.Runtime, "event", ev.Name)
	case <-s.stopped:
		s.dropped.Add(1)
	}
}

// maxStampLag is the most an event's stamp may precede its arrival and
// still be read as the time it was sent: a relay posts within seconds.
// A stamp further off, before or after, comes from a clock that was set
// in between (or from another machine's clock).
const maxStampLag = time.Minute

// onServiceClock expresses an event's stamp (a relay's wall clock, or the
// agent's own) on the Service's clock: the arrival, less how long before
// it the event was stamped. The states' times then all carry the
// monotonic reading of the Service's clock, so the wall clock being set
// back or forward — NTP stepping it, a board without a real-time clock
// syncing after boot — neither freezes a card (every event after a step
// back would look older than its state's cause, and be ignored as a
// straggler) nor fires its timers early. The order of two stamps that
// arrive out of order is kept. Zero stays zero.
func onServiceClock(sent, arrived time.Time) time.Time {
	if sent.IsZero() {
		return sent
	}
	lag := arrived.Round(0).Sub(sent) // wall against wall
	if lag > maxStampLag || lag < -maxStampLag {
		return arrived
	}
	return arrived.Add(-max(lag, 0))
}

// Stats counts events.
type Stats struct {
	Received, Dropped uint64
	Cards             int
}

// Stats returns the counters.
func (s *Service) Stats() Stats {
	s.mu.RLock()
	n := len(s.cards)
	s.mu.RUnlock()
	return Stats{Received: s.received.Load(), Dropped: s.dropped.Load(), Cards: n}
}

// Card returns the live card of k.
func (s *Service) Card(k session.Key) (Card, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c, ok := s.cards[k]
	if !ok {
		return Card{}, false
	}
	return c.clone(), true
}

// Cards returns every live card, sorted by key.
func (s *Service) Cards() []Card {
	s.mu.RLock()
	out := make([]Card, 0, len(s.cards))
	for _, c := range s.cards {
		out = append(out, c.clone())
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b Card) int { return a.Key.Compare(b.Key) })
	return out
}

// ByTerminal returns the card of a hosted terminal, whatever session id
// it has by now.
func (s *Service) ByTerminal(id string) (Card, bool) {
	if id == "" {
		return Card{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, c := range s.cards {
		if c.TerminalID == id {
			return c.clone(), true
		}
	}
	return Card{}, false
}

// Machine is the machine's memory from the last process check.
func (s *Service) Machine() MachineMemory {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.machine
}

// Subscribe returns a channel of changed card keys and a func to stop.
func (s *Service) Subscribe() (<-chan session.Change, func()) { return s.changes.Subscribe() }

// Host registers a hosted terminal (its card shows connecting until the
// first hook) and returns the card's key.
func (s *Service) Host(ctx context.Context, t Terminal) (session.Key, error) {
	var key session.Key
	err := s.call(ctx, func(o *owner, u *update) { key = o.host(t, s.now(), u) })
	return key, err
}

// Adopt re-registers a hosted terminal still running after a restart, on
// the card key it had (see owner.adopt).
func (s *Service) Adopt(ctx context.Context, t Terminal, key session.Key) (session.Key, error) {
	var out session.Key
	err := s.call(ctx, func(o *owner, u *update) { out = o.adopt(t, key, s.now(), u) })
	return out, err
}

// Sleep marks the card of a hosted terminal paddock closed to free memory
// as asleep, and forgets the terminal. It reports whether there was one.
func (s *Service) Sleep(ctx context.Context, terminalID string, freed uint64) (bool, error) {
	var ok bool
	err := s.call(ctx, func(o *owner, u *update) {
		t := o.terms[terminalID]
		if t == nil {
			return
		}
		delete(o.terms, terminalID)
		if m := o.tracker.Get(t.key); m != nil {
			m.MarkAsleep(s.now())
			if md := o.meta[t.key]; md != nil {
				md.freed = freed
			}
			o.record(t.key)
			u.touch(t.key)
			ok = true
		}
	})
	return ok, err
}

// Restarting puts the card of a hosted terminal into connecting and
// forgets the terminal, before hosting closes it to start the agent again
// (see owner.restarting). It reports the card's key; false when the
// terminal is unknown.
func (s *Service) Restarting(ctx context.Context, terminalID string) (session.Key, bool, error) {
	var key session.Key
	var ok bool
	err := s.call(ctx, func(o *owner, u *update) { key, ok = o.restarting(terminalID, s.now(), u) })
	return key, ok, err
}

// Restored is closed once the saved cards are back (or there were none):
// hosted terminals are re-attached to them after that.
func (s *Service) Restored() <-chan struct{} { return s.restored }

// Unhost forgets a hosted terminal whose window is gone; its card ends
// now rather than at the next process check.
func (s *Service) Unhost(ctx context.Context, id string) error {
	return s.call(ctx, func(o *owner, u *update) { o.unhost(id, s.now(), u) })
}

// MarkRead moves a card's read baseline to now (its unread result seen).
func (s *Service) MarkRead(ctx context.Context, k session.Key) error {
	return s.call(ctx, func(o *owner, u *update) {
		if m := o.tracker.Get(k); m != nil && m.MarkRead(s.now()) {
			u.touch(k)
		}
	})
}

// Tuning is what the user may change of a running Service: the
// permission signals used and how often processes are checked.
type Tuning struct {
	Density      hookstate.Density
	ProcessCheck time.Duration // > 0
}

// Tune applies t from the next event and the next check on; it returns
// once the owner has it.
func (s *Service) Tune(ctx context.Context, t Tuning) error {
	if t.ProcessCheck <= 0 {
		return errors.New("live: a process check interval must be positive")
	}
	select {
	case s.tunes <- t:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stopped:
		return stoppedError{}
	}
}

// errStopped is returned by calls made when Run is not running.
type stoppedError struct{}

func (stoppedError) Error() string { return "live: not running" }

func (s *Service) call(ctx context.Context, f func(*owner, *update)) error {
	done := make(chan struct{})
	select {
	case s.calls <- call{f: f, done: done}:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.stopped:
		return stoppedError{}
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// observeGrace bounds how long corrections wait for a process check.
const observeGrace = 2 * time.Second

// minTimer keeps a deadline in the past from spinning the loop.
const minTimer = time.Millisecond

// maxBatch bounds how many queued events are applied before publishing.
const maxBatch = 256

// Run owns the live state until ctx is done.
func (s *Service) Run(ctx context.Context) error {
	defer close(s.stopped)
	l := s.newRunLoop(ctx)
	defer l.stop()
	l.restore()
	close(s.restored)
	l.observe(l.o.targets())

	for {
		l.armTimer()
		u := newUpdate()
		var answered chan struct{} // a call's, closed after publishing
		select {
		case <-ctx.Done():
			l.onDone()
			return nil
		case <-l.saveTick.C:
			l.onSaveTick()
		case <-l.saved:
			l.onSaved()
		case a := <-s.events:
			l.onEvent(a, u)
		case <-l.timer.C:
			l.onTimer(u)
		case <-l.check.C:
			l.onCheck()
		case <-l.discover.C:
			l.onDiscover()
		case procs := <-l.found:
			l.onFound(procs, u)
		case r := <-l.results:
			l.onResults(r, u)
		case c := <-s.calls:
			answered = l.onCall(c, u)
		case t := <-s.tunes:
			l.onTune(t)
		}
		l.commit(u, answered)
	}
}

// runLoop is Run's state: the owner, the timers and tickers that drive
// it, and the process checks, scans and saves it has in flight. Only
// Run's goroutine touches it; the goroutines it starts report back on
// its channels.
type runLoop struct {
	s *Service
	// ctx is Run's: the checks, scans and saves started here end with it.
	ctx context.Context
	o   *owner

	timer    *time.Timer // the owner's next deadline
	check    *time.Ticker
	discover *time.Ticker
	saveTick *time.Ticker

	wg          sync.WaitGroup
	results     chan Report
	found       chan []procscan.AgentProcess
	observing   bool // a process check is in flight
	discovering bool // a process-table scan is in flight
	// held: the timer's corrections wait for the tool-children check they
	// started (bounded by observeGrace should the check hang).
	held bool

	dirty  map[session.Key]bool // cards changed since the last save
	saving bool                 // a save is in flight
	saved  chan struct{}
}

func (s *Service) newRunLoop(ctx context.Context) *runLoop {
	l := &runLoop{s: s, ctx: ctx, o: newOwner(s.opts.State)}
	l.timer = time.NewTimer(time.Hour)
	l.check = time.NewTicker(s.opts.ProcessCheck)
	l.results = make(chan Report, 1)
	l.found = make(chan []procscan.AgentProcess, 1)
	l.discover = time.NewTicker(s.opts.Discover)
	l.dirty = map[session.Key]bool{}
	l.saved = make(chan struct{}, 1)
	l.saveTick = time.NewTicker(saveEvery)
	return l
}

// stop releases the timers and waits for what the loop started.
func (l *runLoop) stop() {
	l.saveTick.Stop()
	l.discover.Stop()
	l.wg.Wait()
	l.check.Stop()
	l.timer.Stop()
}

// restore brings back the saved cards, runs the corrections that fell
// due while paddock was down, and publishes them.
func (l *runLoop) restore() {
	s, o, ctx := l.s, l.o, l.ctx
	p := s.opts.Persist
	if p == nil {
		return
	}
	if _, err := p.PruneLiveCards(ctx, s.now().Add(-keepSaved)); err != nil {
		s.log.Warn("live: pruning saved cards failed", "error", err)
	}
	cards, err := p.LiveCards(ctx)
	if err != nil {
		s.log.Warn("live: saved cards not loaded; states start afresh", "error", err)
	}
	if n := o.restore(s.opts.State, cards); n > 0 {
		u := newUpdate()
		for _, k := range o.tracker.Keys() {
			u.touch(k)
		}
		o.tick(s.now(), u) // corrections due while paddock was down
		s.publish(o, u)
		s.log.Info("live: restored cards", "cards", n)
	}
}

// observe starts a process check of ts, unless there is no observer or
// one is in flight; its report arrives on results.
func (l *runLoop) observe(ts []Target) {
	s, ctx := l.s, l.ctx
	if s.opts.Observer == nil || l.observing {
		return
	}
	l.observing = true
	l.wg.Go(func() {
		r := s.opts.Observer.Observe(ctx, ts)
		select {
		case l.results <- r:
		case <-ctx.Done():
		}
	})
}

// flush writes the dirty cards; final: synchronously, on the way out.
func (l *runLoop) flush(final bool) {
	s, ctx := l.s, l.ctx
	if s.opts.Persist == nil || len(l.dirty) == 0 || l.saving {
		return
	}
	cards, gone := l.o.save(l.dirty, s.now())
	l.dirty = map[session.Key]bool{}
	write := func(ctx context.Context) {
		if err := s.opts.Persist.SaveLiveCards(ctx, cards, gone); err != nil {
			s.log.Warn("live: saving cards failed", "error", err)
		}
	}
	if final {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		write(c)
		return
	}
	l.saving = true
	l.wg.Go(func() {
		write(ctx)
		l.saved <- struct{}{}
	})
}

// armTimer sets the timer for the owner's next deadline, or, while held,
// for the end of the wait on the tool-children check.
func (l *runLoop) armTimer() {
	s := l.s
	if l.held {
		arm(l.timer, s.now().Add(observeGrace), s.now())
	} else {
		arm(l.timer, l.o.tracker.NextDeadline(), s.now())
	}
}

// onDone: Run's context ended. What is in flight finishes first, so the
// last save is not skipped as one already running, and goes out
// synchronously.
func (l *runLoop) onDone() {
	l.wg.Wait()
	l.saving = false
	l.flush(true)
}

// onSaveTick: time to write the cards changed since the last save.
func (l *runLoop) onSaveTick() { l.flush(false) }

// onSaved: a save finished; the next may start.
func (l *runLoop) onSaved() { l.saving = false }

// onEvent applies a hook event and, without waiting, up to maxBatch more
// already queued, so that a burst is published once.
func (l *runLoop) onEvent(a arrival, u *update) {
	o := l.o
	o.event(a.ev, a.at, u)
	for range maxBatch {
		select {
		case a = <-l.s.events:
			o.event(a.ev, a.at, u)
			continue
		default:
		}
		break
	}
}

// onTimer: the owner's next deadline came (or the wait for a check it
// started ran out).
func (l *runLoop) onTimer(u *update) {
	s := l.s
	now := s.now()
	// A tool timer about to turn into "approval": look at the agent's
	// children first (a slow build is not a dialog).
	if ts := dueTools(l.o, now); !l.held && len(ts) > 0 && s.opts.Observer != nil && !l.observing {
		l.observe(ts)
		l.held = true
		return
	}
	l.held = false
	l.o.tick(now, u)
}

// onCheck: a process check is due.
func (l *runLoop) onCheck() { l.observe(l.o.targets()) }

// onDiscover: a scan of the process table for agents is due, unless the
// scan is off or one is in flight; its result arrives on found.
func (l *runLoop) onDiscover() {
	s, ctx := l.s, l.ctx
	if s.opts.Agents == nil || l.discovering {
		return
	}
	l.discovering = true
	l.wg.Go(func() {
		procs, err := s.opts.Agents(ctx)
		if err != nil {
			s.log.Debug("agent process scan failed", "error", err)
		}
		select {
		case l.found <- procs:
		case <-ctx.Done():
		}
	})
}

// onFound binds the agent processes a scan found to their cards.
func (l *runLoop) onFound(procs []procscan.AgentProcess, u *update) {
	l.discovering = false
	l.o.discovered(procs, u)
}

// onResults stores a process check's report, runs the corrections it
// allows and keeps the machine's memory for the board.
func (l *runLoop) onResults(r Report, u *update) {
	s, o := l.s, l.o
	l.observing, l.held = false, false
	o.observed(r.Sessions, s.now(), u)
	o.prune(s.now(), u)
	if r.Machine != (MachineMemory{}) {
		s.mu.Lock()
		s.machine = r.Machine
		s.mu.Unlock()
	}
}

// onTune takes the user's new density and check interval.
func (l *runLoop) onTune(t Tuning) {
	l.o.tracker.SetDensity(t.Density)
	l.check.Reset(t.ProcessCheck)
}

// onCall runs a call on the owner; it returns the channel to close once
// what the call changed is published.
func (l *runLoop) onCall(c call, u *update) chan struct{} {
	c.f(l.o, u)
	return c.done
}

// commit marks what one step changed for the next save and publishes
// it, then lets a waiting call return.
func (l *runLoop) commit(u *update, answered chan struct{}) {
	for k := range u.changed {
		l.dirty[k] = true
	}
	for k := range u.removed {
		l.dirty[k] = true
	}
	l.s.publish(l.o, u)
	if answered != nil {
		// The caller returns once the cards it changed are published:
		// reading a card right after a call must see its effect.
		close(answered)
	}
}

// call is a function run on Run's goroutine (see Service.call); done is
// closed once what it changed is published.
type call struct {
	f    func(*owner, *update)
	done chan struct{}
}

// dueTools lists the sessions whose next deadline has come while a tool
// call is in flight.
func dueTools(o *owner, now time.Time) []Target {
	var ts []Target
	for _, t := range o.targets() {
		m := o.tracker.Get(t.Key)
		if d := m.NextDeadline(); !t.ToolSince.IsZero() && !d.IsZero() && !d.After(now) {
			ts = append(ts, t)
		}
	}
	return ts
}

func arm(t *time.Timer, deadline, now time.Time) {
	d := time.Hour
	if !deadline.IsZero() {
		d = max(deadline.Sub(now), minTimer)
	}
	t.Reset(d)
}

// publish copies the changed cards out and tells subscribers.
func (s *Service) publish(o *owner, u *update) {
	if u.empty() {
		return
	}
	s.mu.Lock()
	for k := range u.changed {
		if c, ok := o.card(k); ok {
			s.cards[k] = c
		} else {
			delete(s.cards, k)
			u.drop(k)
		}
	}
	for k := range u.removed {
		delete(s.cards, k)
	}
	s.mu.Unlock()
	s.changes.Publish(u.change())
}
