package hookstate

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxPayloadSize is the largest hook payload Decode accepts (1 MiB). The
// recorded payloads are under 2 KiB; the biggest real ones carry a whole
// tool input or Pi's message list.
const MaxPayloadSize = 1 << 20

// Errors returned by Decode; test with errors.Is.
var (
	ErrTooLarge       = errors.New("hookstate: payload too large")
	ErrUnknownRuntime = errors.New("hookstate: unknown runtime")
	// ErrInvalid is wrapped by every *FieldError: the payload is not JSON,
	// not an object, or lacks a required field of the right type.
	ErrInvalid = errors.New("hookstate: invalid payload")
)

// FieldError says which field of which event was wrong. Its text names
// fields and JSON types only, never payload content, so it is safe to log.
type FieldError struct {
	Runtime string
	Event   string // the event name, when known
	Field   string // dotted path; "" for the payload as a whole
	Problem string // "missing", "is null", "must be a string, not number", …
}

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString("hookstate: ")
	b.WriteString(e.Runtime)
	if e.Event != "" {
		b.WriteString(" ")
		b.WriteString(e.Event)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	return b.String()
}

func (e *FieldError) Unwrap() error { return ErrInvalid }

// decode is Decoders.Decode with the decoder found.
func decode(dec Decoder, runtime, eventName string, payload []byte) (Event, error) {
	if len(payload) > MaxPayloadSize {
		return Event{}, fmt.Errorf("%w: %s: %d bytes (limit %d)", ErrTooLarge, runtime, len(payload), MaxPayloadSize)
	}
	var v any
	if err := json.Unmarshal(payload, &v); err != nil {
		problem := "not valid JSON"
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			problem += " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
		}
		return Event{}, &FieldError{Runtime: runtime, Event: eventName, Problem: problem}
	}
	f, ok := v.(map[string]any)
	if !ok {
		return Event{}, &FieldError{Runtime: runtime, Event: eventName,
			Problem: "must be a JSON object, not " + TypeName(v)}
	}
	ev, err := dec(eventName, Fields(f))
	if err != nil {
		if fe := (*FieldError)(nil); errors.As(err, &fe) {
			fe.Runtime = runtime
		}
		return Event{}, err
	}
	ev.Runtime = runtime
	readRelay(Fields(f), &ev.Relay)
	if ev.Time.IsZero() {
		ev.Time = ev.Relay.SentAt
	}
	return ev, nil
}

// Fields is a decoded JSON object with typed, nil-safe accessors.
type Fields map[string]any

func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// Str is an optional string: "" when absent, null or not a string.
func (f Fields) Str(key string) string {
	s, _ := f[key].(string)
	return s
}

// FirstStr is the first non-empty optional string among keys.
func (f Fields) FirstStr(keys ...string) string {
	for _, k := range keys {
		if s := f.Str(k); s != "" {
			return s
		}
	}
	return ""
}

// ReqStr is a required non-empty string; problem is "" when it is fine.
func (f Fields) ReqStr(key string) (string, string) {
	v, ok := f[key]
	switch s, isStr := v.(string); {
	case !ok:
		return "", "missing"
	case v == nil:
		return "", "is null"
	case !isStr:
		return "", "must be a string, not " + TypeName(v)
	case s == "":
		return "", "is empty"
	default:
		return s, ""
	}
}

// Obj is an optional nested object; nil (safe to read) when absent.
func (f Fields) Obj(key string) Fields {
	o, _ := f[key].(map[string]any)
	return Fields(o)
}

func (f Fields) Num(key string) (float64, bool) {
	n, ok := f[key].(float64)
	return n, ok
}

func (f Fields) Bool(key string) bool {
	b, _ := f[key].(bool)
	return b
}

// IDStr reads an id that some runtimes send as a number (Kimi turn_id).
func (f Fields) IDStr(key string) string {
	switch v := f[key].(type) {
	case string:
		return v
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.FormatInt(int64(v), 10)
		}
	}
	return ""
}

func (f Fields) Int(key string) int {
	n, ok := f.Num(key)
	if !ok || n != math.Trunc(n) || n < 0 || n > math.MaxInt32 {
		return 0
	}
	return int(n)
}

// EventName resolves an event's name: the payload's key wins, the
// installed hook name is the fallback.
func EventName(f Fields, key, installed string) (string, *FieldError) {
	if v, ok := f[key]; ok && v != nil {
		s, problem := f.ReqStr(key)
		if problem != "" {
			return "", &FieldError{Event: installed, Field: key, Problem: problem}
		}
		return s, nil
	}
	if installed == "" {
		return "", &FieldError{Field: key, Problem: "missing (and no event name given)"}
	}
	return installed, nil
}

