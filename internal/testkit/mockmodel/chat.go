package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// OpenAI Chat Completions API: POST /v1/chat/completions, as OpenCode
// (@ai-sdk/openai-compatible), Pi (openai JS SDK), Kimi and Qwen speak it.

type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Stream        bool `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func parseChat(body []byte) (chatRequest, conversation, error) {
	var req chatRequest
	var conv conversation
	if err := json.Unmarshal(body, &req); err != nil {
		return req, conv, &paramError{"", "invalid_json", fmt.Sprintf("We could not parse the JSON body of your request: %v", err)}
	}
	if req.Model == "" {
		return req, conv, missingParam("model")
	}
	if req.Messages == nil {
		return req, conv, missingParam("messages")
	}
	if len(req.Messages) == 0 {
		return req, conv, &paramError{"messages", "empty_array", "Invalid 'messages': empty array. Expected an array with minimum length 1."}
	}
	var system []string
	for i, m := range req.Messages {
		texts, err := openaiContentText(m.Content)
		if err != nil {
			return req, conv, &paramError{fmt.Sprintf("messages[%d].content", i), "invalid_type", err.Error()}
		}
		switch m.Role {
		case "user":
			conv.items = append(conv.items, item{role: "user", texts: texts})
		case "assistant":
			conv.items = append(conv.items, item{role: "assistant", texts: texts})
		case "tool", "function":
			conv.items = append(conv.items, item{role: "user", toolResult: true})
		case "system", "developer":
			system = append(system, texts...)
		default:
			return req, conv, &paramError{fmt.Sprintf("messages[%d].role", i), "invalid_value",
				fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool'.", m.Role)}
		}
	}
	for _, t := range req.Tools {
		if t.Function.Name != "" {
			conv.tools = append(conv.tools, newTool(t.Function.Name, t.Function.Parameters))
		}
	}
	conv.title = isTitleRequest(len(conv.tools) > 0, system, conv.items)
	return req, conv, nil
}

func (s *Server) openaiChat(w http.ResponseWriter, r *http.Request) {
	c, err := s.begin(r, APIOpenAIChat)
	if err != nil {
		s.finish(c, http.StatusBadRequest, nil)
		openaiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_body", err.Error())
		return
	}
	req, conv, err := parseChat(c.body)
	if err != nil {
		s.finish(c, http.StatusBadRequest, nil)
		writeParamError(w, err)
		return
	}
	reply := decide(conv, c.req.Seq)
	s.finish(c, replyStatus(reply), &reply)
	if reply.Kind == KindError {
		openaiError(w, http.StatusBadRequest, "invalid_request_error", "mock_scripted_error", reply.Text)
		return
	}
	if !s.hold(r, reply) {
		return
	}

	id := fmt.Sprintf("chatcmpl-mock-%d", c.req.Seq)
	created := time.Now().Unix()
	finish := "stop"
	if reply.Kind == KindTool {
		finish = "tool_calls"
	}
	outTokens := len(strings.Fields(reply.Text)) + 1
	usage := map[string]any{"prompt_tokens": 100, "completion_tokens": outTokens, "total_tokens": 100 + outTokens}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": reply.Text}
		if reply.Kind == KindTool {
			msg["tool_calls"] = []any{map[string]any{"id": reply.ToolID, "type": "function",
				"function": map[string]any{"name": reply.Tool, "arguments": string(reply.Input)}}}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created,
			"model": req.Model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage": usage})
		return
	}

	// Chunks as the real API sends them: role first, content deltas, the
	// tool call (id and name first, then argument fragments), a chunk with
	// finish_reason, the usage chunk (only if asked for), then [DONE].
	e := startSSE(w)
	chunk := func(delta map[string]any, finishReason any) {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}}})
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil)
	for _, part := range chunks(reply.Text) {
		chunk(map[string]any{"content": part}, nil)
	}
	if reply.Kind == KindTool {
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": reply.ToolID, "type": "function",
			"function": map[string]any{"name": reply.Tool, "arguments": ""}}}}, nil)
		args := string(reply.Input)
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": 0,
				"function": map[string]any{"arguments": part}}}}, nil)
		}
	}
	chunk(map[string]any{}, finish)
	if req.StreamOptions.IncludeUsage {
		e.event("", map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": []any{}, "usage": usage})
	}
	e.event("", "[DONE]")
}
