package pi

import (
	"errors"
	"math"
	"strings"
	"time"
)

// Entry and message types paddock reads from a Pi session file. Anything
// else (thinking_level_change, compaction, branch_summary, label, custom,
// custom_message, entries of future versions) only takes part in the
// id/parentId tree.
const (
	typeSession     = "session"
	typeMessage     = "message"
	typeSessionInfo = "session_info"
	typeModelChange = "model_change"

	roleUser      = "user"
	roleAssistant = "assistant"
)

var (
	errNotObject = errors.New("line is not a JSON object")
	errNoHeader  = errors.New("first line is not a Pi session header")
)

// entry is one line reduced to what paddock uses. Every field is
// type-checked as it is read: a null or a value of the wrong type leaves it
// zero (seed 002 §6: a present key may hold null).
type entry struct {
	Type     string
	Version  int // headers only; 0 when absent (v1)
	ID       string
	HasID    bool // the line has a string id: a v2+ tree entry
	Parent   string
	Time     time.Time
	Cwd      string // headers
	Name     string // session_info
	Model    string // model_change modelId, v1 header modelId, assistant model
	Role     string // messages
	Text     string // a message's text parts, joined
	MsgTime  time.Time
	HasTexts bool // the message had at least one non-blank text part
	// Message is a message entry's message object as it stands in the
	// line: a slice of the line, valid only until the next line is read
	// (events.go reads it at once).
	Message []byte
}

// parseEntry reads one line. It never panics; a line that is not one
// well-formed JSON object is an error (a bad line).
func parseEntry(line []byte) (entry, error) {
	var e entry
	var message, version []byte
	err := eachMember(line, func(key, val []byte) {
		switch string(key) {
		case "type":
			e.Type, _ = jsonString(val)
		case "version":
			version = val
		case "id":
			e.ID, _ = jsonString(val)
		case "parentId":
			e.Parent, _ = jsonString(val)
		case "timestamp":
			e.Time = timeOf(val)
		case "cwd":
			e.Cwd, _ = jsonString(val)
		case "name":
			e.Name, _ = jsonString(val)
			e.Name = strings.TrimSpace(e.Name)
		case "modelId":
			e.Model, _ = jsonString(val)
		case "message":
			message = val
		}
	})
	if err != nil {
		return entry{}, err
	}
	e.HasID = e.ID != ""
	if n, ok := jsonNumber(version); ok && n >= 0 && n < 1000 {
		e.Version = int(n)
	}
	if e.Type == typeMessage && len(message) > 0 && message[0] == '{' {
		e.Message = message
		e.message(message)
	}
	return e, nil
}

// message reads a message entry's message object (already checked whole
// by the line's walk). Its content is only decoded for user and assistant
// messages: a tool result's output is skipped, however large.
func (e *entry) message(msg []byte) {
	var content []byte
	_, _ = objectEnd(msg, 0, 1, func(key, val []byte) {
		switch string(key) {
		case "role":
			e.Role, _ = jsonString(val)
		case "content":
			content = val
		case "model":
			if m, ok := jsonString(val); ok && m != "" {
				e.Model = m
			}
		case "timestamp":
			e.MsgTime = timeOf(val)
		}
	})
	if e.Role == roleUser || e.Role == roleAssistant {
		e.Text, e.HasTexts = texts(content)
	}
}

// texts joins the readable text of a message's content: a plain string, or
// the "text" parts of a part list (thinking, toolCall and image parts are
// not text). Blank parts are left out.
func texts(content []byte) (string, bool) {
	if s, ok := jsonString(content); ok {
		s = strings.TrimSpace(s)
		return s, s != ""
	}
	var out []string
	eachElement(content, func(part []byte) {
		if len(part) == 0 || part[0] != '{' {
			return
		}
		var typ, text []byte
		_, _ = objectEnd(part, 0, 1, func(key, val []byte) {
			switch string(key) {
			case "type":
				typ = val
			case "text":
				text = val
			}
		})
		if t, _ := jsonString(typ); t != "text" {
			return
		}
		if t, _ := jsonString(text); strings.TrimSpace(t) != "" {
			out = append(out, strings.TrimSpace(t))
		}
	})
	return strings.Join(out, "\n\n"), len(out) > 0
}

// when is the best time of an entry: when Pi appended it, else the
// message's own timestamp. Entry times follow the file order; a message's
// own time need not (an assistant message is stamped when its request
// started, which can be before a user message queued meanwhile).
func (e *entry) when() time.Time {
	if !e.Time.IsZero() {
		return e.Time
	}
	return e.MsgTime
}

// Timestamps outside these bounds are garbage, not times.
var (
	minTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
)

// timeOf reads an ISO 8601 string (entries, headers) or a number of
// milliseconds since the epoch (message timestamps).
func timeOf(val []byte) time.Time {
	var t time.Time
	if s, ok := jsonString(val); ok {
		t, _ = time.Parse(time.RFC3339Nano, s)
	} else if n, ok := jsonNumber(val); ok && n > 0 && n < float64(math.MaxInt64/1e6) {
		t = time.UnixMilli(int64(n))
	}
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}
	}
	return t.UTC()
}

// header is a session file's first line, checked.
type header struct {
	id      string
	version int // 0 for v1 (no version field)
	cwd     string
	created time.Time
	model   string // v1 headers name the model
}

// parseHeader checks that line is a Pi session header with a usable id:
// Pi itself refuses a file whose first line is anything else, and files
// such as a print-mode JSON event dump must never be listed (seed 002 §6).
func parseHeader(line []byte) (header, error) {
	e, err := parseEntry(line)
	if err != nil {
		return header{}, err
	}
	if e.Type != typeSession || !validID(e.ID) {
		return header{}, errNoHeader
	}
	return header{id: e.ID, version: e.Version, cwd: e.Cwd, created: e.Time, model: e.Model}, nil
}
