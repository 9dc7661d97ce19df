package mockmodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// anthropicResult is a streamed or plain Messages reply, assembled.
type anthropicResult struct {
	text       string
	tool       string
	toolID     string
	input      map[string]any
	stopReason string
}

// assembleAnthropicStream checks the event grammar Claude Code relies on and
// joins the deltas.
func assembleAnthropicStream(t *testing.T, events []sseEvent) anthropicResult {
	t.Helper()
	var r anthropicResult
	if len(events) < 4 || events[0].name != "message_start" || events[len(events)-1].name != "message_stop" {
		t.Fatalf("stream must go message_start … message_stop, got %v", eventNames(events))
	}
	open := map[float64]string{} // index → block type
	var partial strings.Builder
	sawDelta := false
	for _, e := range events {
		d := decodeJSON(t, e.data)
		if d["type"] != e.name {
			t.Fatalf("event %q carries type %v", e.name, d["type"])
		}
		switch e.name {
		case "message_start":
			if get(d, "message", "role") != "assistant" || get(d, "message", "id") == nil {
				t.Fatalf("bad message_start %s", e.data)
			}
		case "content_block_start":
			idx := d["index"].(float64)
			typ := get(d, "content_block", "type").(string)
			open[idx] = typ
			if typ == "tool_use" {
				r.tool, _ = get(d, "content_block", "name").(string)
				r.toolID, _ = get(d, "content_block", "id").(string)
			}
		case "content_block_delta":
			idx := d["index"].(float64)
			switch get(d, "delta", "type") {
			case "text_delta":
				if open[idx] != "text" {
					t.Fatalf("text_delta for block %v of type %q", idx, open[idx])
				}
				r.text += get(d, "delta", "text").(string)
			case "input_json_delta":
				if open[idx] != "tool_use" {
					t.Fatalf("input_json_delta for block %v of type %q", idx, open[idx])
				}
				partial.WriteString(get(d, "delta", "partial_json").(string))
			}
		case "content_block_stop":
			idx := d["index"].(float64)
			if _, ok := open[idx]; !ok {
				t.Fatalf("stop of unopened block %v", idx)
			}
			delete(open, idx)
		case "message_delta":
			sawDelta = true
			r.stopReason, _ = get(d, "delta", "stop_reason").(string)
			if get(d, "usage", "output_tokens") == nil {
				t.Fatalf("message_delta without usage.output_tokens: %s", e.data)
			}
		}
	}
	if len(open) != 0 || !sawDelta {
		t.Fatalf("blocks left open %v or no message_delta", open)
	}
	if r.tool != "" {
		if err := json.Unmarshal([]byte(partial.String()), &r.input); err != nil {
			t.Fatalf("tool input %q does not join to JSON: %v", partial.String(), err)
		}
	}
	return r
}

func eventNames(events []sseEvent) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.name)
	}
	return out
}

func assembleAnthropicJSON(t *testing.T, m map[string]any) anthropicResult {
	t.Helper()
	var r anthropicResult
	if m["type"] != "message" || m["role"] != "assistant" {
		t.Fatalf("not a message: %v", m)
	}
	r.stopReason, _ = m["stop_reason"].(string)
	for _, c := range m["content"].([]any) {
		switch get(c, "type") {
		case "text":
			r.text += get(c, "text").(string)
		case "tool_use":
			r.tool = get(c, "name").(string)
			r.toolID = get(c, "id").(string)
			r.input = get(c, "input").(map[string]any)
		}
	}
	return r
}

