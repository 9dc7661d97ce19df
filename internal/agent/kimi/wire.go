package kimi

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"paddock/internal/history"
	"paddock/internal/history/jsonpeek"
)

// This file reads kimi-code's agents/main/wire.jsonl: one JSON record per
// line, {"type": …, …payload…, "time": <epoch ms>}, the first line
// {"type":"metadata","protocol_version":"1.5","created_at":<ms>}. Only a
// few record types matter to paddock; the rest (tool snapshots of 70 KB,
// system prompts, token counts, approvals, the UI's own "agent.*" event
// mirror) are skipped by their type without being decoded.

// Record types read for listing and previews.
const (
	recMetadata      = "metadata"
	recAppendMessage = "context.append_message"
	recLoopEvent     = "context.append_loop_event"
	recCompaction    = "context.apply_compaction"
	recUndo          = "context.undo"
	recClear         = "context.clear"
	recConfigUpdate  = "config.update"
	recProfileBind   = "profile.bind"
	recLLMRequest    = "llm.request"
	recUsage         = "usage.record"
	recTurnEnded     = "turn.ended"
)

// listTypes are the record types listing decodes; convTypes those the
// conversation fold decodes.
var (
	listTypes = map[string]bool{
		recMetadata: true, recAppendMessage: true, recLoopEvent: true, recConfigUpdate: true,
		recProfileBind: true, recLLMRequest: true, recUsage: true, recTurnEnded: true,
	}
	convTypes = map[string]bool{
		recAppendMessage: true, recLoopEvent: true, recCompaction: true, recUndo: true, recClear: true,
	}
)

// maxSlowTypeBytes bounds the lines whose type is found by decoding: a
// record that does not start with its type is one of kimi's UI event
// mirrors ({"message":…,"type":"agent.message.appended","kind":"event"}),
// which paddock never needs, so big ones are not worth decoding.
const maxSlowTypeBytes = 64 << 10

// recordType returns the type of a wire line, decoding only when the fast
// path fails and the line is small: one of the record type constants, or
// "" for a type paddock never reads. ok is false for a broken line (one
// json.Unmarshal would refuse).
func recordType(line []byte) (typ string, ok bool) {
	if t, ok := lineType(line); ok {
		return t, true
	}
	if len(line) > maxSlowTypeBytes {
		return "", true // unknown and unwanted; not counted as broken
	}
	var raw []byte
	if !jsonpeek.Fields(line, typeField, func(_ int, v []byte) { raw = v }) {
		return "", false
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", true
	}
	if t := knownType(raw[1 : len(raw)-1]); t != "" {
		return t, true
	}
	return knownType([]byte(jsonStr(raw))), true // escaped
}

// wireRecord is the decoded part of a record of a wanted type. Every field
// is raw so that a value of an unexpected type reads as absent instead of
// failing the whole line; the fields point into the line they were read
// from, so they are used before the next line is read.
type wireRecord struct {
	Time       json.RawMessage
	CreatedAt  json.RawMessage
	Event      json.RawMessage
	Cwd        json.RawMessage
	ModelAlias json.RawMessage
	Model      json.RawMessage
	Count      json.RawMessage
	KeptUsers  json.RawMessage

	// The message and the event, read in the same pass as the record
	// when they are objects (ok).
	msg   wireMessage
	msgOK bool
	ev    loopEvent
	evOK  bool
}

// The member names decodeRecord and recordType read, matched as
// encoding/json matches a struct's fields (jsonpeek.Fields): these readers
// replaced json.Unmarshal into structs tagged with these names, and must
// keep reading every line the same.
var (
	typeField     = []string{"type"}
	recordFields  = []string{"type", "time", "created_at", "message", "event", "cwd", "modelAlias", "model", "count", "keptUserMessageCount"}
	messageFields = []string{"role", "content", "origin", "toolCalls", "toolCallId"}
	eventFields   = []string{"type", "uuid", "stepUuid", "finishReason", "toolCallId", "part"}
	originFields  = []string{"kind", "inTurn", "trigger"} // exact names: origin was read as a map
)

// decodeRecord reads a wire line of a wanted type in one pass, its message
// or event included. ok is false for a line that is not a JSON object (or
// null), or whose type is neither a string nor null: a broken line.
func decodeRecord(line []byte) (r wireRecord, ok bool) {
	typeOK := true
	dst := [...]*json.RawMessage{nil, &r.Time, &r.CreatedAt, nil, &r.Event, &r.Cwd, &r.ModelAlias, &r.Model, &r.Count, &r.KeptUsers}
	ok = jsonpeek.FieldValues(line, recordFields, func(i int, v *jsonpeek.Value) {
		switch i {
		case 0:
			// The type was read already (recordType); as a struct's
			// string field it fails the line when it holds anything
			// else but null.
			raw := v.Raw()
			typeOK = typeOK && len(raw) > 0 && (raw[0] == '"' || string(raw) == "null")
		case 3:
			r.msg, r.msgOK = readMessage(v)
		case 4:
			r.ev, r.evOK = readEvent(v)
			r.Event = v.Raw()
		default:
			*dst[i] = v.Raw()
		}
	})
	if !ok || !typeOK {
		return wireRecord{}, false
	}
	return r, true
}

