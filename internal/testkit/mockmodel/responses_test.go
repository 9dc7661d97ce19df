package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

type responsesResult struct {
	text       string
	tool       string
	callID     string
	args       map[string]any
	status     string
	eventTypes []string
}

// assembleResponsesStream checks what Codex relies on: every event names
// its type (event: line and "type" agree), sequence numbers count up, text
// deltas join to output_text.done, argument deltas join to
// function_call_arguments.done, and response.completed closes the stream
// with usage and the full output.
func assembleResponsesStream(t *testing.T, events []sseEvent) responsesResult {
	t.Helper()
	var r responsesResult
	var deltas, argDeltas strings.Builder
	for i, e := range events {
		d := decodeJSON(t, e.data)
		if d["type"] != e.name {
			t.Fatalf("event %q carries type %v", e.name, d["type"])
		}
		if seq, _ := d["sequence_number"].(float64); int(seq) != i {
			t.Fatalf("event %d has sequence_number %v", i, d["sequence_number"])
		}
		r.eventTypes = append(r.eventTypes, e.name)
		switch e.name {
		case "response.output_text.delta":
			deltas.WriteString(d["delta"].(string))
		case "response.output_text.done":
			if d["text"] != deltas.String() {
				t.Fatalf("text deltas %q != done %q", deltas.String(), d["text"])
			}
			r.text = d["text"].(string)
		case "response.function_call_arguments.delta":
			argDeltas.WriteString(d["delta"].(string))
		case "response.function_call_arguments.done":
			if d["arguments"] != argDeltas.String() {
				t.Fatalf("argument deltas %q != done %q", argDeltas.String(), d["arguments"])
			}
		case "response.output_item.done":
			if get(d, "item", "type") == "function_call" {
				r.tool, _ = get(d, "item", "name").(string)
				r.callID, _ = get(d, "item", "call_id").(string)
				if err := json.Unmarshal([]byte(get(d, "item", "arguments").(string)), &r.args); err != nil {
					t.Fatalf("arguments are not JSON: %v", err)
				}
			}
		case "response.completed":
			r.status, _ = get(d, "response", "status").(string)
			if get(d, "response", "usage", "total_tokens") == nil {
				t.Fatalf("response.completed without usage: %s", e.data)
			}
			if i != len(events)-1 {
				t.Fatalf("response.completed is not last")
			}
		}
	}
	return r
}