func TestAnthropicMessages(t *testing.T) {
	toolUse := map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "text", "text": RunPreamble},
		map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": "echo"}},
	}}
	toolResult := map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello-from-mock-1\n"},
		map[string]any{"type": "text", "text": "<system-reminder>\nnoise\n</system-reminder>"},
	}}
	tests := []struct {
		name      string
		messages  []any
		tools     []any
		wantText  string
		wantTool  string
		wantInput map[string]any
		wantStop  string
	}{
		{
			name:     "plain text after injected reminders",
			messages: []any{userText("<system-reminder>\nToday's date is 2026-11-29.\n</system-reminder>", "hello paddock one")},
			tools:    claudeTools,
			wantText: PlainReply(1), wantStop: "end_turn",
		},
		{
			name: "second turn, string content and a mid-conversation system message",
			messages: []any{
				map[string]any{"role": "user", "content": "hello paddock one"},
				map[string]any{"role": "assistant", "content": PlainReply(1)},
				map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "text": "# Environment"}}},
				map[string]any{"role": "user", "content": "second turn please"},
			},
			tools:    claudeTools,
			wantText: PlainReply(2), wantStop: "end_turn",
		},
		{
			name:     "RUN calls Bash",
			messages: []any{userText("please RUN the thing")},
			tools:    claudeTools,
			wantText: RunPreamble, wantTool: "Bash", wantStop: "tool_use",
			wantInput: map[string]any{"command": RunCommand(1), "description": "Append a line to mock_out.txt"},
		},
		{
			name:     "ASK calls AskUserQuestion",
			messages: []any{userText("ASK me something")},
			tools:    claudeTools,
			wantText: AskPreamble, wantTool: "AskUserQuestion", wantStop: "tool_use",
			wantInput: map[string]any{"questions": []any{map[string]any{
				"question": AskQuestion, "header": AskHeader, "multiSelect": false,
				"options": []any{
					map[string]any{"label": "Red", "description": "warm"},
					map[string]any{"label": "Blue", "description": "cool"},
				},
			}}},
		},
		{
			name:     "tool result gets the final text",
			messages: []any{userText("please RUN the thing"), toolUse, toolResult},
			tools:    claudeTools,
			wantText: ToolFinishedReply, wantStop: "end_turn",
		},
		{
			name: "a prompt queued beside a tool result is answered",
			messages: []any{userText("please RUN the thing"), toolUse, map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
				map[string]any{"type": "text", "text": "and then this"},
			}}},
			tools:    claudeTools,
			wantText: PlainReply(2), wantStop: "end_turn",
		},
		{
			name:     "no tools offered: RUN answers with text",
			messages: []any{userText("please RUN the thing")},
			wantText: PlainReply(1), wantStop: "end_turn",
		},
		{
			name:     "TRUNK is not RUN",
			messages: []any{userText("check the TRUNK")},
			tools:    claudeTools,
			wantText: PlainReply(1), wantStop: "end_turn",
		},
	}
	for _, tc := range tests {
		for _, stream := range []bool{true, false} {
			name := tc.name + map[bool]string{true: "/stream", false: "/json"}[stream]
			t.Run(name, func(t *testing.T) {
				_, hs := newTestServer(t, Options{})
				resp := post(t, hs.URL, "/v1/messages?beta=true", claudeBody(stream, tc.tools, tc.messages...),
					"anthropic-version", "2023-06-01")
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %v", resp.StatusCode, readJSON(t, resp))
				}
				var got anthropicResult
				if stream {
					if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
						t.Fatalf("Content-Type %q", ct)
					}
					got = assembleAnthropicStream(t, readSSE(t, resp.Body))
				} else {
					got = assembleAnthropicJSON(t, readJSON(t, resp))
				}
				if got.text != tc.wantText || got.tool != tc.wantTool || got.stopReason != tc.wantStop {
					t.Errorf("got text %q tool %q stop %q, want %q %q %q",
						got.text, got.tool, got.stopReason, tc.wantText, tc.wantTool, tc.wantStop)
				}
				if tc.wantTool != "" {
					if !strings.HasPrefix(got.toolID, "toolu_") {
						t.Errorf("tool id %q lacks the toolu_ prefix", got.toolID)
					}
					gotJSON, _ := json.Marshal(got.input)
					wantJSON, _ := json.Marshal(tc.wantInput)
					if string(gotJSON) != string(wantJSON) {
						t.Errorf("tool input %s, want %s", gotJSON, wantJSON)
					}
				}
			})
		}
	}
}

func TestAnthropicErrors(t *testing.T) {
	tests := []struct {
		name, path, body string
		wantStatus       int
		wantType         string
		wantMsg          string
	}{
		{"invalid JSON", "/v1/messages", `{"model":`, 400, "invalid_request_error", "invalid JSON"},
		{"no model", "/v1/messages", `{"max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request_error", "model: Field required"},
		{"no max_tokens", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, 400, "invalid_request_error", "max_tokens: Field required"},
		{"no messages", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[]}`, 400, "invalid_request_error", "messages"},
		{"bad role", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"robot","content":"hi"}]}`, 400, "invalid_request_error", "messages.0.role"},
		{"bad content", "/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":5}]}`, 400, "invalid_request_error", "messages.0.content"},
		{"scripted ERROR", "/v1/messages", `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"please ERROR now"}]}`, 400, "invalid_request_error", ScriptedErrorMessage},
		{"count_tokens invalid", "/v1/messages/count_tokens", `[]`, 400, "invalid_request_error", "invalid JSON"},
		{"unknown path", "/v1/messages/batches", `{}`, 404, "not_found_error", "no route"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, hs := newTestServer(t, Options{})
			resp := post(t, hs.URL, tc.path, tc.body, "anthropic-version", "2023-06-01")
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			m := readJSON(t, resp)
			if m["type"] != "error" || get(m, "error", "type") != tc.wantType {
				t.Fatalf("error body %v, want type error/%s", m, tc.wantType)
			}
			if msg, _ := get(m, "error", "message").(string); !strings.Contains(msg, tc.wantMsg) {
				t.Errorf("message %q, want it to contain %q", msg, tc.wantMsg)
			}
			if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Status != tc.wantStatus {
				t.Errorf("logged %+v, want one request with status %d", reqs, tc.wantStatus)
			}
		})
	}
}

func TestAnthropicCountTokens(t *testing.T) {
	s, hs := newTestServer(t, Options{})
	resp := post(t, hs.URL, "/v1/messages/count_tokens",
		map[string]any{"model": "claude-opus-5-5", "messages": []any{userText("hello")}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if n, _ := readJSON(t, resp)["input_tokens"].(float64); n < 1 {
		t.Errorf("input_tokens = %v, want > 0", n)
	}
	if got := s.Requests(); len(got) != 1 || got[0].API != APIAnthropicCountTokens || got[0].Reply != nil {
		t.Errorf("logged %+v", got)
	}
}
