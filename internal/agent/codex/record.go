package codex

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Line types of the rollout envelope {"timestamp","type","payload"} that
// paddock reads. Everything else (world_state, token_usage_record,
// retained_context, compacted, …) is bookkeeping: only its timestamp counts.
const (
	lineSessionMeta = "session_meta"
	lineResponse    = "response_item"
	lineEvent       = "event_msg"
	lineTurnContext = "turn_context"
)

// Where a message was read from. Codex writes each turn's text more than
// once: as a response item (what the model saw) and as a UI event (an
// event_msg user_message/agent_message in older versions, an item_completed
// UserMessage/AgentMessage in 0.169). Copies from different sources next to
// each other are one message.
type source uint8

const (
	fromResponse source = 1 << iota // response_item message, or a bare legacy item
	fromEvent                       // event_msg user_message / agent_message
	fromItem                        // event_msg item_completed UserMessage / AgentMessage
)

// record is one line reduced to what listing and previews use.
type record struct {
	time time.Time

	meta     *sessionMeta // a session_meta line (or the bare first line)
	cwd      string       // turn_context cwd
	model    string       // turn_context model
	envCwd   string       // <cwd> of an <environment_context> injection
	msg      *message     // a real user prompt or readable assistant text
	rollback int          // thread_rolled_back: this many turns undone

	// item is a response item other than a message (reasoning, a tool
	// call or its output), raw and undecoded: only Events reads it, so
	// listing pays nothing for it. It points into the line's buffer.
	item []byte
	// images is the content of a user message that attached images
	// (input_image parts), raw like item: only Events decodes them.
	images []byte
	// exec is the outcome of a command, from an item_completed
	// CommandExecution event (Events marks its result as an error).
	exec execOutcome
}

// execOutcome is what an item_completed CommandExecution says about one
// call: its id and whether it failed (status failed or declined, or a
// non-zero exit code).
type execOutcome struct {
	callID string
	failed bool
}

// sessionMeta is what a session_meta line says about the thread. Its id
// is not kept: a thread is named by its rollout's file name, which is
// what Session and Conversation can find.
type sessionMeta struct {
	created  time.Time
	cwd      string
	subagent bool
	parent   string // the spawning thread of a subagent
}

// message is one conversation entry as read from a line.
type message struct {
	role string
	text string
	from source
}

// errNotObject marks a line that is not a JSON object; it counts as bad.
var errNotObject = errors.New("rollout line is not a JSON object")

// parseRecord decodes one line. first says it is the file's first line,
// where the bare legacy format keeps its session header. A line is
// {"timestamp","type","payload"}; a bare legacy line (before Sept 2025)
// has no payload: the line itself is the item, and the first line is the
// session {"id","timestamp","instructions"}.
func parseRecord(line []byte, first bool) (record, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return record{}, errNotObject
	}
	var ts, typ, payload, id, recordType []byte
	err := members(line, func(k, v []byte) bool {
		switch string(k) {
		case "timestamp":
			ts = v
		case "type":
			typ = v
		case "payload":
			payload = v
		case "id":
			id = v
		case "record_type":
			recordType = v
		}
		return true
	})
	if err != nil {
		return record{}, err
	}
	r := record{time: parseTime(str(ts))}
	if !isObject(payload) {
		switch {
		case len(recordType) > 0: // {"record_type":"state"}: bookkeeping
		case first && str(id) != "" && str(typ) == "":
			r.meta = &sessionMeta{created: r.time}
		case str(typ) != "":
			responseItem(&r, line)
		}
		return r, nil
	}
	switch str(typ) {
	case lineSessionMeta:
		r.meta = metaOf(payload, r.time)
	case lineTurnContext:
		_ = members(payload, func(k, v []byte) bool {
			switch string(k) {
			case "cwd":
				r.cwd = str(v)
			case "model":
				r.model = str(v)
			}
			return true
		})
	case lineResponse:
		responseItem(&r, payload)
	case lineEvent:
		event(&r, payload)
	}
	return r, nil
}

