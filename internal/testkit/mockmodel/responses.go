package mockmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// OpenAI Responses API: POST /v1/responses, as Codex speaks it (SSE with
// "stream":true, the response object otherwise).

type responsesRequest struct {
	Model        string          `json:"model"`
	Instructions string          `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Tools        []struct {
		Type       string          `json:"type"`
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tools"`
	Stream bool `json:"stream"`
	Text   struct {
		Format struct {
			Type   string          `json:"type"`
			Schema json.RawMessage `json:"schema"`
		} `json:"format"`
	} `json:"text"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// paramError is an OpenAI-style validation error naming its parameter.
type paramError struct{ param, code, msg string }

func (e *paramError) Error() string { return e.msg }

func missingParam(p string) error {
	return &paramError{p, "missing_required_parameter", fmt.Sprintf("Missing required parameter: '%s'.", p)}
}

// openaiContentText flattens a string-or-parts content field; part types are
// input_text/output_text (Responses) or text (Chat Completions).
func openaiContentText(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, errors.New("content must be a string or an array of content parts")
	}
	var out []string
	for _, p := range parts {
		if p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return out, nil
}

func parseResponses(body []byte) (responsesRequest, conversation, error) {
	var req responsesRequest
	var conv conversation
	if err := json.Unmarshal(body, &req); err != nil {
		return req, conv, &paramError{"", "invalid_json", fmt.Sprintf("We could not parse the JSON body of your request: %v", err)}
	}
	if req.Model == "" {
		return req, conv, missingParam("model")
	}
	if len(req.Input) == 0 || string(req.Input) == "null" {
		return req, conv, missingParam("input")
	}
	system := []string{req.Instructions}
	var text string
	if json.Unmarshal(req.Input, &text) == nil {
		conv.items = append(conv.items, item{role: "user", texts: []string{text}})
	} else {
		var items []responsesItem
		if err := json.Unmarshal(req.Input, &items); err != nil {
			return req, conv, &paramError{"input", "invalid_type", "Invalid type for 'input': expected a string or an array of input items."}
		}
		for i, it := range items {
			switch {
			case it.Type == "message" || (it.Type == "" && it.Role != ""):
				texts, err := openaiContentText(it.Content)
				if err != nil {
					return req, conv, &paramError{fmt.Sprintf("input[%d].content", i), "invalid_type", err.Error()}
				}
				switch it.Role {
				case "user":
					conv.items = append(conv.items, item{role: "user", texts: texts})
				case "assistant":
					conv.items = append(conv.items, item{role: "assistant", texts: texts})
				default: // developer, system
					system = append(system, texts...)
				}
			case strings.HasSuffix(it.Type, "_call_output"):
				// function_call_output, custom_tool_call_output, …
				conv.items = append(conv.items, item{role: "user", toolResult: true})
			case strings.HasSuffix(it.Type, "_call"):
				conv.items = append(conv.items, item{role: "assistant"})
			}
		}
	}
	for _, t := range req.Tools {
		if t.Name != "" {
			conv.tools = append(conv.tools, newTool(t.Name, t.Parameters))
		}
	}
	conv.title = isTitleRequest(len(conv.tools) > 0, system, conv.items)
	if req.Text.Format.Type == "json_schema" {
		conv.titleJSON = parseSchema(req.Text.Format.Schema).defines("title")
	}
	return req, conv, nil
}

func (s *Server) openaiResponses(w http.ResponseWriter, r *http.Request) {
	c, err := s.begin(r, APIOpenAIResponses)
	if err != nil {
		s.finish(c, http.StatusBadRequest, nil)
		openaiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_body", err.Error())
		return
	}
	req, conv, err := parseResponses(c.body)
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

	text := reply.Text
	if reply.Kind == KindTitle && conv.titleJSON {
		text = string(marshalPlain(map[string]string{"title": reply.Text}))
	}
	respID := fmt.Sprintf("resp_mock_%d", c.req.Seq)
	msgID := fmt.Sprintf("msg_mock_%d", c.req.Seq)
	fcID := fmt.Sprintf("fc_mock_%d", c.req.Seq)
	created := time.Now().Unix()
	textPart := func(t string) map[string]any {
		return map[string]any{"type": "output_text", "text": t, "annotations": []any{}}
	}
	message := func(status string, content []any) map[string]any {
		return map[string]any{"id": msgID, "type": "message", "status": status, "role": "assistant", "content": content}
	}
	call := func(status, args string) map[string]any {
		return map[string]any{"id": fcID, "type": "function_call", "status": status,
			"call_id": reply.ToolID, "name": reply.Tool, "arguments": args}
	}
	output := []any{message("completed", []any{textPart(text)})}
	if reply.Kind == KindTool {
		output = append(output, call("completed", string(reply.Input)))
	}
	outTokens := len(strings.Fields(text)) + 1
	response := func(status string, out []any) map[string]any {
		m := map[string]any{"id": respID, "object": "response", "created_at": created, "status": status,
			"model": req.Model, "output": out}
		if status == "completed" {
			m["usage"] = map[string]any{
				"input_tokens": 100, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": outTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": 100 + outTokens,
			}
		}
		return m
	}
	if !req.Stream {
		writeJSON(w, http.StatusOK, response("completed", output))
		return
	}

	// The events Codex consumes, in the real API's order; every event
	// carries its type and a sequence_number.
	e := startSSE(w)
	seq := 0
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		e.event(typ, fields)
	}
	emit("response.created", map[string]any{"response": response("in_progress", []any{})})
	emit("response.in_progress", map[string]any{"response": response("in_progress", []any{})})
	emit("response.output_item.added", map[string]any{"output_index": 0, "item": message("in_progress", []any{})})
	emit("response.content_part.added", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": textPart("")})
	for _, part := range chunks(text) {
		emit("response.output_text.delta", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "delta": part})
	}
	emit("response.output_text.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "text": text})
	emit("response.content_part.done", map[string]any{"item_id": msgID, "output_index": 0, "content_index": 0, "part": textPart(text)})
	emit("response.output_item.done", map[string]any{"output_index": 0, "item": output[0]})
	if reply.Kind == KindTool {
		args := string(reply.Input)
		emit("response.output_item.added", map[string]any{"output_index": 1, "item": call("in_progress", "")})
		half := len(args) / 2
		for _, part := range []string{args[:half], args[half:]} {
			emit("response.function_call_arguments.delta", map[string]any{"item_id": fcID, "output_index": 1, "delta": part})
		}
		emit("response.function_call_arguments.done", map[string]any{"item_id": fcID, "output_index": 1, "arguments": args})
		emit("response.output_item.done", map[string]any{"output_index": 1, "item": output[1]})
	}
	emit("response.completed", map[string]any{"response": response("completed", output)})
}

// openaiError writes OpenAI's error body: {"error":{"message","type","param","code"}}.
func openaiError(w http.ResponseWriter, status int, typ, code, msg string) {
	writeOpenAIError(w, status, typ, "", code, msg)
}

func writeOpenAIError(w http.ResponseWriter, status int, typ, param, code, msg string) {
	var p any
	if param != "" {
		p = param
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": p, "code": code}})
}

func writeParamError(w http.ResponseWriter, err error) {
	var pe *paramError
	if errors.As(err, &pe) {
		writeOpenAIError(w, http.StatusBadRequest, "invalid_request_error", pe.param, pe.code, pe.msg)
		return
	}
	openaiError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", err.Error())
}