func (r *wireRecord) time() time.Time {
	f, _ := jsonNum(r.Time)
	return msTime(f)
}

// wireMessage is a context message: {role, content: [parts], toolCalls,
// origin}.
type wireMessage struct {
	Role       json.RawMessage
	Content    json.RawMessage
	Origin     json.RawMessage
	ToolCalls  json.RawMessage
	ToolCallID json.RawMessage // role "tool": the call answered
}

// readMessage reads a record's message; ok is false when it is not an
// object.
func readMessage(v *jsonpeek.Value) (wireMessage, bool) {
	var m wireMessage
	dst := [...]*json.RawMessage{&m.Role, &m.Content, &m.Origin, &m.ToolCalls, &m.ToolCallID}
	ok := v.Fields(messageFields, func(i int, val []byte) { *dst[i] = val })
	if raw := v.Raw(); !ok || len(raw) == 0 || raw[0] != '{' {
		return wireMessage{}, false
	}
	return m, true
}

// loopEvent is one event of the assistant's streamed side.
type loopEvent struct {
	Type         json.RawMessage
	UUID         json.RawMessage
	StepUUID     json.RawMessage
	FinishReason json.RawMessage
	ToolCallID   json.RawMessage
	Part         json.RawMessage
}

// readEvent reads a record's loop event; ok is false when it is not an
// object.
func readEvent(v *jsonpeek.Value) (loopEvent, bool) {
	var e loopEvent
	dst := [...]*json.RawMessage{&e.Type, &e.UUID, &e.StepUUID, &e.FinishReason, &e.ToolCallID, &e.Part}
	ok := v.Fields(eventFields, func(i int, val []byte) { *dst[i] = val })
	if raw := v.Raw(); !ok || len(raw) == 0 || raw[0] != '{' {
		return loopEvent{}, false
	}
	return e, true
}

// origin is who put a user-role message into the context. kimi-code 2.x
// writes {"kind":"user"}; its manifest also allows the bare string form.
type origin struct {
	present bool
	kind    string
	inTurn  bool   // a message added while a turn ran
	trigger string // "user-slash" for a slash command the user typed
}

func readOrigin(raw json.RawMessage) origin {
	if len(raw) == 0 || string(raw) == "null" {
		return origin{}
	}
	if s := jsonStr(raw); s != "" {
		return origin{present: true, kind: s}
	}
	var kind, inTurn, trigger json.RawMessage
	dst := [...]*json.RawMessage{&kind, &inTurn, &trigger}
	if raw[0] != '{' || !jsonpeek.Lookup(raw, originFields, func(i int, v []byte) { *dst[i] = v }) {
		// Some other JSON value: present, but not a kind we accept.
		return origin{present: true}
	}
	return origin{present: true, kind: jsonStr(kind), inTurn: jsonBool(inTurn), trigger: jsonStr(trigger)}
}

// human reports whether a user-role message with this origin is real human
// input: origin missing or of kind "user". Skill
// activations, plugin commands, injections (date and mode reminders, the
// interruption notice), shell-command output, compaction summaries, cron,
// task and subagent triggers, hook results and retries are not.
func (o origin) human() bool { return !o.present || o.kind == "user" }

// undoAnchor mirrors kimi-code's isUndoAnchor: the user turns /undo counts
// back to.
func (o origin) undoAnchor() bool {
	if o.inTurn {
		return false
	}
	if !o.present || o.kind == "user" {
		return true
	}
	return (o.kind == "skill_activation" || o.kind == "plugin_command") && o.trigger == "user-slash"
}

// contentText joins the text parts of message content, which is an array
// of parts ({"type":"text","text"}, {"type":"think",…}, images, …) or, in
// old and migrated records, a plain string. Thinking and media are
// skipped. With dropInjected, parts that are a system wrapper
// ("<system>…", "<system-reminder>…") are skipped too: kimi-cli put those
// in user messages without any origin to tell them apart.
func contentText(raw json.RawMessage, dropInjected bool) string {
	if len(raw) > 0 && raw[0] == '"' {
		s := jsonStr(raw)
		if dropInjected && injected(s) {
			return ""
		}
		return s
	}
	if len(raw) == 0 || raw[0] != '[' {
		return ""
	}
	var b strings.Builder
	ok := jsonpeek.Array(raw, func(p []byte) {
		typ, text, isObject := part(p)
		if !isObject || jsonStr(typ) != "text" {
			return
		}
		s := jsonStr(text)
		if dropInjected && injected(s) {
			return
		}
		b.WriteString(s)
	})
	if !ok {
		return ""
	}
	return b.String()
}

