// Package hold holds the agents' decision hooks open for the phone: it
// turns a hook event that may carry a decision into an item the phone
// answers (internal/decisions), waits for the answer, and writes it back in
// the agent's own format. It is the hook listener's Decider and so sees
// every hook event: a prompt the user answered at the desk is released at
// once.
//
// What each agent takes — which events, how long they are held, what the
// phone may answer, how an answer is encoded — is that agent's Policy, in
// its own package. This package is the mechanism: hold, release, answer
// exactly once. Anything paddock does not decide is answered with no
// decision at once, and so is every item whose hold ends: the agent's own
// prompt then takes over. paddock never denies by silence.
package hold

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/hookstate"
	"paddock/internal/session"
)

// Broker is what a Service needs of the decisions.
type Broker interface {
	Open(ctx context.Context, it decisions.Item) (decisions.Item, <-chan decisions.Outcome, error)
	Release(ctx context.Context, id string, res decisions.Resolution, by string) (decisions.Item, bool)
	ReleaseSession(ctx context.Context, k session.Key, toolUseID string, res decisions.Resolution, by string) []decisions.Item
	List(f decisions.Filter) []decisions.Item
}

// Options configure a Service. Zero values take the defaults noted.
type Options struct {
	Broker Broker
	// Policies are the agents' decision policies, by agent name; an agent
	// without one is never held.
	Policies map[string]Policy
	// Holds overrides Policy.Hold by agent name (a serve flag); 0 or less
	// never holds that agent's prompts.
	Holds  map[string]time.Duration
	Logger *slog.Logger
	// Watching reports whether someone may answer on the phone (a paired
	// device seen lately). Agents that wait for the hold (every Policy
	// without Unwatched) are held only then; nil: always.
	Watching func() bool
	Now      func() time.Time
}

// Service is the hook listener's Decider.
type Service struct {
	o   Options
	log *slog.Logger
	// jobs are requests answered through an agent's own server (Policy.
	// Observe): Run's goroutines watch them.
	jobs chan func(context.Context)
	// stopping: paddock is shutting down; held hooks let go without
	// resolving their items (the next start marks them expired).
	stopping atomic.Bool
}

// Stop tells the held hooks that paddock is stopping: they answer no
// decision at once and leave their items pending for the next start to
// mark expired.
func (s *Service) Stop() { s.stopping.Store(true) }

// maxJobs bounds the requests waiting to be watched.
const maxJobs = 256

// Run watches the requests answered through an agent's server until ctx
// ends; every goroutine it starts ends with it.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return nil
		case job := <-s.jobs:
			wg.Go(func() { job(ctx) })
		}
	}
}

