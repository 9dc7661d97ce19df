// Package export writes a session's record as a file a person or another
// tool reads: Markdown (the conversation only, as "### User" and
// "### Assistant"), JSON, JSON Lines or plain text; with tools, the
// model's thinking, its tool calls and their results too, each result
// after its call.
package export

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"paddock/internal/session"
)

// Format is an export format.
type Format string

// The formats.
const (
	Markdown Format = "markdown"
	JSON     Format = "json"
	JSONL    Format = "jsonl"
	Text     Format = "text"
)

// Formats are every format, the default first.
func Formats() []Format { return []Format{Markdown, JSON, JSONL, Text} }

// ParseFormat reads a format's name ("" and "md" are Markdown, "txt"
// Text).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "markdown", "md":
		return Markdown, nil
	case "json":
		return JSON, nil
	case "jsonl", "ndjson":
		return JSONL, nil
	case "text", "txt":
		return Text, nil
	}
	return "", fmt.Errorf("export: no format %q (markdown, json, jsonl, text)", s)
}

// Ext is the format's file extension, with its dot.
func (f Format) Ext() string {
	switch f {
	case JSON:
		return ".json"
	case JSONL:
		return ".jsonl"
	case Text:
		return ".txt"
	}
	return ".md"
}

// ContentType is the format's media type.
func (f Format) ContentType() string {
	switch f {
	case JSON:
		return "application/json"
	case JSONL:
		return "application/jsonl"
	case Text:
		return "text/plain; charset=utf-8"
	}
	return "text/markdown; charset=utf-8"
}

// Session is what an export says of the session itself (JSON only: the
// Markdown and text carry the conversation alone).
type Session struct {
	Runtime string    `json:"runtime"`
	ID      string    `json:"id"`
	Title   string    `json:"title,omitempty"`
	Cwd     string    `json:"cwd,omitempty"`
	Model   string    `json:"model,omitempty"`
	Created time.Time `json:"created,omitzero"`
	Updated time.Time `json:"updated,omitzero"`
}

// Write writes the record evs of s to w in f: only its messages, or with
// tools every event, results right after their calls. It returns how many
// messages it wrote.
func Write(w io.Writer, f Format, s Session, evs []session.Event, tools bool) (int, error) {
	evs = ordered(evs, tools)
	messages := Messages(evs, tools)
	var err error
	switch f {
	case Markdown:
		err = writeMarkdown(w, evs)
	case JSON:
		err = writeJSON(w, s, evs, tools)
	case JSONL:
		err = writeJSONL(w, evs, tools)
	case Text:
		err = writeText(w, evs)
	default:
		err = fmt.Errorf("export: no format %q", f)
	}
	return messages, err
}

// Messages is how many messages an export of evs holds.
func Messages(evs []session.Event, tools bool) int {
	n := 0
	for _, e := range evs {
		if e.Kind == session.EventMessage {
			n++
		}
	}
	return n
}

// ordered keeps the messages (with tools, every event) and puts each
// tool result right after its call: some agents write a result before
// the call it answers. A result whose call is not in the record stays
// where it is.
func ordered(evs []session.Event, tools bool) []session.Event {
	if !tools {
		var out []session.Event
		for _, e := range evs {
			if e.Kind == session.EventMessage {
				out = append(out, e)
			}
		}
		return out
	}
	calls := map[string]bool{}
	results := map[string][]session.Event{}
	for _, e := range evs {
		switch {
		case e.Kind == session.EventToolCall && e.ToolID != "":
			calls[e.ToolID] = true
		case (e.Kind == session.EventToolResult || e.Kind == session.EventImage && e.Role == "") && e.ToolID != "":
			results[e.ToolID] = append(results[e.ToolID], e)
		}
	}
	out := make([]session.Event, 0, len(evs))
	for _, e := range evs {
		paired := e.ToolID != "" && calls[e.ToolID]
		switch {
		case (e.Kind == session.EventToolResult || e.Kind == session.EventImage && e.Role == "") && paired:
			continue // written after its call
		case e.Kind == session.EventToolCall && paired:
			out = append(out, e)
			out = append(out, results[e.ToolID]...)
			delete(results, e.ToolID) // a call written twice gets its results once
		default:
			out = append(out, e)
		}
	}
	return out
}

func roleTitle(role string) string {
	if role == session.RoleAssistant {
		return "Assistant"
	}
	return "User"
}

