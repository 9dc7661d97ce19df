package hookchannel

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"paddock/internal/hookstate"
)

// Decider holds the events paddock decides from the phone. Hold is called
// for every accepted event, after the Sink, on the request's goroutine,
// and must return at once: ok is false for an event it does not decide.
// When ok, wait blocks until the decision (the body to answer with; nil
// for none) or until ctx ends (the hook hung up); it must return by until.
type Decider interface {
	Hold(ctx context.Context, ev hookstate.Event, payload []byte) (until time.Time, wait func(ctx context.Context) []byte, ok bool)
}

// Sink receives every accepted event. HookEvent runs on the request's
// goroutine while the hook waits for its answer (the relay gives up after
// 100 ms), so it must be quick: hand the event over, don't process it there.
// ctx is the request's and ends when the hook hangs up.
type Sink interface {
	HookEvent(ctx context.Context, ev hookstate.Event)
}

// Reason is why a request was rejected.
type Reason string

// Rejection reasons, as counted in Stats.
const (
	ReasonBadHost        Reason = "bad_host"        // Host header not a loopback name (DNS rebinding): 403
	ReasonUnauthorized   Reason = "unauthorized"    // missing or wrong secret: 401
	ReasonNotFound       Reason = "not_found"       // not /hook/{runtime}[/{event}]: 404
	ReasonMethod         Reason = "method"          // not POST: 405
	ReasonUnknownRuntime Reason = "unknown_runtime" // a runtime hookstate does not decode: 404
	ReasonTooLarge       Reason = "too_large"       // body over MaxBody: 413
	ReasonReadError      Reason = "read_error"      // the body could not be read (client gone): 400
	ReasonMalformed      Reason = "malformed"       // not JSON, not an object, a required field wrong: 400
)

var reasons = []Reason{ReasonBadHost, ReasonUnauthorized, ReasonNotFound, ReasonMethod,
	ReasonUnknownRuntime, ReasonTooLarge, ReasonReadError, ReasonMalformed}

// HandlerOptions configure a Handler.
type HandlerOptions struct {
	Secret string // required: the content of SecretFile
	Sink   Sink   // required
	// Decoders read each agent's payloads (required): /hook/{runtime}
	// takes the agents listed here and no other.
	Decoders hookstate.Decoders
	// Decider holds decision events for the phone; nil: none is held.
	Decider Decider
	Logger  *slog.Logger
	// MaxBody bounds a request body; default (and most) MaxBody.
	MaxBody int64
	Now     func() time.Time // default time.Now
}

// Handler is the hook listener's http.Handler.
type Handler struct {
	secret   [sha256.Size]byte
	sink     Sink
	decider  Decider
	log      *slog.Logger
	maxBody  int64
	now      func() time.Time
	decoders hookstate.Decoders
	runtimes []string

	accepted  atomic.Uint64
	byRuntime []atomic.Uint64 // parallel to runtimes
	rejected  []atomic.Uint64 // parallel to reasons
	lastWarn  []atomic.Int64  // parallel to reasons: unix nanos of the last warning
	lastEvent atomic.Int64    // unix nanos of the last accepted event
	answers   answerTimes     // the posts answered at once (not held)
}

// warnEvery is how often one rejection reason is logged at warn level;
// the rest go to debug, so a misbehaving client cannot flood the log.
const warnEvery = time.Minute

// NewHandler returns the handler; it panics on a missing secret or sink, which
// is a wiring bug, not an input.
func NewHandler(o HandlerOptions) *Handler {
	if o.Secret == "" || o.Sink == nil || len(o.Decoders) == 0 {
		panic("hookchannel: NewHandler needs a Secret, a Sink and Decoders")
	}
	h := &Handler{
		secret:   sha256.Sum256([]byte(o.Secret)),
		sink:     o.Sink,
		decider:  o.Decider,
		log:      o.Logger,
		maxBody:  o.MaxBody,
		now:      o.Now,
		decoders: o.Decoders,
		runtimes: o.Decoders.Names(),
	}
	if h.log == nil {
		h.log = slog.New(slog.DiscardHandler)
	}
	if h.maxBody <= 0 || h.maxBody > MaxBody {
		h.maxBody = MaxBody
	}
	if h.now == nil {
		h.now = time.Now
	}
	h.byRuntime = make([]atomic.Uint64, len(h.runtimes))
	h.rejected = make([]atomic.Uint64, len(reasons))
	h.lastWarn = make([]atomic.Int64, len(reasons))
	return h
}

