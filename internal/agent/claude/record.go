package claude

import (
	"errors"
	"paddock/internal/history/jsonpeek"
	"strings"
	"time"
)

// Record types paddock reads. Everything else in a transcript (attachment,
// system, progress, file-history-snapshot, api-request*, cost-state, mode,
// queue-operation, ...) is bookkeeping and only takes part in the parentUuid
// chain.
const (
	typeUser        = "user"
	typeAssistant   = "assistant"
	typeSummary     = "summary"
	typeCustomTitle = "custom-title"
	typeAITitle     = "ai-title"
	typeAgentName   = "agent-name"
)

// errNotObject marks a line that is valid-looking text but not a JSON object
// ("massive error", 42, [1]); it is a bad line like any other.
var errNotObject = errors.New("line is not a JSON object")

// record is one transcript line reduced to what paddock uses. Every field is
// type-checked when read: a JSON null or a value of the wrong type leaves the
// field at its zero value.
type record struct {
	Type string
	UUID string
	// Parent is parentUuid, or logicalParentUuid where a compaction cut the
	// physical chain, so the conversation reads across /compact.
	Parent string

	Meta, Sidechain, CompactSummary bool
	Origin                          string // origin.kind; "" when absent
	Time                            time.Time
	Cwd                             string

	// From message, for user and assistant records.
	Model      string
	MessageID  string
	Texts      []string // text parts; a plain string content is one part
	ToolResult bool     // the content carries tool_result parts
	// Content is message.content as it stands in the line: a slice of the
	// line, valid only until the next line is read (events.go reads it
	// at once).
	Content []byte

	// Value is customTitle, aiTitle, agentName or summary for those record
	// types; LeafUUID is a summary's leafUuid.
	Value    string
	LeafUUID string
}

// parseLine parses one transcript line. It never panics, whatever the input.
func parseLine(line []byte) (record, error) {
	var r record
	var message, timestamp, parent, logicalParent, origin []byte
	var title, altTitle []byte
	i := jsonpeek.SkipSpace(line, 0)
	if i == len(line) || line[i] != '{' {
		return record{}, errNotObject
	}
	err := eachMember(line, func(key, val []byte) {
		switch string(key) {
		case "type":
			r.Type, _ = jsonString(val)
		case "uuid":
			r.UUID, _ = jsonString(val)
		case "parentUuid":
			parent = val
		case "logicalParentUuid":
			logicalParent = val
		case "isMeta":
			r.Meta = jsonTrue(val)
		case "isSidechain":
			r.Sidechain = jsonTrue(val)
		case "isCompactSummary":
			r.CompactSummary = jsonTrue(val)
		case "origin":
			origin = val
		case "timestamp":
			timestamp = val
		case "cwd":
			r.Cwd, _ = jsonString(val)
		case "message":
			message = val
		case "customTitle", "aiTitle", "agentName", "summary":
			title = val
		case "title":
			// A few writers (and older versions) use a plain "title".
			altTitle = val
		case "leafUuid":
			r.LeafUUID, _ = jsonString(val)
		}
	})
	if err != nil {
		return record{}, err
	}
	if r.Parent, _ = jsonString(parent); r.Parent == "" {
		r.Parent, _ = jsonString(logicalParent)
	}
	if s, ok := jsonString(timestamp); ok {
		r.Time = parseTime(s)
	}
	if origin != nil {
		r.Origin = originKind(origin)
	}
	switch r.Type {
	case typeUser, typeAssistant:
		if message != nil {
			if err := r.readMessage(message); err != nil {
				return record{}, err
			}
		}
	case typeSummary, typeCustomTitle, typeAITitle, typeAgentName:
		if r.Value, _ = jsonString(title); r.Value == "" {
			r.Value, _ = jsonString(altTitle)
		}
	}
	return r, nil
}

// readMessage fills the message fields. A message that is not an object
// ("message": "error" in the wild) carries nothing and is not an error.
func (r *record) readMessage(msg []byte) error {
	if i := jsonpeek.SkipSpace(msg, 0); i == len(msg) || msg[i] != '{' {
		return nil
	}
	var content []byte
	err := eachMember(msg, func(key, val []byte) {
		switch string(key) {
		case "model":
			r.Model, _ = jsonString(val)
		case "id":
			r.MessageID, _ = jsonString(val)
		case "content":
			content = val
		}
	})
	if err != nil || content == nil {
		return err
	}
	r.Content = content
	if s, ok := jsonString(content); ok {
		r.Texts = []string{s}
		return nil
	}
	if content[0] != '[' {
		return nil
	}
	return eachElement(content, r.readPart)
}

