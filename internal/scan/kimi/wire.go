package kimi

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"paddock/internal/scan/clip"
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
// path fails and the line is small. ok is false for a line that is not a
// JSON object with a string type.
func recordType(line []byte) (typ string, ok bool) {
	if t, ok := lineType(line); ok {
		return t, true
	}
	if len(line) > maxSlowTypeBytes {
		return "", true // unknown and unwanted; not counted as broken
	}
	var r struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(line, &r) != nil {
		return "", false
	}
	return jsonStr(r.Type), true
}

// wireRecord is the decoded part of a record of a wanted type. Every field
// is raw so that a value of an unexpected type reads as absent instead of
// failing the whole line.
type wireRecord struct {
	Type       string          `json:"type"`
	Time       json.RawMessage `json:"time"`
	CreatedAt  json.RawMessage `json:"created_at"`
	Message    json.RawMessage `json:"message"`
	Event      json.RawMessage `json:"event"`
	Cwd        json.RawMessage `json:"cwd"`
	ModelAlias json.RawMessage `json:"modelAlias"`
	Model      json.RawMessage `json:"model"`
	Count      json.RawMessage `json:"count"`
	KeptUsers  json.RawMessage `json:"keptUserMessageCount"`
}

func (r *wireRecord) time() time.Time {
	f, _ := jsonNum(r.Time)
	return msTime(f)
}

// wireMessage is a context message: {role, content: [parts], toolCalls,
// origin}.
type wireMessage struct {
	Role       json.RawMessage `json:"role"`
	Content    json.RawMessage `json:"content"`
	Origin     json.RawMessage `json:"origin"`
	ToolCalls  json.RawMessage `json:"toolCalls"`
	ToolCallID json.RawMessage `json:"toolCallId"` // role "tool": the call answered
}

func decodeMessage(raw json.RawMessage) (wireMessage, bool) {
	var m wireMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return wireMessage{}, false
	}
	return m, true
}

// loopEvent is one event of the assistant's streamed side.
type loopEvent struct {
	Type         json.RawMessage `json:"type"`
	UUID         json.RawMessage `json:"uuid"`
	StepUUID     json.RawMessage `json:"stepUuid"`
	FinishReason json.RawMessage `json:"finishReason"`
	ToolCallID   json.RawMessage `json:"toolCallId"`
	Part         json.RawMessage `json:"part"`
}

func decodeEvent(raw json.RawMessage) (loopEvent, bool) {
	var e loopEvent
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
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
	o := object(raw)
	if o == nil {
		// Some other JSON value: present, but not a kind we accept.
		return origin{present: true}
	}
	return origin{
		present: true,
		kind:    jsonStr(o["kind"]),
		inTurn:  jsonBool(o["inTurn"]),
		trigger: jsonStr(o["trigger"]),
	}
}

// human reports whether a user-role message with this origin is real human
// input: origin missing or of kind "user" (seed 002 §6). Skill
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
	var b strings.Builder
	for _, p := range array(raw) {
		part := object(p)
		if part == nil || jsonStr(part["type"]) != "text" {
			continue
		}
		s := jsonStr(part["text"])
		if dropInjected && injected(s) {
			continue
		}
		b.WriteString(s)
	}
	return b.String()
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
	p := object(raw)
	if p == nil || jsonStr(p["type"]) != "text" {
		return ""
	}
	return jsonStr(p["text"])
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
}

func (w *wireSummary) line(line []byte, oversize bool, marker string) {
	if oversize {
		w.badLines++
		return
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	typ, ok := recordType(line)
	if !ok {
		w.badLines++
		return
	}
	if !listTypes[typ] {
		return
	}
	var r wireRecord
	if json.Unmarshal(line, &r) != nil {
		w.badLines++
		return
	}
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
		m, ok := decodeMessage(r.Message)
		if !ok {
			return
		}
		w.event(r.time())
		if text, ok := prompt(m); ok {
			if hasMarker(text, marker) {
				w.titleGen = true
			}
			if w.prompts == 0 {
				w.firstPrompt = clip.Runes(text, maxPromptRunes)
			}
			w.lastPrompt = clip.Runes(text, maxPromptRunes)
			w.prompts++
		} else if jsonStr(m.Role) == "assistant" && strings.TrimSpace(contentText(m.Content, false)) != "" {
			w.answered = true
		}
	case recLoopEvent:
		e, ok := decodeEvent(r.Event)
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
