package cursor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"paddock/internal/history"
	"paddock/internal/session"
)

// Events returns a chat's full record, oldest first, from the same source
// and in the same order as Conversation: its messages (exactly
// Conversation's), the model's visible reasoning, and its tool calls and
// results as the message blobs (or transcript lines) carry them. Within
// one message the parts keep their order; the message's text stands
// where its first text part was. Neither store.db nor the transcripts
// record a time per message, so every Time is zero. System messages,
// images, files and redacted reasoning are not part of the record.
// session.ErrNotFound when there is no such chat.
func (s *Scanner) Events(ctx context.Context, id string) ([]session.Event, error) {
	var out []session.Event
	if err := s.EachEvent(ctx, id, func(e session.Event) error { out = append(out, e); return nil }); err != nil {
		return nil, err
	}
	return out, nil
}

// EachEvent hands Events' events to fn as each message is read, and
// stops at fn's first error, which it returns. (store.db's message blobs
// are read together, as Conversation reads them; their events are not.)
func (s *Scanner) EachEvent(ctx context.Context, id string, fn func(session.Event) error) error {
	var fnErr error
	emit := func(e session.Event) error {
		fnErr = fn(e)
		return fnErr
	}
	// load tells a source read from one that could not be: its answer
	// is a count of events, as zero-size elements. fn's own error is no
	// fault of the source's.
	_, err := load(ctx, s, id,
		func(ctx context.Context, path string) ([]struct{}, error) {
			n, err := s.storeEvents(ctx, path, emit)
			if fnErr != nil {
				err = nil
			}
			return make([]struct{}, n), err
		},
		func(ctx context.Context, path string) ([]struct{}, int, error) {
			n, bad, err := transcriptEvents(ctx, path, emit)
			if fnErr != nil {
				err = nil
			}
			if n == 0 {
				return nil, bad, err
			}
			return make([]struct{}, n), bad, err
		})
	if fnErr != nil {
		return fnErr
	}
	return err
}