func metaOf(payload []byte, lineTime time.Time) *sessionMeta {
	m := &sessionMeta{}
	var threadSource string
	var source []byte
	_ = members(payload, func(k, v []byte) bool {
		switch string(k) {
		case "timestamp":
			m.created = parseTime(str(v))
		case "cwd":
			m.cwd = str(v)
		case "source":
			source = v
		case "thread_source":
			threadSource = str(v)
		case "parent_thread_id":
			m.parent = str(v)
		}
		return true
	})
	if m.created.IsZero() {
		m.created = lineTime
	}
	// A subagent thread: thread_source "subagent" (>= 0.142), a source
	// object {"subagent": …} (review, compact, thread_spawn, …), or a
	// parent thread id. A user's own fork (forked_from_id) is a session.
	m.subagent = threadSource == "subagent" || m.parent != ""
	if isObject(source) {
		_ = members(source, func(k, v []byte) bool {
			if string(k) != "subagent" || string(v) == "null" {
				return true
			}
			m.subagent = true
			if m.parent == "" && isObject(v) {
				m.parent = nested(v, "thread_spawn", "parent_thread_id")
			}
			return false
		})
	}
	return m
}

// nested returns the string at a path of keys in an object.
func nested(obj []byte, path ...string) string {
	for _, key := range path {
		var next []byte
		_ = members(obj, func(k, v []byte) bool {
			if string(k) == key {
				next = v
				return false
			}
			return true
		})
		obj = next
	}
	return str(obj)
}

// responseItem reads a response item: a message of role user or assistant.
// Developer and system messages, reasoning, tool calls and their outputs
// are never conversation.
func responseItem(r *record, item []byte) {
	var typ, role string
	var content []byte
	_ = members(item, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = str(v)
		case "role":
			role = str(v)
		case "content":
			content = v
		}
		return true
	})
	if typ != "message" && typ != "" { // hand-made files may leave the type out
		r.item = item
		return
	}
	switch role {
	case "user":
		text := imageMarkers.ReplaceAllString(contentText(content, "input_text", "text"), "")
		if bytes.Contains(content, []byte(`"input_image"`)) {
			r.images = content
		}
		if cwd, ok := environmentCwd(text); ok {
			r.envCwd = cwd
		}
		if t, ok := userText(text); ok {
			r.msg = &message{role: "user", text: t, from: fromResponse}
		}
	case "assistant":
		if t := contentText(content, "output_text", "text"); t != "" {
			r.msg = &message{role: "assistant", text: t, from: fromResponse}
		}
	}
}

// imageMarkers are the texts Codex writes around each image a person
// attaches, `<image name=[Image #1] path="…">` and `</image>`, as lines of
// a message's text: framing, not what the person wrote.
var imageMarkers = regexp.MustCompile(`(?m)^</?image(?: name=\[Image #\d+\])?(?: path="[^"\n]*")?>(?:\n|$)`)