// readPart reads one content part: text parts give their text, tool_result
// parts mark the record as a tool result. Images, thinking and tool_use are
// skipped without decoding.
func (r *record) readPart(part []byte) {
	if part[0] != '{' {
		return
	}
	var typ string
	var text []byte
	_ = eachMember(part, func(key, val []byte) {
		switch string(key) {
		case "type":
			typ, _ = jsonString(val)
		case "text":
			text = val
		}
	})
	switch typ {
	case "text":
		if s, ok := jsonString(text); ok {
			r.Texts = append(r.Texts, s)
		}
	case "tool_result":
		r.ToolResult = true
	}
}

func originKind(raw []byte) string {
	var kind string
	if raw[0] != '{' {
		return ""
	}
	_ = eachMember(raw, func(key, val []byte) {
		if string(key) == "kind" {
			kind, _ = jsonString(val)
		}
	})
	return kind
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Text that Claude Code or its harness puts into user turns. None of it was
// typed by the human as a prompt, so none of it is a prompt, a title or a
// conversation message. Matched against the start of each text part.
var injectedPrefixes = []string{
	"<command-name>", "<command-message>", "<command-args>", "<command-contents>",
	"<local-command-", // -stdout, -stderr, -caveat
	"<system-reminder>",
	"<task-notification>",
	"<teammate-message",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<user-prompt-submit-hook>",
	"<user-memory-input>",
	"<ide_opened_file>", "<ide_selection>", "<ide_diagnostics>",
	"[Request interrupted by user",
	"Caveat: The messages below were generated by the user while running local commands",
	"This session is being continued from a previous conversation",
}

func injected(text string) bool {
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// prompt returns the text of a real human prompt: a user turn
// that is not meta, not a sidechain, not a compaction summary, not a tool
// result, not from a non-human origin, with some text that the harness did
// not inject. Injected parts (an IDE's "opened file" note) are dropped and
// the rest kept.
func (r *record) prompt() (string, bool) {
	if r.Type != typeUser || r.Meta || r.Sidechain || r.CompactSummary || r.ToolResult {
		return "", false
	}
	if r.Origin != "" && r.Origin != "human" {
		return "", false
	}
	var parts []string
	for _, t := range r.Texts {
		t = strings.TrimSpace(t)
		if t != "" && !injected(t) {
			parts = append(parts, unwrapPasted(t))
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "\n\n"), true
}

// unwrapPasted gives back what the user pasted: Claude Code writes a paste
// (multi-line text typed in one go, as paddock sends a long message) into
// the prompt between <pasted_content id="…"> and its closing tag, which
// carries the same id. The text is the user's; the tags are not.
func unwrapPasted(t string) string {
	const open = `<pasted_content id="`
	var b strings.Builder
	for {
		i := strings.Index(t, open)
		if i < 0 {
			break
		}
		rest := t[i+len(open):]
		id, body, ok := strings.Cut(rest, `">`)
		if !ok || strings.ContainsAny(id, "\"<>\n") {
			break
		}
		inner, after, ok := strings.Cut(body, `</pasted_content id="`+id+`">`)
		if !ok {
			if inner, after, ok = strings.Cut(body, `</pasted_content>`); !ok {
				break
			}
		}
		b.WriteString(t[:i])
		b.WriteString(strings.TrimSuffix(strings.TrimPrefix(inner, "\n"), "\n"))
		t = after
	}
	b.WriteString(t)
	return strings.TrimSpace(b.String())
}

// userInput returns the first text of a user turn that is not meta and not a
// tool result, whoever wrote it. It decides whether a session is a teammate
// (its first input comes from the team lead) and whether an agent-name
// record came "before the first input".
func (r *record) userInput() (string, bool) {
	if r.Type != typeUser || r.Meta || r.ToolResult {
		return "", false
	}
	for _, t := range r.Texts {
		if t = strings.TrimSpace(t); t != "" {
			return t, true
		}
	}
	return "", false
}

// answer returns the readable text of an assistant record: its non-empty
// text parts, whatever its stop_reason. Thinking and tool_use
// parts never get here.
func (r *record) answer() (string, bool) {
	if r.Type != typeAssistant || r.Sidechain {
		return "", false
	}
	var parts []string
	for _, t := range r.Texts {
		if t = strings.TrimSpace(t); t != "" {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "\n\n"), true
}

// isTeammateStart reports whether a session's first input is the team lead
// briefing a teammate: such sessions are Claude's own team members, not
// sessions the user started. A team lead's own session also
// receives <teammate-message> turns, but never as its first input and never
// from "team-lead".
func isTeammateStart(text string) bool {
	if !strings.HasPrefix(text, "<teammate-message") {
		return false
	}
	open, _, _ := strings.Cut(text, ">")
	return strings.Contains(open, `teammate_id="team-lead"`)
}
