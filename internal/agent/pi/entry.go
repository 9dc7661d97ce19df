package pi

import (
	"errors"
	"math"
	"paddock/internal/history/jsonpeek"
	"regexp"
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
// zero (a present key may hold null).
type entry struct {
	Type    string
	Version int // headers only; 0 when absent (v1)
	ID      string
	// Parent is the raw parentId value, a slice of the line like Message:
	// it usually repeats the id of the entry before, whose string the
	// transcript already holds (parentID).
	Parent   []byte
	Cwd      string // headers
	Name     string // session_info
	Model    string // model_change modelId, v1 header modelId, assistant model
	Role     string // messages
	Text     string // a message's text parts, joined
	HasTexts bool   // the message had at least one non-blank text part
	// Message is a message entry's message object as it stands in the
	// line: a slice of the line, valid only until the next line is read
	// (events.go reads it at once).
	Message []byte
	// stamp and msgStamp are the raw "timestamp" values of the entry and of
	// its message, slices of the line like Message. They are decoded only
	// when wanted (when): most lines never need their time, and decoding
	// each one was a large part of reading a long session.
	stamp, msgStamp []byte
	at              time.Time // when, once it was asked
	timed           bool
}

// parseEntry reads one line. It never panics; a line that is not one
// well-formed JSON object is an error (a bad line).
//
// The line is walked once: the message object is read as it is checked,
// not checked first and read again (it is most of a line).
func parseEntry(line []byte) (entry, error) {
	sk := lineJSON() // called on directly: the wrappers cost a call per value
	var e entry
	var msg messageFields
	var version []byte
	msgMember := func(key []byte, at int) (int, error) {
		if string(key) == "content" && line[at] == '[' && msg.textual() {
			// Read the parts' text as the content is checked, not after.
			msg.texts = textJoin{}
			end, err := partsEnd(&sk, line, at, 2, &msg.texts)
			if err == nil {
				msg.content, msg.textsRead = line[at:end], true
			}
			return end, err
		}
		end, err := sk.ValueEnd(line, at, 2)
		if err == nil {
			msg.member(key, line[at:end])
		}
		return end, err
	}
	err := walkLine(&sk, line, func(key []byte, at int) (int, error) {
		if string(key) == "message" {
			msg = messageFields{} // the last "message" member counts
			if line[at] == '{' {
				end, err := sk.WalkObject(line, at, 2, msgMember)
				if err != nil {
					return 0, err
				}
				msg.raw = line[at:end]
				return end, nil
			}
		}
		end, err := sk.ValueEnd(line, at, 1)
		if err != nil {
			return 0, err
		}
		val := line[at:end]
		switch string(key) {
		case "type":
			e.Type = typeOf(val)
		case "version":
			version = val
		case "id":
			e.ID, _ = jsonString(val)
		case "parentId":
			e.Parent = val
		case "timestamp":
			e.stamp = val
		case "cwd":
			e.Cwd, _ = jsonString(val)
		case "name":
			e.Name, _ = jsonString(val)
			e.Name = strings.TrimSpace(e.Name)
		case "modelId":
			e.Model, _ = jsonString(val)
		}
		return end, nil
	})
	if err != nil {
		return entry{}, err
	}
	if n, ok := jsonNumber(version); ok && n >= 0 && n < 1000 {
		e.Version = int(n)
	}
	if e.Type == typeMessage && msg.raw != nil {
		e.message(&msg)
	}
	return e, nil
}

// messageFields is what parseEntry reads of a message object: raw values,
// decoded only once the line turns out to be a message entry.
type messageFields struct {
	raw            []byte // the whole object; nil: no object
	role, model    []byte
	content, stamp []byte
	// texts is content's text, read as the line was walked (textsRead)
	// when the role before it said the message shows text.
	texts     textJoin
	textsRead bool
}

// textual reports whether the role read so far, as Pi writes it, is one
// whose text shows.
func (m *messageFields) textual() bool {
	return string(m.role) == `"`+roleUser+`"` || string(m.role) == `"`+roleAssistant+`"`
}

// member reads one member of a message object.
func (m *messageFields) member(key, val []byte) {
	switch string(key) {
	case "role":
		m.role = val
	case "content":
		m.content, m.textsRead = val, false
	case "model":
		if s, ok := jsonString(val); ok && s != "" {
			m.model = val // the last non-empty model counts
		}
	case "timestamp":
		m.stamp = val
	}
}

// message applies a message entry's message object. Its content is only
// decoded for user and assistant messages: a tool result's output is
// skipped, however large.
func (e *entry) message(m *messageFields) {
	e.Message = m.raw
	e.Role = roleOf(m.role)
	if m.model != nil {
		e.Model, _ = jsonString(m.model)
	}
	e.msgStamp = m.stamp
	switch {
	case e.Role != roleUser && e.Role != roleAssistant:
	case m.textsRead:
		e.Text, e.HasTexts = m.texts.result()
	default:
		e.Text, e.HasTexts = texts(m.content)
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
	var j textJoin
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
		j.part(typ, text)
	})
	return j.result()
}

