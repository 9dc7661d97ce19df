package mockmodel

import (
	"encoding/json"
	"net/http"
	"testing"
)

type chatResult struct {
	text         string
	tool         string
	callID       string
	args         map[string]any
	finishReason string
	usage        bool
}

// assembleChatStream checks the chunk grammar the OpenAI SDKs and
// @ai-sdk/openai-compatible rely on: a role chunk first, content deltas,
// tool_calls deltas keyed by index (id and name once, then argument
// fragments), one finish_reason, the usage chunk with empty choices only
// when asked for, and data: [DONE] last.
func assembleChatStream(t *testing.T, events []sseEvent) chatResult {
	t.Helper()
	var r chatResult
	if len(events) < 3 || events[len(events)-1].data != "[DONE]" {
		t.Fatalf("stream must end with [DONE], got %d events", len(events))
	}
	var args string
	for i, e := range events[:len(events)-1] {
		if e.name != "" {
			t.Fatalf("chat chunks have no event: line, got %q", e.name)
		}
		d := decodeJSON(t, e.data)
		if d["object"] != "chat.completion.chunk" {
			t.Fatalf("chunk %d object %v", i, d["object"])
		}
		choices := d["choices"].([]any)
		if len(choices) == 0 {
			if d["usage"] == nil {
				t.Fatalf("chunk %d has neither choices nor usage", i)
			}
			r.usage = true
			continue
		}
		if r.usage {
			t.Fatal("choices after the usage chunk")
		}
		delta := get(choices, 0, "delta").(map[string]any)
		if i == 0 && delta["role"] != "assistant" {
			t.Fatalf("first chunk lacks role: %s", e.data)
		}
		if c, ok := delta["content"].(string); ok {
			r.text += c
		}
		for _, tc := range toSlice(delta["tool_calls"]) {
			if get(tc, "index") != 0.0 {
				t.Fatalf("tool call index %v", get(tc, "index"))
			}
			if id, ok := get(tc, "id").(string); ok {
				r.callID = id
				r.tool = get(tc, "function", "name").(string)
			}
			if a, ok := get(tc, "function", "arguments").(string); ok {
				args += a
			}
		}
		if fr, ok := get(choices, 0, "finish_reason").(string); ok {
			if r.finishReason != "" {
				t.Fatal("two finish_reasons")
			}
			r.finishReason = fr
		}
	}
	if r.tool != "" {
		if err := json.Unmarshal([]byte(args), &r.args); err != nil {
			t.Fatalf("arguments %q do not join to JSON: %v", args, err)
		}
	}
	return r
}

func toSlice(v any) []any { s, _ := v.([]any); return s }