func responsesInput(texts ...string) []any {
	var items []any
	for _, t := range texts {
		items = append(items, map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": t}}})
	}
	return items
}

func TestOpenAIResponses(t *testing.T) {
	titleFormat := map[string]any{"format": map[string]any{"type": "json_schema", "name": "codex_output_schema", "strict": true,
		"schema": map[string]any{"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}}
	env := "<environment_context>\n  <cwd>/tmp/x</cwd>\n</environment_context>"
	tests := []struct {
		name     string
		input    any
		tools    []any
		text     any
		wantText string
		wantTool string
		wantArgs map[string]any
	}{
		{name: "plain", input: responsesInput(env, "hello paddock one"), tools: codexTools, wantText: PlainReply(1)},
		{name: "string input", input: "hello", tools: codexTools, wantText: PlainReply(1)},
		{
			name: "RUN escalates exec_command", input: responsesInput(env, "please RUN the thing"), tools: codexTools,
			wantText: RunPreamble, wantTool: "exec_command",
			wantArgs: map[string]any{"cmd": RunCommand(1), "sandbox_permissions": "require_escalated",
				"justification": "Mock wants to append to mock_out.txt"},
		},
		{
			name: "ASK calls request_user_input with an id", input: responsesInput("ASK me"), tools: codexTools,
			wantText: AskPreamble, wantTool: "request_user_input",
		},
		{
			name: "function_call_output gets the final text",
			input: append(responsesInput("please RUN the thing"),
				map[string]any{"type": "function_call", "name": "exec_command", "call_id": "call_1", "arguments": "{}"},
				map[string]any{"type": "function_call_output", "call_id": "call_1", "output": "hello-from-mock-1\n"}),
			tools: codexTools, wantText: ToolFinishedReply,
		},
		{
			name:  "title side call answers the JSON schema",
			input: responsesInput(env, "Generate a concise, single-line task title of at most 36 characters.\n\nUser prompt:\nhello paddock one"),
			tools: []any{}, text: titleFormat,
			wantText: `{"title":"Mock title: hello paddock one"}`,
		},
	}
	for _, tc := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				_, hs := newTestServer(t, Options{})
				body := map[string]any{"model": "mock-model", "instructions": "You are Codex.", "input": tc.input,
					"tools": tc.tools, "stream": stream, "store": false}
				if tc.text != nil {
					body["text"] = tc.text
				}
				resp := post(t, hs.URL, "/v1/responses", body)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %v", resp.StatusCode, readJSON(t, resp))
				}
				var got responsesResult
				if stream {
					got = assembleResponsesStream(t, readSSE(t, resp.Body))
					if got.eventTypes[0] != "response.created" {
						t.Errorf("first event %q", got.eventTypes[0])
					}
				} else {
					m := readJSON(t, resp)
					got.status, _ = m["status"].(string)
					for _, it := range m["output"].([]any) {
						switch get(it, "type") {
						case "message":
							got.text += get(it, "content", 0, "text").(string)
						case "function_call":
							got.tool = get(it, "name").(string)
							got.callID = get(it, "call_id").(string)
							_ = json.Unmarshal([]byte(get(it, "arguments").(string)), &got.args)
						}
					}
				}
				if got.status != "completed" || got.text != tc.wantText || got.tool != tc.wantTool {
					t.Errorf("got status %q text %q tool %q, want completed %q %q", got.status, got.text, got.tool, tc.wantText, tc.wantTool)
				}
				if tc.wantTool != "" && got.callID == "" {
					t.Error("function call without call_id")
				}
				if tc.wantArgs != nil {
					a, _ := json.Marshal(got.args)
					w, _ := json.Marshal(tc.wantArgs)
					if string(a) != string(w) {
						t.Errorf("arguments %s, want %s", a, w)
					}
				}
				if tc.wantTool == "request_user_input" && get(got.args, "questions", 0, "id") != "color" {
					t.Errorf("request_user_input arguments %v lack the question id", got.args)
				}
			})
		}
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name, path, body string
		wantStatus       int
		wantParam        any
		wantCode         string
	}{
		{"responses invalid JSON", "/v1/responses", `{`, 400, nil, "invalid_json"},
		{"responses no model", "/v1/responses", `{"input":"hi"}`, 400, "model", "missing_required_parameter"},
		{"responses no input", "/v1/responses", `{"model":"m"}`, 400, "input", "missing_required_parameter"},
		{"responses bad input", "/v1/responses", `{"model":"m","input":5}`, 400, "input", "invalid_type"},
		{"responses scripted ERROR", "/v1/responses", `{"model":"m","stream":true,"input":"ERROR please"}`, 400, nil, "mock_scripted_error"},
		{"chat no model", "/v1/chat/completions", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model", "missing_required_parameter"},
		{"chat no messages", "/v1/chat/completions", `{"model":"m"}`, 400, "messages", "missing_required_parameter"},
		{"chat empty messages", "/v1/chat/completions", `{"model":"m","messages":[]}`, 400, "messages", "empty_array"},
		{"chat bad role", "/v1/chat/completions", `{"model":"m","messages":[{"role":"robot","content":"hi"}]}`, 400, "messages[0].role", "invalid_value"},
		{"chat bad content", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":{}}]}`, 400, "messages[0].content", "invalid_type"},
		{"chat scripted ERROR", "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"ERROR"}]}`, 400, nil, "mock_scripted_error"},
		{"unknown path", "/v1/embeddings", `{}`, 404, nil, "unknown_url"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, hs := newTestServer(t, Options{})
			resp := post(t, hs.URL, tc.path, tc.body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			m := readJSON(t, resp)
			e, ok := m["error"].(map[string]any)
			if !ok {
				t.Fatalf("no error object: %v", m)
			}
			if e["type"] != "invalid_request_error" || e["code"] != tc.wantCode || e["param"] != tc.wantParam {
				t.Errorf("error %v, want type invalid_request_error code %q param %v", e, tc.wantCode, tc.wantParam)
			}
			if msg, _ := e["message"].(string); msg == "" {
				t.Error("empty message")
			}
		})
	}
}