// New returns a Service; Broker is required.
func New(o Options) *Service {
	if o.Broker == nil {
		panic("approvals: a Broker is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{o: o, log: log, jobs: make(chan func(context.Context), maxJobs)}
}

// host is what an agent's Observe may use.
func (s *Service) host() Host {
	return Host{Broker: s.o.Broker, Log: s.log, Now: s.o.Now, jobs: s.jobs}
}

// Hold opens an item for a decision event paddock answers from the phone
// and returns the wait for its answer (hookchannel.Decider).
func (s *Service) Hold(ctx context.Context, ev hookstate.Event, payload []byte) (time.Time, func(context.Context) []byte, bool) {
	p, ok := s.o.Policies[ev.Runtime]
	if ok && p.Observe != nil {
		p.Observe(ctx, ev, payload, s.host())
		return time.Time{}, nil, false
	}
	if !ok || !slices.Contains(p.Events, ev.Name) || ev.SessionID == "" {
		s.desk(ctx, ev, payload)
		return time.Time{}, nil, false
	}
	req, err := ParseRequest(payload)
	if err != nil {
		s.log.Warn("decision hook not held: its payload is not the recorded shape", "runtime", ev.Runtime, "error", err)
		return time.Time{}, nil, false
	}
	req.Event = ev.Name
	watching := s.o.Watching == nil || s.o.Watching()
	if p.Held != nil && !p.Held(ev, req, watching) {
		s.desk(ctx, ev, payload)
		return time.Time{}, nil, false
	}
	hold := p.Hold
	if h, set := s.o.Holds[ev.Runtime]; set {
		hold = h
	}
	if hold <= 0 || !p.Unwatched && !watching {
		return time.Time{}, nil, false // off, or nobody to answer: the agent goes on at once
	}
	now := s.o.Now()
	it := p.Item(ev, req)
	it.Key, it.Cwd, it.Created, it.Expires = ev.Key(), ev.Cwd, now, now.Add(hold)
	it, outcome, err := s.o.Broker.Open(ctx, it)
	if err != nil {
		s.log.Warn("decision hook not held", "runtime", ev.Runtime, "session", ev.SessionID, "error", err)
		return time.Time{}, nil, false
	}
	s.log.Info("holding a decision for the phone", "item", it.ID, "kind", it.Kind, "session", it.Key.String(), "tool", it.Tool, "hold", hold)
	wait := func(ctx context.Context) []byte {
		select {
		case out, ok := <-outcome:
			if !ok {
				return nil
			}
			body := p.Encode(req, out)
			s.log.Info("decision answered", "item", it.ID, "resolution", out.Item.Resolution, "by", out.Item.ResolvedBy, "decided", body != nil)
			return body
		case <-ctx.Done():
			if s.stopping.Load() {
				return nil
			}
			// The hook hung up: the agent went on without paddock (the
			// user answered in its terminal), or its hold ended.
			res, by := decisions.Desk, "desk"
			if !s.o.Now().Before(it.Expires) {
				res, by = decisions.Expired, "paddock"
			}
			if _, ok := s.o.Broker.Release(context.WithoutCancel(ctx), it.ID, res, by); ok {
				s.log.Info("decision released", "item", it.ID, "resolution", res)
			}
			// Released now, or decided a moment before: the outcome is
			// on its way (the broker delivers it before Decide returns),
			// or a decision is being recorded and the outcome follows
			// its record, within MaxRecord. No decision is answered in
			// the agent's own words where it needs some (Cursor's
			// "ask"); nil for the others.
			select {
			case out, ok := <-outcome:
				if ok {
					return p.Encode(req, out)
				}
			case <-time.After(decisions.MaxRecord + time.Second):
			}
			return nil
		}
	}
	return it.Expires, wait, true
}

// desk releases the items of a session the user answered at the desk,
// as the event shows: the tool ran or was refused (the same tool with the
// same input: another tool running beside it says nothing), or the main
// agent's turn ended, a new prompt came, or the session ended — the agent
// no longer waits for paddock.
func (s *Service) desk(ctx context.Context, ev hookstate.Event, payload []byte) {
	if ev.SessionID == "" {
		return
	}
	var got []decisions.Item
	switch ev.Kind {
	case hookstate.KindToolEnd:
		// Every tool's end passes here: parse it only when something of
		// the session waits.
		waiting := s.o.Broker.List(decisions.Filter{Key: ev.Key(), PendingOnly: true})
		if len(waiting) == 0 {
			return
		}
		r, err := ParseRequest(payload)
		if err != nil {
			return
		}
		for _, it := range waiting {
			if it.Tool == r.Tool && sameJSON(it.Input, r.Input) {
				if it, ok := s.o.Broker.Release(ctx, it.ID, decisions.Desk, "desk"); ok {
					got = append(got, it)
				}
			}
		}
	case hookstate.KindStop, hookstate.KindPrompt, hookstate.KindSessionEnd, hookstate.KindInterrupt:
		if ev.AgentID != "" {
			return // a subagent's end says nothing of the main agent's prompts
		}
		if ev.Time.IsZero() {
			got = s.o.Broker.ReleaseSession(ctx, ev.Key(), "", decisions.Desk, "desk")
			break
		}
		// Hooks of one session travel as separate requests and may arrive
		// out of order: a prompt, stop or end releases only what was asked
		// before the agent fired it, never the next turn's prompt that
		// happened to arrive first.
		for _, it := range s.o.Broker.List(decisions.Filter{Key: ev.Key(), PendingOnly: true}) {
			if it.Created.Before(ev.Time) {
				if it, ok := s.o.Broker.Release(ctx, it.ID, decisions.Desk, "desk"); ok {
					got = append(got, it)
				}
			}
		}
	default:
		return
	}
	if len(got) > 0 {
		s.log.Info("answered at the desk", "session", ev.Key().String(), "items", len(got), "by_event", ev.Name)
	}
}

// sameJSON compares two JSON values by meaning (key order and spacing
// aside).
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Request is what a decision hook's payload says, as far as paddock
// answers it. Claude Code and Codex send tool_input and tool_use_id;
// paddock's Pi extension sends input and tool_call_id.
type Request struct {
	Tool        string          `json:"tool_name"`
	ToolUseID   string          `json:"tool_use_id"`
	Input       json.RawMessage `json:"tool_input"`
	Suggestions json.RawMessage `json:"permission_suggestions"`
	PiInput     json.RawMessage `json:"input"`
	ToolCallID  string          `json:"tool_call_id"`
	Event       string          `json:"-"`       // the hook event it came with
	Command     string          `json:"command"` // Cursor's beforeShellExecution
	URL         string          `json:"url"`     // Cursor's beforeMCPExecution: the MCP server
}

// ParseRequest reads a decision hook's payload.
func ParseRequest(payload []byte) (Request, error) {
	var r Request
	if err := json.Unmarshal(payload, &r); err != nil {
		return r, err
	}
	if len(r.Input) == 0 {
		r.Input, r.PiInput = r.PiInput, nil
	}
	if r.ToolUseID == "" {
		r.ToolUseID = r.ToolCallID
	}
	if len(r.Input) == 0 || string(r.Input) == "null" {
		r.Input = json.RawMessage(`{}`)
	}
	if string(r.Suggestions) == "null" {
		r.Suggestions = nil
	}
	return r, nil
}