// storeEvents hands emit a chat's record from its store.db, the message
// blobs storeConversation reads, and returns how many events it handed.
func (s *Scanner) storeEvents(ctx context.Context, path string, emit func(session.Event) error) (int, error) {
	st, err := s.openStore(ctx, path)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	blobs, err := st.messageBlobs(ctx, st.meta(ctx))
	if err != nil {
		return 0, fmt.Errorf("cursor store %s: %w", path, err)
	}
	n := 0
	for i, b := range blobs {
		blobs[i] = nil // handed over: not kept to the end
		for _, e := range blobEvents(b) {
			if err := emit(e); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// blobEvents is one message blob's events (AI SDK shape, see store.go).
func blobEvents(data []byte) []session.Event {
	if len(data) > maxBlobBytes || !isJSONBlob(data) {
		return nil
	}
	var m aiMessage
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	msg, ok := blobMessage(data)
	return contentEvents(m.Role, m.Content, msg, ok)
}

// transcriptEvents hands emit a transcript's record, line by line, and
// returns how many events it handed and how many lines were broken.
func transcriptEvents(ctx context.Context, path string, emit func(session.Event) error) (n, bad int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	var emitErr error
	bad, err = readLines(ctx, f, func(line []byte) error {
		if emitErr != nil {
			return nil
		}
		msg, ok, err := lineMessage(line)
		if err != nil {
			return err
		}
		var l transcriptLine
		if json.Unmarshal(line, &l) != nil {
			return nil
		}
		content := l.Content
		if l.Message != nil && len(l.Message.Content) > 0 {
			content = l.Message.Content
		}
		for _, e := range contentEvents(l.Role, content, msg, ok) {
			if emitErr = emit(e); emitErr != nil {
				return nil
			}
			n++
		}
		return nil
	})
	if emitErr != nil {
		return n, bad, emitErr
	}
	return n, bad, err
}

// contentPart is one part of a message's content, in either shape Cursor
// writes: the AI SDK's (store.db: reasoning, tool-call, tool-result) or
// Anthropic's (transcripts: thinking, tool_use, tool_result).
type contentPart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	Thinking   string          `json:"thinking"`
	ToolCallID string          `json:"toolCallId"`
	ToolUseID  string          `json:"tool_use_id"`
	ID         string          `json:"id"`
	ToolName   string          `json:"toolName"`
	Name       string          `json:"name"`
	Args       json.RawMessage `json:"args"`
	Input      json.RawMessage `json:"input"`
	Result     json.RawMessage `json:"result"`
	Output     json.RawMessage `json:"output"`
	Content    json.RawMessage `json:"content"`
	IsError    bool            `json:"isError"`
	IsErrorA   bool            `json:"is_error"`
}

// contentEvents turns one message's content into events: msg (when ok)
// where its first text part is (first, for string content), then or
// around it the thinking, tool calls and tool results. A system message
// gives none.
func contentEvents(role string, content json.RawMessage, msg session.Message, ok bool) []session.Event {
	if role == "system" {
		return nil
	}
	message := session.Event{Kind: session.EventMessage, Role: msg.Role, Text: msg.Text}
	var parts []json.RawMessage
	if json.Unmarshal(content, &parts) != nil {
		if ok {
			return []session.Event{message}
		}
		return nil
	}
	var out []session.Event
	placed := !ok
	for _, raw := range parts {
		var p contentPart
		if json.Unmarshal(raw, &p) != nil {
			continue
		}
		switch p.Type {
		case "text":
			if !placed {
				out, placed = append(out, message), true
			}
		case "reasoning", "thinking":
			if t := clean(p.Text + p.Thinking); t != "" {
				out = append(out, session.Event{Kind: session.EventThinking, Text: t})
			}
		case "tool-call", "tool_use":
			out = append(out, session.Event{
				Kind:   session.EventToolCall,
				Tool:   clean(first(p.ToolName, p.Name)),
				ToolID: clean(first(p.ToolCallID, p.ID)),
				Input:  inputJSON(first(p.Args, p.Input)),
			})
		case "tool-result", "tool_result":
			text, isErr := resultText(first(p.Output, p.Result, p.Content))
			out = append(out, session.Event{
				Kind:    session.EventToolResult,
				ToolID:  clean(first(p.ToolCallID, p.ToolUseID)),
				Text:    history.ClipOutput(text),
				IsError: isErr || p.IsError || p.IsErrorA,
			})
		}
	}
	if !placed {
		out = append(out, message) // text parts only blobMessage could read
	}
	return out
}

func first[T string | json.RawMessage](vs ...T) T {
	for _, v := range vs {
		if len(v) > 0 && string(v) != "null" {
			return v
		}
	}
	var zero T
	return zero
}

// inputJSON is a tool call's input as compact JSON text. An input stored
// as a string holding JSON (the AI SDK's wire form of args) is that JSON.
func inputJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && json.Valid([]byte(s)) {
		raw = json.RawMessage(s)
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return validText(string(raw))
	}
	return validText(b.String())
}

// resultText reads a tool result's output: a string; the AI SDK's typed
// output {type: text|json|error-text|error-json|content, value}; a list
// of text parts (Anthropic's tool_result content); else its JSON text.
// isErr reports an error-* output.
func resultText(raw json.RawMessage) (text string, isErr bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return validText(s), false
	}
	var typed struct {
		Type  string          `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &typed) == nil && typed.Type != "" && len(typed.Value) > 0 {
		isErr = strings.HasPrefix(typed.Type, "error-")
		if typed.Type == "content" {
			return partsText(typed.Value), isErr
		}
		t, _ := resultText(typed.Value)
		return t, isErr
	}
	if t := partsText(raw); t != "" {
		return t, false
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return validText(string(raw)), false
	}
	return validText(b.String()), false
}

// partsText joins the text of a list of {type:"text", text} parts; "" for
// anything else.
func partsText(raw json.RawMessage) string {
	var parts []aiPart
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return validText(strings.Join(texts, "\n"))
}

// validText repairs invalid UTF-8 and keeps everything else (a tool's
// output ends in its newline).
func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