// Stats is what the handler has counted since it started; safe to show
// (no secrets, no payload content).
type Stats struct {
	Accepted  uint64            `json:"accepted"`
	ByRuntime map[string]uint64 `json:"by_runtime,omitempty"` // accepted, per runtime
	Rejected  map[Reason]uint64 `json:"rejected,omitempty"`   // only reasons seen
	LastEvent time.Time         `json:"last_event,omitzero"`  // arrival of the last accepted event
	// Answers are how long the accepted posts not held for the phone
	// took to answer, from their body read to the 204: decoding, handing
	// the event on, releasing what it answered at the desk.
	Answers AnswerTimes `json:"answers"`
}

// RejectedTotal is the sum over every reason.
func (s Stats) RejectedTotal() uint64 {
	var n uint64
	for _, v := range s.Rejected {
		n += v
	}
	return n
}

// Stats returns the counters.
func (h *Handler) Stats() Stats {
	s := Stats{Accepted: h.accepted.Load(), ByRuntime: map[string]uint64{}, Rejected: map[Reason]uint64{}}
	for i, rt := range h.runtimes {
		if n := h.byRuntime[i].Load(); n > 0 {
			s.ByRuntime[rt] = n
		}
	}
	for i, r := range reasons {
		if n := h.rejected[i].Load(); n > 0 {
			s.Rejected[r] = n
		}
	}
	if ns := h.lastEvent.Load(); ns != 0 {
		s.LastEvent = time.Unix(0, ns)
	}
	s.Answers = h.answers.summary()
	return s
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Defence in depth: a browser page reaching this port through a
	// rebinding DNS name carries that name in Host; the secret would stop
	// it anyway.
	if !loopbackHost(r.Host) {
		h.reject(w, r, ReasonBadHost, http.StatusForbidden, "the hook listener answers loopback names only")
		return
	}
	if !h.authorized(r.Header.Get(SecretHeader)) {
		h.reject(w, r, ReasonUnauthorized, http.StatusUnauthorized, "missing or wrong "+SecretHeader+" header")
		return
	}
	runtime, event, ok := splitPath(r.URL)
	if !ok {
		h.reject(w, r, ReasonNotFound, http.StatusNotFound, "not found: POST "+PathPrefix+"{runtime}[/{event}]")
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reject(w, r, ReasonMethod, http.StatusMethodNotAllowed, "method not allowed: use POST")
		return
	}
	rt := slices.Index(h.runtimes, runtime)
	if rt < 0 {
		h.reject(w, r, ReasonUnknownRuntime, http.StatusNotFound, "unknown runtime (known: "+strings.Join(h.runtimes, ", ")+")")
		return
	}
	if r.ContentLength > h.maxBody {
		h.reject(w, r, ReasonTooLarge, http.StatusRequestEntityTooLarge, "payload too large")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBody))
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			h.reject(w, r, ReasonTooLarge, http.StatusRequestEntityTooLarge, "payload too large")
		} else {
			h.reject(w, r, ReasonReadError, http.StatusBadRequest, "could not read the payload")
		}
		return
	}
	// The answer is timed from here: what the listener does with a post,
	// not how fast its client sends it.
	start := time.Now()
	ev, err := h.decoders.Decode(runtime, event, body)
	if err != nil {
		switch {
		case errors.Is(err, hookstate.ErrTooLarge):
			h.reject(w, r, ReasonTooLarge, http.StatusRequestEntityTooLarge, "payload too large")
		case errors.Is(err, hookstate.ErrUnknownRuntime):
			h.reject(w, r, ReasonUnknownRuntime, http.StatusNotFound, "unknown runtime")
		case errors.Is(err, hookstate.ErrInvalid):
			// FieldError text names fields and JSON types only, never content.
			h.reject(w, r, ReasonMalformed, http.StatusBadRequest, "malformed "+runtime+" hook payload: "+strings.TrimPrefix(err.Error(), "hookstate: "))
		default:
			h.reject(w, r, ReasonMalformed, http.StatusBadRequest, "malformed "+runtime+" hook payload")
		}
		return
	}
	fillFromHeaders(&ev.Relay, r.Header)
	h.sink.HookEvent(r.Context(), ev)
	h.accepted.Add(1)
	h.byRuntime[rt].Add(1)
	h.lastEvent.Store(h.now().UnixNano())
	if h.decider != nil {
		if until, wait, ok := h.decider.Hold(r.Context(), ev, body); ok {
			h.hold(w, r, until, wait)
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
	h.answers.observe(time.Since(start))
}

// holdGrace is how long past its hold a held answer may take to write.
const holdGrace = 5 * time.Second

// hold answers a held event: the headers now (the relay then waits past
// its 100 ms budget), the decision when it comes.
func (h *Handler) hold(w http.ResponseWriter, r *http.Request, until time.Time, wait func(context.Context) []byte) {
	rc := http.NewResponseController(w)
	// The server's timeouts are for ordinary answers; a held one may take
	// as long as its hold (the read deadline too: a read timing out would
	// be taken for the hook hanging up).
	_ = rc.SetWriteDeadline(until.Add(holdGrace))
	_ = rc.SetReadDeadline(until.Add(holdGrace))
	secs := max(int(time.Until(until).Seconds())+1, 1)
	w.Header().Set(HoldHeader, strconv.Itoa(secs))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()
	ctx, cancel := context.WithDeadline(r.Context(), until)
	defer cancel()
	if out := wait(ctx); len(out) > 0 {
		_, _ = w.Write(out)
	}
}

// authorized compares digests so that the comparison takes the same time
// whatever the length and content of what was sent.
func (h *Handler) authorized(got string) bool {
	if got == "" {
		return false
	}
	sum := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(sum[:], h.secret[:]) == 1
}

func (h *Handler) reject(w http.ResponseWriter, r *http.Request, why Reason, status int, msg string) {
	i := slices.Index(reasons, why)
	h.rejected[i].Add(1)
	level := slog.LevelDebug
	now := h.now().UnixNano()
	if last := h.lastWarn[i].Load(); now-last >= int64(warnEvery) && h.lastWarn[i].CompareAndSwap(last, now) {
		level = slog.LevelWarn
	}
	// The path is logged as received but clipped; headers and body never.
	h.log.Log(r.Context(), level, "hook rejected", "reason", string(why), "status", status,
		"method", clipHeader(r.Method), "path", clipHeader(r.URL.EscapedPath()), "count", h.rejected[i].Load())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "paddock hook intake: "+msg+"\n")
}