// event reads a UI event: what the person typed and what the agent said.
func event(r *record, payload []byte) {
	var typ string
	var msg, item, numTurns []byte
	_ = members(payload, func(k, v []byte) bool {
		switch string(k) {
		case "type":
			typ = str(v)
		case "message":
			msg = v
		case "item":
			item = v
		case "num_turns":
			numTurns = v
		}
		return true
	})
	switch typ {
	case "user_message":
		if t, ok := userText(str(msg)); ok {
			r.msg = &message{role: "user", text: t, from: fromEvent}
		}
	case "agent_message":
		if t := strings.TrimSpace(str(msg)); t != "" {
			r.msg = &message{role: "assistant", text: t, from: fromEvent}
		}
	case "item_completed":
		var itemType, itemID, status string
		var content, exitCode []byte
		_ = members(item, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				itemType = str(v)
			case "content":
				content = v
			case "id":
				itemID = str(v)
			case "status":
				status = str(v)
			case "exit_code":
				exitCode = v
			}
			return true
		})
		switch itemType {
		case "UserMessage":
			if t, ok := userText(contentText(content, "text", "Text")); ok {
				r.msg = &message{role: "user", text: t, from: fromItem}
			}
		case "AgentMessage":
			if t := contentText(content, "Text", "text"); t != "" {
				r.msg = &message{role: "assistant", text: t, from: fromItem}
			}
		case "CommandExecution":
			failed := status == "failed" || status == "declined" ||
				len(exitCode) > 0 && string(exitCode) != "null" && integer(exitCode) != 0
			r.exec = execOutcome{callID: itemID, failed: failed}
		}
	case "thread_rolled_back":
		if n := integer(numTurns); n > 0 {
			r.rollback = n
		}
	}
}

// contentText returns the text of a message's content whose part type is
// in types, one part per line. Content is an array of {"type","text"}
// parts, or (older and hand-made files) one string; other elements and
// empty texts are dropped.
func contentText(content []byte, types ...string) string {
	if len(content) > 0 && content[0] == '"' {
		return strings.TrimSpace(str(content))
	}
	var texts []string
	_ = elements(content, func(el []byte) {
		var typ, text string
		_ = members(el, func(k, v []byte) bool {
			switch string(k) {
			case "type":
				typ = str(v)
			case "text":
				text = str(v)
			}
			return true
		})
		if t := strings.TrimSpace(text); t != "" && slices.Contains(types, typ) {
			texts = append(texts, t)
		}
	})
	return strings.Join(texts, "\n")
}

// injectedPrefixes start the user-role texts Codex writes itself: its
// instructions, environment and mode descriptions, and notes about
// interrupted turns and shell commands. None of them is a prompt the
// person typed, so none may title a session.
var injectedPrefixes = []string{
	"<user_instructions>", "<environment_context>", "# AGENTS.md instructions for",
	"<permissions", "<collaboration_mode>", "<skills_instructions>", "<plugins_instructions>",
	"<environment>", "<environment-change>", "<app-context>", "<turn_aborted>",
	"<user_shell_command>", "<subagent_notification>",
}

// requestMarker precedes the typed request in messages that IDE clients
// wrap in context (2025-era files).
const requestMarker = "## My request for Codex:"

// userText returns the human part of a user-role text, or false when the
// text is something Codex injected.
func userText(text string) (string, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", false
	}
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(text, p) {
			return "", false
		}
	}
	if wrappedInTag(text) {
		return "", false
	}
	if i := strings.LastIndex(text, requestMarker); i >= 0 {
		text = strings.TrimSpace(text[i+len(requestMarker):])
	}
	return text, text != ""
}

// wrappedInTag reports whether text is one <snake_case> element from start
// to end, the shape of every harness note Codex adds (<turn_aborted>,
// <subagent_notification>, …), including ones newer than the list above.
// Underscored names only: a person pasting <div>…</div> is still a person.
func wrappedInTag(text string) bool {
	if !strings.HasPrefix(text, "<") {
		return false
	}
	end := strings.IndexAny(text, " >")
	if end < 2 {
		return false
	}
	name := text[1:end]
	if !strings.Contains(name, "_") {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return strings.HasSuffix(text, "</"+name+">")
}

// environmentCwd finds the <cwd> of an <environment_context> injection: the
// only record of the working directory in the bare legacy format.
func environmentCwd(text string) (string, bool) {
	if !strings.Contains(text, "<environment_context>") {
		return "", false
	}
	_, rest, ok := strings.Cut(text, "<cwd>")
	if !ok {
		return "", false
	}
	cwd, _, ok := strings.Cut(rest, "</cwd>")
	cwd = strings.TrimSpace(cwd)
	return cwd, ok && cwd != ""
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