func TestOpenAIChat(t *testing.T) {
	titleSystem := map[string]any{"role": "system", "content": "You are a title generator. You output ONLY a thread title."}
	system := map[string]any{"role": "system", "content": "You are an expert coding assistant operating inside pi."}
	user := func(s string) map[string]any { return map[string]any{"role": "user", "content": s} }
	userParts := func(s string) map[string]any {
		return map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": s}}}
	}
	tests := []struct {
		name         string
		messages     []any
		tools        []any
		includeUsage bool
		wantText     string
		wantTool     string
		wantArgs     map[string]any
		wantFinish   string
	}{
		{name: "plain, usage asked", messages: []any{system, userParts("hello paddock one")}, tools: piTools, includeUsage: true,
			wantText: PlainReply(1), wantFinish: "stop"},
		{name: "plain, no usage", messages: []any{system, user("hello")}, tools: piTools,
			wantText: PlainReply(1), wantFinish: "stop"},
		{name: "second turn", messages: []any{system, user("one"), map[string]any{"role": "assistant", "content": PlainReply(1)}, user("two")},
			tools: openCodeTools, wantText: PlainReply(2), wantFinish: "stop"},
		{
			name: "RUN on Pi drops the undeclared description", messages: []any{system, userParts("please RUN a command")}, tools: piTools,
			includeUsage: true, wantText: RunPreamble, wantTool: "bash", wantFinish: "tool_calls",
			wantArgs: map[string]any{"command": RunCommand(1)},
		},
		{
			name: "RUN on OpenCode", messages: []any{system, user("please RUN a command")}, tools: openCodeTools,
			wantText: RunPreamble, wantTool: "bash", wantFinish: "tool_calls",
			wantArgs: map[string]any{"command": RunCommand(1), "description": "Append a line to mock_out.txt"},
		},
		{
			name: "ASK on OpenCode", messages: []any{system, user("ASK me a question")}, tools: openCodeTools,
			wantText: AskPreamble, wantTool: "question", wantFinish: "tool_calls",
		},
		{
			name: "tool result, then a reminder (Kimi)", messages: []any{system, user("please RUN a command"),
				map[string]any{"role": "assistant", "content": RunPreamble, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
					"function": map[string]any{"name": "bash", "arguments": "{}"}}}},
				map[string]any{"role": "tool", "tool_call_id": "call_1", "content": "hello-from-mock-1\n"},
				user("<system-reminder>\nAuto permission mode is active.\n</system-reminder>")},
			tools: piTools, wantText: ToolFinishedReply, wantFinish: "stop",
		},
		{
			name:     "prompt followed by reminders (Kimi)",
			messages: []any{system, user("please RUN something"), user("<system-reminder>\ndate\n</system-reminder>")},
			tools:    openCodeTools, wantText: RunPreamble, wantTool: "bash", wantFinish: "tool_calls",
			wantArgs: map[string]any{"command": RunCommand(1), "description": "Append a line to mock_out.txt"},
		},
		{
			name:     "OpenCode title side call",
			messages: []any{titleSystem, user("Generate a title for this conversation:\n"), user("hello paddock one")},
			wantText: "Mock title: hello paddock one", wantFinish: "stop",
		},
	}
	for _, tc := range tests {
		for _, stream := range []bool{true, false} {
			t.Run(tc.name+map[bool]string{true: "/stream", false: "/json"}[stream], func(t *testing.T) {
				s, hs := newTestServer(t, Options{})
				body := map[string]any{"model": "mock-model", "messages": tc.messages, "stream": stream}
				if tc.tools != nil {
					body["tools"] = tc.tools
				}
				if tc.includeUsage {
					body["stream_options"] = map[string]any{"include_usage": true}
				}
				resp := post(t, hs.URL, "/v1/chat/completions", body)
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %v", resp.StatusCode, readJSON(t, resp))
				}
				var got chatResult
				if stream {
					got = assembleChatStream(t, readSSE(t, resp.Body))
					if got.usage != tc.includeUsage {
						t.Errorf("usage chunk sent = %v, want %v", got.usage, tc.includeUsage)
					}
				} else {
					m := readJSON(t, resp)
					got.text, _ = get(m, "choices", 0, "message", "content").(string)
					got.finishReason, _ = get(m, "choices", 0, "finish_reason").(string)
					if name, ok := get(m, "choices", 0, "message", "tool_calls", 0, "function", "name").(string); ok {
						got.tool = name
						got.callID, _ = get(m, "choices", 0, "message", "tool_calls", 0, "id").(string)
						_ = json.Unmarshal([]byte(get(m, "choices", 0, "message", "tool_calls", 0, "function", "arguments").(string)), &got.args)
					}
				}
				if got.text != tc.wantText || got.tool != tc.wantTool || got.finishReason != tc.wantFinish {
					t.Errorf("got text %q tool %q finish %q, want %q %q %q",
						got.text, got.tool, got.finishReason, tc.wantText, tc.wantTool, tc.wantFinish)
				}
				if tc.wantArgs != nil {
					a, _ := json.Marshal(got.args)
					w, _ := json.Marshal(tc.wantArgs)
					if string(a) != string(w) {
						t.Errorf("arguments %s, want %s", a, w)
					}
				}
				if tc.wantTool != "" {
					reply := s.Requests()[0].Reply
					if got.callID == "" || reply.ToolID != got.callID {
						t.Errorf("call id %q, logged %q", got.callID, reply.ToolID)
					}
				}
			})
		}
	}
}
