package mockmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// Anthropic Messages API: POST /v1/messages (SSE when "stream":true, else
// one JSON message) and POST /v1/messages/count_tokens.

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens *int               `json:"max_tokens"`
	Messages  []anthropicMessage `json:"messages"`
	System    json.RawMessage    `json:"system"`
	Tools     []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	Stream bool `json:"stream"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type anthropicBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// anthropicText flattens a string-or-blocks field (content, system) into its
// text blocks, and reports whether it holds a tool_result.
func anthropicText(raw json.RawMessage) (texts []string, toolResult bool, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, false, nil
	}
	var blocks []anthropicBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, false, errors.New("content: expected a string or an array of content blocks")
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			texts = append(texts, b.Text)
		case "tool_result":
			toolResult = true
		}
	}
	return texts, toolResult, nil
}

// parseAnthropic validates like the real API does for the fields the mock
// relies on, and returns the conversation.
func parseAnthropic(body []byte, needMaxTokens bool) (anthropicRequest, conversation, error) {
	var req anthropicRequest
	var conv conversation
	if err := json.Unmarshal(body, &req); err != nil {
		return req, conv, fmt.Errorf("invalid JSON body: %v", err)
	}
	switch {
	case req.Model == "":
		return req, conv, errors.New("model: Field required")
	case needMaxTokens && req.MaxTokens == nil:
		return req, conv, errors.New("max_tokens: Field required")
	case needMaxTokens && *req.MaxTokens < 1:
		return req, conv, errors.New("max_tokens: Input should be greater than or equal to 1")
	case len(req.Messages) == 0:
		return req, conv, errors.New("messages: at least one message is required")
	}
	system, _, _ := anthropicText(req.System)
	for i, m := range req.Messages {
		texts, tr, err := anthropicText(m.Content)
		if err != nil {
			return req, conv, fmt.Errorf("messages.%d.%v", i, err)
		}
		switch m.Role {
		case "user", "assistant":
		case "system":
			// Claude Code 2.1.328 first sends its environment block as a
			// mid-conversation system message (a beta the real API
			// accepts); refusing it makes the CLI retry without.
			system = append(system, texts...)
			continue
		default:
			return req, conv, fmt.Errorf("messages.%d.role: Input should be 'user', 'assistant' or 'system'", i)
		}
		// Claude sends a tool result with injected reminders beside it in
		// one user message: that is a tool result. Only a typed text beside
		// it (a prompt queued while the tool ran) makes it a new prompt.
		it := item{role: m.Role, texts: texts}
		if m.Role == "user" && tr && promptOf(it) == "" {
			it = item{role: "user", toolResult: true}
		}
		conv.items = append(conv.items, it)
	}
	for _, t := range req.Tools {
		if t.Name != "" {
			conv.tools = append(conv.tools, newTool(t.Name, t.InputSchema))
		}
	}
	conv.title = isTitleRequest(len(conv.tools) > 0, system, conv.items)
	return req, conv, nil
}

func (s *Server) anthropicMessages(w http.ResponseWriter, r *http.Request) {
	c, err := s.begin(r, APIAnthropicMessages)
	if err != nil {
		s.finish(c, http.StatusBadRequest, nil)
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	req, conv, err := parseAnthropic(c.body, true)
	if err != nil {
		s.finish(c, http.StatusBadRequest, nil)
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	reply := decide(conv, c.req.Seq)
	s.finish(c, replyStatus(reply), &reply)
	if reply.Kind == KindError {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", reply.Text)
		return
	}
	if !s.hold(r, reply) {
		return
	}
	id := fmt.Sprintf("msg_mock_%d", c.req.Seq)
	usage := map[string]any{"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0}
	stop := "end_turn"
	if reply.Kind == KindTool {
		stop = "tool_use"
	}
	outTokens := len(strings.Fields(reply.Text)) + 1
	if !req.Stream {
		content := []any{map[string]any{"type": "text", "text": reply.Text}}
		if reply.Kind == KindTool {
			content = append(content, map[string]any{"type": "tool_use", "id": anthropicToolID(reply.ToolID), "name": reply.Tool, "input": reply.Input})
		}
		usage["output_tokens"] = outTokens
		writeJSON(w, http.StatusOK, map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage,
		})
		return
	}

	// The event sequence of the real API: message_start, ping, then per
	// block start/delta…/stop, message_delta carrying stop_reason and the
	// output token count, message_stop.
	e := startSSE(w)
	usage["output_tokens"] = 1
	e.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	e.event("ping", map[string]any{"type": "ping"})
	e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
		"content_block": map[string]any{"type": "text", "text": ""}})
	for _, part := range chunks(reply.Text) {
		e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": part}})
	}
	e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	if reply.Kind == KindTool {
		e.event("content_block_start", map[string]any{"type": "content_block_start", "index": 1,
			"content_block": map[string]any{"type": "tool_use", "id": anthropicToolID(reply.ToolID), "name": reply.Tool, "input": map[string]any{}}})
		// Split the arguments JSON in two: clients must join partial_json.
		args := string(reply.Input)
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			e.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 1,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		e.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 1})
	}
	e.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outTokens}})
	e.event("message_stop", map[string]any{"type": "message_stop"})
}

// anthropicToolID gives tool ids the toolu_ prefix Claude Code's own ids
// have.
func anthropicToolID(id string) string { return "toolu_" + strings.TrimPrefix(id, "call_") }

func (s *Server) anthropicCountTokens(w http.ResponseWriter, r *http.Request) {
	c, err := s.begin(r, APIAnthropicCountTokens)
	if err == nil {
		_, _, err = parseAnthropic(c.body, false)
	}
	if err != nil {
		s.finish(c, http.StatusBadRequest, nil)
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	s.finish(c, http.StatusOK, nil)
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": estimateTokens(c.body)})
}

// anthropicError writes the API's error body:
// {"type":"error","error":{"type":…,"message":…}}.
func anthropicError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func replyStatus(r Reply) int {
	if r.Kind == KindError {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// isTitleRequest recognises the CLIs' title-generation side calls: they
// offer no tools and instruct the model to produce a title (OpenCode: "You
// are a title generator"; Codex: "Generate a concise, single-line task
// title"). Main requests always carry tools and never match.
func isTitleRequest(hasTools bool, system []string, items []item) bool {
	if hasTools {
		return false
	}
	texts := append([]string(nil), system...)
	for _, it := range items {
		texts = append(texts, it.texts...)
	}
	for _, t := range texts {
		l := strings.ToLower(t)
		for _, marker := range titleMarkers {
			if strings.Contains(l, marker) {
				return true
			}
		}
	}
	return false
}

var titleMarkers = []string{
	"title generator",
	"generate a title",
	"task title",
	"title for this conversation",
	"session title",
}