// splitPath reads /hook/{runtime} and /hook/{runtime}/{event}; each
// segment is unescaped on its own, so an event name may hold any byte but
// '/' would need escaping.
func splitPath(u *url.URL) (runtime, event string, ok bool) {
	rest, found := strings.CutPrefix(u.EscapedPath(), PathPrefix)
	if !found || rest == "" {
		return "", "", false
	}
	parts := strings.Split(rest, "/")
	if len(parts) > 2 || parts[0] == "" || (len(parts) == 2 && parts[1] == "") {
		return "", "", false
	}
	var err error
	if runtime, err = url.PathUnescape(parts[0]); err != nil {
		return "", "", false
	}
	if len(parts) == 2 {
		if event, err = url.PathUnescape(parts[1]); err != nil || !utf8.ValidString(event) || len(event) > 128 {
			return "", "", false
		}
	}
	return runtime, event, true
}

// loopbackHost accepts the names a loopback client uses: localhost and
// loopback addresses, with or without a port; an empty Host (HTTP/1.0)
// too, since only a local process can reach the listener at all.
func loopbackHost(host string) bool {
	if host == "" {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// fillFromHeaders completes the relay facts of a Claude http hook, which
// has no relay process to add them to the payload. The payload's own
// values win; an unexpanded "$VARIABLE" (unset in Claude's environment)
// counts as absent.
func fillFromHeaders(r *hookstate.RelayInfo, hd http.Header) {
	set := func(dst *string, name string) {
		if *dst != "" {
			return
		}
		if v := clipHeader(hd.Get(name)); v != "" && !strings.HasPrefix(v, "$") {
			*dst = v
		}
	}
	set(&r.TerminalID, headerTerminalID)
	set(&r.TmuxPane, headerTmuxPane)
	set(&r.TermProgram, headerTermProgram)
}

// clipHeader keeps a header value short and printable enough to store.
func clipHeader(s string) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, ""))
	if len(s) > 200 {
		s = s[:200]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}