// RequireStr wraps reqStr into a FieldError.
func RequireStr(f Fields, name, key string) (string, *FieldError) {
	s, problem := f.ReqStr(key)
	if problem != "" {
		return "", &FieldError{Event: name, Field: key, Problem: problem}
	}
	return s, nil
}

// readRelay fills what the relay added under RelayField (and the
// top-level agent_terminal_id). Lenient: a wrong type reads as absent.
func readRelay(f Fields, r *RelayInfo) {
	p := f.Obj(RelayField)
	if s := p.Str("terminal_id"); s != "" {
		r.TerminalID = s
	} else if s := f.Str("agent_terminal_id"); s != "" {
		r.TerminalID = s
	}
	if n := p.Int("pid"); n > 0 {
		r.PID = n
	}
	if n := p.Int("ppid"); n > 0 {
		r.PPID = n
	}
	r.TTY = cmp.Or(p.Str("tty"), r.TTY)
	r.TermProgram = cmp.Or(p.Str("term_program"), r.TermProgram)
	r.TmuxPane = cmp.Or(p.Str("tmux_pane"), r.TmuxPane)
	r.ParentSessionID = cmp.Or(p.Str("parent_session_id"), r.ParentSessionID)
	if t := jsonTime(p["sent_at"]); !t.IsZero() {
		r.SentAt = t
	}
}

// jsonTime reads an RFC 3339 string or a Unix time in seconds or
// milliseconds; anything else, or a time outside 2000–2200, is zero.
func jsonTime(v any) time.Time {
	var t time.Time
	switch x := v.(type) {
	case string:
		t, _ = time.Parse(time.RFC3339Nano, x)
		if t.Year() < 2000 || t.Year() > 2200 {
			return time.Time{}
		}
	case float64:
		t = UnixTime(x)
	}
	return t
}

// UnixTime reads seconds, or milliseconds when the number is too big to be
// seconds (the recordings use both).
func UnixTime(x float64) time.Time {
	if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 || x > 1e15 {
		return time.Time{}
	}
	var t time.Time
	if x > 1e11 {
		ms := int64(x)
		t = time.UnixMilli(ms).Add(time.Duration((x - float64(ms)) * float64(time.Millisecond)))
	} else {
		sec := math.Floor(x)
		t = time.Unix(int64(sec), int64((x-sec)*1e9))
	}
	if t.Year() < 2000 || t.Year() > 2200 {
		return time.Time{} // a counter or junk, not a time: Apply then uses the arrival
	}
	return t
}

// Lengths of the display summaries an Event carries.
const (
	MaxSummary = 200
	MaxText    = 500
)

// Clip shortens s to n runes on one line, valid UTF-8.
func Clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = strings.TrimRight(s[:i], " \t") + " …"
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Summarize picks the one field of a tool input a person recognises the
// call by: the command, the path, the url, the question.
func Summarize(input any) string {
	switch v := input.(type) {
	case string:
		return Clip(v, MaxSummary)
	case map[string]any:
		f := Fields(v)
		for _, k := range []string{"command", "cmd", "file_path", "filePath", "path",
			"notebook_path", "pattern", "url", "query", "description", "prompt"} {
			switch x := f[k].(type) {
			case string:
				if x != "" {
					return Clip(x, MaxSummary)
				}
			case []any: // argv form
				var parts []string
				for _, a := range x {
					if s, ok := a.(string); ok {
						parts = append(parts, s)
					}
				}
				if len(parts) > 0 {
					return Clip(strings.Join(parts, " "), MaxSummary)
				}
			}
		}
		if qs, ok := f["questions"].([]any); ok && len(qs) > 0 {
			if q, ok := qs[0].(map[string]any); ok {
				return Clip(Fields(q).Str("question"), MaxSummary)
			}
		}
	}
	return ""
}

// PromptText reads a prompt given as a string or as content parts
// ([{"type":"text","text":…}], Kimi).
func PromptText(v any) string {
	switch x := v.(type) {
	case string:
		return Clip(x, MaxText)
	case []any:
		var parts []string
		for _, p := range x {
			if s := Fields(AsObject(p)).Str("text"); s != "" {
				parts = append(parts, s)
			}
		}
		return Clip(strings.Join(parts, " "), MaxText)
	}
	return ""
}

func AsObject(v any) map[string]any {
	o, _ := v.(map[string]any)
	return o
}

// NumOr is an optional number: 0 when absent or not a number.
func NumOr(f Fields, key string) float64 {
	n, _ := f.Num(key)
	return n
}

// ProblemObject says what is wrong with a value that should be an object.
func ProblemObject(v any) string {
	if v == nil {
		return "missing"
	}
	return "must be an object, not " + TypeName(v)
}