// partsEnd walks the content array at b[i], as valueEnd at depth would,
// and joins the text of its parts into j.
func partsEnd(sk *jsonpeek.Skim, b []byte, i, depth int, j *textJoin) (int, error) {
	return sk.WalkArray(b, i, depth+1, func(at int) (int, error) {
		if b[at] != '{' {
			return sk.ValueEnd(b, at, depth+1)
		}
		var typ, text []byte
		end, err := sk.WalkObject(b, at, depth+2, func(key []byte, at int) (int, error) {
			end, err := sk.ValueEnd(b, at, depth+2)
			if err == nil {
				switch string(key) {
				case "type":
					typ = b[at:end]
				case "text":
					text = b[at:end]
				}
			}
			return end, err
		})
		if err == nil {
			j.part(typ, text)
		}
		return end, err
	})
}

// emptyFileTags are what Pi writes into the prompt for each image a person
// attaches with @: `<file name="…"></file>`, empty, the image itself being
// an image part. A text file's tag holds its content and stays.
var emptyFileTags = regexp.MustCompile(`<file name="[^"\n]*"></file>\n?`)

// textJoin joins the text parts of a message's content (texts). Most
// messages have one: it is returned as decoded, with no list to join.
type textJoin struct {
	first string
	more  []string
}

// part adds a part, given its raw type and text values.
func (j *textJoin) part(typ, text []byte) {
	if string(typ) != `"text"` { // not as Pi writes it: decode
		if t, _ := jsonString(typ); t != "text" {
			return
		}
	}
	t, _ := jsonString(text)
	if strings.HasPrefix(t, "<file name=") {
		t = emptyFileTags.ReplaceAllString(t, "")
	}
	switch t = strings.TrimSpace(t); {
	case t == "":
	case j.first == "":
		j.first = t
	default:
		j.more = append(j.more, t)
	}
}

func (j *textJoin) result() (string, bool) {
	if len(j.more) == 0 {
		return j.first, j.first != ""
	}
	return strings.Join(append([]string{j.first}, j.more...), "\n\n"), true
}

// typeOf and roleOf decode an entry's type and a message's role, without
// copying the values paddock knows (nearly every line has one).
func typeOf(val []byte) string {
	switch string(val) {
	case `"` + typeMessage + `"`:
		return typeMessage
	case `"` + typeModelChange + `"`:
		return typeModelChange
	case `"` + typeSessionInfo + `"`:
		return typeSessionInfo
	case `"thinking_level_change"`:
		return "thinking_level_change"
	}
	s, _ := jsonString(val)
	return s
}

func roleOf(val []byte) string {
	switch string(val) {
	case `"` + roleUser + `"`:
		return roleUser
	case `"` + roleAssistant + `"`:
		return roleAssistant
	case `"` + roleToolResult + `"`:
		return roleToolResult
	}
	s, _ := jsonString(val)
	return s
}

// when is the best time of an entry: when Pi appended it, else the
// message's own timestamp. Entry times follow the file order; a message's
// own time need not (an assistant message is stamped when its request
// started, which can be before a user message queued meanwhile).
func (e *entry) when() time.Time {
	if !e.timed {
		if e.at = timeOf(e.stamp); e.at.IsZero() {
			e.at = timeOf(e.msgStamp)
		}
		e.timed = true
	}
	return e.at
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
	if pt, ok := piTime(val); ok {
		t = pt
	} else if s, ok := jsonString(val); ok {
		t, _ = time.Parse(time.RFC3339Nano, s)
	} else if n, ok := jsonNumber(val); ok && n > 0 && n < float64(math.MaxInt64/1e6) {
		t = time.UnixMilli(int64(n))
	}
	if t.Before(minTime) || t.After(maxTime) {
		return time.Time{}
	}
	return t.UTC()
}

// piTime reads a time the way Pi writes every entry's (JavaScript's
// toISOString: "2006-01-02T15:04:05.000Z", quoted) without the string
// time.Parse needs; false for anything else, which timeOf leaves to
// time.Parse. It accepts what time.Parse accepts of that form, no more.
func piTime(val []byte) (time.Time, bool) {
	const layout = `"dddd-dd-ddTdd:dd:dd.dddZ"`
	if len(val) != len(layout) {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range val[i : i+n] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	for i := range len(layout) {
		if layout[i] != 'd' && val[i] != layout[i] {
			return time.Time{}, false
		}
	}
	year, month, day := num(1, 4), num(6, 2), num(9, 2)
	hour, minute, sec, ms := num(12, 2), num(15, 2), num(18, 2), num(21, 3)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 || ms < 0 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, ms*int(time.Millisecond), time.UTC)
	if t.Day() != day { // past the end of its month: time.Parse refuses it
		return time.Time{}, false
	}
	return t, true
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
// such as a print-mode JSON event dump must never be listed.
func parseHeader(line []byte) (header, error) {
	e, err := parseEntry(line)
	if err != nil {
		return header{}, err
	}
	if e.Type != typeSession || !validID(e.ID) {
		return header{}, errNoHeader
	}
	return header{id: e.ID, version: e.Version, cwd: e.Cwd, created: timeOf(e.stamp), model: e.Model}, nil
}
