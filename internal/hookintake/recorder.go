package hookintake

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// Recorder is a Sink that keeps the last events of each session and counts
// them by kind, and logs each at debug level. serve uses it until the state
// tracker takes the events; it is bounded in both directions (events per
// session, sessions) so that a flood of session ids cannot grow it.
type Recorder struct {
	perSession  int
	maxSessions int
	log         *slog.Logger

	mu       sync.Mutex
	sessions map[session.Key]*recent
	total    uint64
	byKind   map[hookstate.Kind]uint64
	evicted  uint64
}

type recent struct {
	events []hookstate.Event // ring: next is the slot of the oldest once full
	next   int
	seen   time.Time // arrival of the latest event, for eviction
}

// NewRecorder keeps up to perSession events for each of up to maxSessions
// sessions (defaults 20 and 256 when ≤ 0); the least recently active
// session makes room for a new one.
func NewRecorder(perSession, maxSessions int, log *slog.Logger) *Recorder {
	if perSession <= 0 {
		perSession = 20
	}
	if maxSessions <= 0 {
		maxSessions = 256
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recorder{perSession: perSession, maxSessions: maxSessions, log: log,
		sessions: map[session.Key]*recent{}, byKind: map[hookstate.Kind]uint64{}}
}

// HookEvent records ev. Events without a session id (process-level ones)
// are kept under the runtime with an empty id.
func (r *Recorder) HookEvent(ctx context.Context, ev hookstate.Event) {
	// Names, kinds and ids only: prompts and tool inputs stay out of logs.
	r.log.LogAttrs(ctx, slog.LevelDebug, "hook event",
		slog.String("runtime", ev.Runtime), slog.String("session", ev.SessionID),
		slog.String("event", ev.Name), slog.String("kind", string(ev.Kind)),
		slog.String("tool", ev.ToolName), slog.Int("pid", ev.Relay.PID),
		slog.String("terminal", ev.Relay.TerminalID), slog.String("tty", ev.Relay.TTY))

	now := time.Now()
	k := ev.Key()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	r.byKind[ev.Kind]++
	s := r.sessions[k]
	if s == nil {
		if len(r.sessions) >= r.maxSessions {
			r.evictOldest()
		}
		s = &recent{events: make([]hookstate.Event, 0, min(r.perSession, 8))}
		r.sessions[k] = s
	}
	s.seen = now
	if len(s.events) < r.perSession {
		s.events = append(s.events, ev)
		return
	}
	s.events[s.next] = ev
	s.next = (s.next + 1) % r.perSession
}

func (r *Recorder) evictOldest() {
	var oldest session.Key
	var at time.Time
	first := true
	for k, s := range r.sessions {
		if first || s.seen.Before(at) {
			oldest, at, first = k, s.seen, false
		}
	}
	delete(r.sessions, oldest)
	r.evicted++
}

// Recent returns the kept events of a session, oldest first.
func (r *Recorder) Recent(k session.Key) []hookstate.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[k]
	if s == nil {
		return nil
	}
	out := make([]hookstate.Event, 0, len(s.events))
	out = append(out, s.events[s.next:]...)
	return append(out, s.events[:s.next]...)
}

// RecorderCounts is what a Recorder has seen.
type RecorderCounts struct {
	Events   uint64                    `json:"events"`
	ByKind   map[hookstate.Kind]uint64 `json:"by_kind,omitempty"`
	Sessions int                       `json:"sessions"` // sessions kept now
	Evicted  uint64                    `json:"evicted,omitempty"`
}

// Counts returns a copy of the counters.
func (r *Recorder) Counts() RecorderCounts {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := RecorderCounts{Events: r.total, ByKind: make(map[hookstate.Kind]uint64, len(r.byKind)), Sessions: len(r.sessions), Evicted: r.evicted}
	for k, v := range r.byKind {
		c.ByKind[k] = v
	}
	return c
}