// fence is a Markdown code fence longer than any run of backticks in s.
func fence(s string) string {
	n, run := 3, 0
	for _, r := range s {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", n)
}

func writeMarkdown(w io.Writer, evs []session.Event) error {
	var b strings.Builder
	for _, e := range evs {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch e.Kind {
		case session.EventMessage:
			fmt.Fprintf(&b, "### %s\n\n%s\n", roleTitle(e.Role), strings.TrimSpace(e.Text))
		case session.EventThinking:
			b.WriteString("#### Thinking\n\n")
			for _, l := range strings.Split(strings.TrimSpace(e.Text), "\n") {
				b.WriteString(strings.TrimRight("> "+l, " ") + "\n")
			}
		case session.EventToolCall:
			f := fence(e.Input)
			fmt.Fprintf(&b, "#### Tool call: %s\n\n%sjson\n%s\n%s\n", e.Tool, f, e.Input, f)
		case session.EventToolResult:
			head := "Tool result"
			if e.IsError {
				head = "Tool result (error)"
			}
			f := fence(e.Text)
			fmt.Fprintf(&b, "#### %s\n\n%s\n%s\n%s\n", head, f, e.Text, f)
		case session.EventImage:
			fmt.Fprintf(&b, "#### Image\n\n%s, %d bytes\n", e.MediaType, e.Size)
		}
		if b.Len() > 64<<10 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
			b.WriteString("\n") // keeps the blank line between entries
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeText(w io.Writer, evs []session.Event) error {
	var b strings.Builder
	for i, e := range evs {
		if i > 0 {
			b.WriteString("\n")
		}
		switch e.Kind {
		case session.EventMessage:
			fmt.Fprintf(&b, "%s:\n%s\n", roleTitle(e.Role), strings.TrimSpace(e.Text))
		case session.EventThinking:
			fmt.Fprintf(&b, "Thinking:\n%s\n", strings.TrimSpace(e.Text))
		case session.EventToolCall:
			fmt.Fprintf(&b, "Tool call %s:\n%s\n", e.Tool, e.Input)
		case session.EventToolResult:
			if e.IsError {
				fmt.Fprintf(&b, "Tool result (error):\n%s\n", e.Text)
			} else {
				fmt.Fprintf(&b, "Tool result:\n%s\n", e.Text)
			}
		case session.EventImage:
			fmt.Fprintf(&b, "Image: %s, %d bytes\n", e.MediaType, e.Size)
		}
		if b.Len() > 64<<10 {
			if _, err := io.WriteString(w, b.String()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// entry is one event as JSON; a message has only role, text and time.
type entry struct {
	Kind      string     `json:"kind,omitempty"`
	Role      string     `json:"role,omitempty"`
	Text      string     `json:"text,omitempty"`
	Tool      string     `json:"tool,omitempty"`
	ToolID    string     `json:"tool_id,omitempty"`
	Input     string     `json:"input,omitempty"`
	IsError   bool       `json:"is_error,omitempty"`
	MediaType string     `json:"media_type,omitempty"`
	Size      int        `json:"size,omitempty"`
	Time      *time.Time `json:"time,omitempty"`
}

func entryOf(e session.Event, tools bool) entry {
	j := entry{Role: e.Role, Text: e.Text, Tool: e.Tool, ToolID: e.ToolID, Input: e.Input, IsError: e.IsError, MediaType: e.MediaType, Size: e.Size}
	if tools {
		j.Kind = e.Kind
	}
	if !e.Time.IsZero() {
		t := e.Time.UTC()
		j.Time = &t
	}
	return j
}

// writeJSON writes {"messages" (or "events"): [...], "session": {...}}
// indented, one entry at a time: a long session is never held twice, as
// the record and as its whole encoding.
func writeJSON(w io.Writer, s Session, evs []session.Event, tools bool) error {
	bw := bufio.NewWriter(w)
	key := "messages"
	if tools {
		key = "events"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("    ", "  ")
	bw.WriteString("{\n  \"" + key + "\": [")
	for i, e := range evs {
		buf.Reset()
		if err := enc.Encode(entryOf(e, tools)); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	if len(evs) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n  \"session\": ")
	buf.Reset()
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	bw.WriteString("\n}\n")
	return bw.Flush()
}

func writeJSONL(w io.Writer, evs []session.Event, tools bool) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, e := range evs {
		if err := enc.Encode(entryOf(e, tools)); err != nil {
			return err
		}
	}
	return nil
}

// FileName is a file name for s's export in f: its title's words (or its
// id), and the format's extension.
func FileName(s Session, f Format) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '-'
	}, s.Title)
	name = strings.Trim(strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '-' }), "-"), "-")
	if len(name) > 48 {
		name = strings.TrimRight(name[:48], "-")
	}
	id := s.ID
	if len(id) > 8 {
		id = id[:8]
	}
	if name == "" {
		return s.Runtime + "-" + id + f.Ext()
	}
	return name + "-" + id + f.Ext()
}

// WriteFile writes an export to path beside it first, then renamed: an
// export cut short never stands in for the file.
func WriteFile(path string, f Format, meta Session, evs []session.Event, tools bool) (int, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := Write(tmp, f, meta, evs, tools)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	return n, err
}

// Forbidden says whether path is inside one of dirs (the agents' history
// directories, paddock's data) or the hidden folder that holds one
// (~/.claude for ~/.claude/projects), and which.
func Forbidden(path string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d, _ = filepath.Abs(d)
		for _, root := range []string{d, filepath.Dir(d)} {
			if root != d && !strings.HasPrefix(filepath.Base(root), ".") {
				continue // only a hidden folder is the agent's own
			}
			if rel, err := filepath.Rel(root, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return root, true
			}
		}
	}
	return "", false
}