// partFields are the members of a content part that part reads.
var partFields = []string{"type", "text"}

// part reads a content part's type and text; isObject is false when p is
// not an object.
func part(p []byte) (typ, text json.RawMessage, isObject bool) {
	if len(p) == 0 || p[0] != '{' {
		return nil, nil, false
	}
	isObject = jsonpeek.Lookup(p, partFields, func(i int, v []byte) {
		if i == 0 {
			typ = v
		} else {
			text = v
		}
	})
	return typ, text, isObject
}

// injected reports text that is a system wrapper rather than typed input.
func injected(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "<system>") || strings.HasPrefix(s, "<system-reminder>")
}

// prompt returns the human text of a user-role message: only real input
// (see origin.human), only its text, and only when it is not blank.
func prompt(m wireMessage) (string, bool) {
	if jsonStr(m.Role) != "user" {
		return "", false
	}
	o := readOrigin(m.Origin)
	if !o.human() {
		return "", false
	}
	text := contentText(m.Content, !o.present)
	if strings.TrimSpace(text) == "" {
		return "", false
	}
	return text, true
}

// partText returns the text of a streamed text part; thinking and every
// other part type give "".
func partText(raw json.RawMessage) string {
	typ, text, ok := part(raw)
	if !ok || jsonStr(typ) != "text" {
		return ""
	}
	return jsonStr(text)
}

// hasMarker reports whether marker (paddock's title-generation marker, when
// one is configured) occurs in text.
func hasMarker(text, marker string) bool {
	return marker != "" && strings.Contains(text, marker)
}

// wireSummary is what listing learns from the head and tail of a wire file.
type wireSummary struct {
	created           time.Time // metadata created_at
	cwd               string    // config.update cwd, first seen
	model, modelAlias string    // the last model a request named; the profile's alias
	firstPrompt       string
	lastPrompt        string
	prompts           int
	answered          bool // some assistant text was seen
	lastEvent         time.Time
	titleGen          bool // a prompt carries the title-generation marker
	badLines          int
	records           int // lines read as records
	// unended: the last line read had no newline and was no record — one
	// Kimi may still be writing, counted as bad only in a file with no
	// record.
	unended bool
}

// next folds one line; ended says it ended in a newline.
func (w *wireSummary) next(line []byte, ended bool, marker string) {
	if ended {
		w.line(line, marker)
		return
	}
	bad := w.badLines
	w.line(line, marker)
	if w.badLines > bad {
		w.badLines, w.unended = bad, true
	}
}

func (w *wireSummary) line(line []byte, marker string) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	typ, ok := recordType(line)
	if !ok {
		w.badLines++
		return
	}
	if !listTypes[typ] {
		w.records++
		return
	}
	r, ok := decodeRecord(line)
	if !ok {
		w.badLines++
		return
	}
	w.records++
	switch typ {
	case recMetadata:
		if f, ok := jsonNum(r.CreatedAt); ok && w.created.IsZero() {
			w.created = msTime(f)
		}
	case recConfigUpdate:
		if c := jsonStr(r.Cwd); c != "" && w.cwd == "" {
			w.cwd = c
		}
		if a := jsonStr(r.ModelAlias); a != "" {
			w.modelAlias = a
		}
	case recProfileBind:
		if a := jsonStr(r.ModelAlias); a != "" {
			w.modelAlias = a
		}
	case recLLMRequest, recUsage:
		if m := jsonStr(r.Model); m != "" {
			w.model = m
		}
	case recAppendMessage:
		m, ok := r.msg, r.msgOK
		if !ok {
			return
		}
		w.event(r.time())
		if text, ok := prompt(m); ok {
			if hasMarker(text, marker) {
				w.titleGen = true
			}
			if w.prompts == 0 {
				w.firstPrompt = history.ClipRunes(text, maxPromptRunes)
			}
			w.lastPrompt = history.ClipRunes(text, maxPromptRunes)
			w.prompts++
		} else if jsonStr(m.Role) == "assistant" && strings.TrimSpace(contentText(m.Content, false)) != "" {
			w.answered = true
		}
	case recLoopEvent:
		e, ok := r.ev, r.evOK
		if !ok {
			return
		}
		if jsonStr(e.Type) == "content.part" && strings.TrimSpace(partText(e.Part)) != "" {
			w.answered = true
			w.event(r.time())
		}
	case recTurnEnded:
		w.event(r.time())
	}
}

func (w *wireSummary) event(t time.Time) {
	if t.After(w.lastEvent) {
		w.lastEvent = t
	}
}
