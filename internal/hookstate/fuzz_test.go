package hookstate_test

import (
	"encoding/json"
	"strings"
	"testing"

	. "paddock/internal/hookstate"
	"paddock/internal/testkit/fuzzseed"
)

// fuzzSeeds adds hand-made edge cases and the runtime's hook recordings:
// testdata/<runtime>-*/hooks.jsonl ({"event", "payload"} per line) and the
// recordings of ../shared/fixtures/real (tab-separated, payload last),
// lines spread over each file. A fuzz target never skips for a missing
// ../shared: it still has the rest.
func fuzzSeeds(f *testing.F, runtime string, extra ...string) {
	for _, s := range append([]string{
		``, `null`, `[]`, `"x"`, `1`, `{}`, `{"session_id":null}`, `{"session_id":"s"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["a",1,null]}}`,
		`{"session_id":"s","hook_event_name":"Stop","paddock":{"pid":-1,"sent_at":"x","terminal_id":7}}`,
		`{"session_id":"s","hook_event_name":"Notification","notification_type":"permission_prompt"}`,
		`{"kind":"event","type":"session.status","event":{"type":"session.status","properties":{"sessionID":"s","status":{"type":"busy"}}}}`,
		`{"kind":"hook:tool.execute.before","input":{"sessionID":"s","tool":"bash"},"output":{"args":null}}`,
		`{"event":"tool_call","sessionId":"s","payload":{"toolName":"bash","args":{"command":"x"}}}`,
		`{"type":"agent-turn-complete","thread-id":"t","input-messages":null}`,
		`{"hook_event_name":"beforeShellExecution","conversation_id":"c","command":"ls"}`,
		`{"ts":1e308,"sessionId":"s","event":"input"}`, `{"ts":-1e308,"session_id":"s","hook_event_name":"Stop"}`,
		`{"session_id":"s","hook_event_name":"Stop","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`,
	}, extra...) {
		f.Add("", []byte(s))
		f.Add("Stop", []byte(s))
	}
	shared := map[string]bool{}
	for _, r := range recordings {
		if r.runtime == runtime {
			shared["shared/fixtures/real/"+strings.Join(r.path, "/")] = true
		}
	}
	files := fuzzseed.Files(f, func(rel string) bool {
		return shared[rel] || strings.HasPrefix(rel, "testdata/"+runtime+"-") && strings.HasSuffix(rel, "/hooks.jsonl")
	})
	for _, file := range files {
		for _, line := range fuzzseed.Lines([]fuzzseed.File{file}, 40, MaxPayloadSize) {
			if strings.HasPrefix(file.Rel, "testdata/") {
				var rec struct {
					Event   string          `json:"event"`
					Payload json.RawMessage `json:"payload"`
				}
				if json.Unmarshal(line, &rec) == nil {
					f.Add(rec.Event, []byte(rec.Payload))
				}
				continue
			}
			parts := strings.Split(string(line), "\t")
			name := ""
			if len(parts) > 1 {
				name = parts[len(parts)-2]
			}
			f.Add(name, []byte(parts[len(parts)-1]))
		}
	}
}

// fuzzDecode checks that Decode never panics, that what it accepts is
// well-formed, and that the machine swallows it without breaking its
// invariants.
func fuzzDecode(f *testing.F, runtime string) {
	fuzzSeeds(f, runtime)
	f.Fuzz(func(t *testing.T, name string, payload []byte) {
		ev, err := Decode(runtime, name, payload)
		if err != nil {
			if ev != (Event{}) {
				t.Fatalf("an error with a non-zero event: %+v", ev)
			}
			return
		}
		if ev.Runtime != runtime || ev.Kind == "" || ev.Name == "" {
			t.Fatalf("accepted a malformed event: %+v", ev)
		}
		if ev.SessionID == "" && runtime != "opencode" && runtime != "cursor" {
			t.Fatalf("accepted an event without a session: %+v", ev)
		}
		if len(ev.ToolSummary) > 4*MaxSummary || len(ev.Prompt) > 4*MaxText || len(ev.Message) > 4*MaxText {
			t.Fatalf("summaries not clipped: %d %d %d", len(ev.ToolSummary), len(ev.Prompt), len(ev.Message))
		}
		for _, d := range []Density{DensityLow, DensityHigh} {
			m := newMachine(runtime, Config{Density: d})
			m.Apply(ev, t0)
			m.Apply(ev, at(sec))
			m.Tick(at(minute), Facts{ToolChildren: true})
			m.Tick(at(20*minute), Facts{})
			if _, open := m.Dialog(); open != m.State().NeedsUser() {
				t.Fatalf("state %s with dialog open=%v", m.State(), open)
			}
		}
	})
}

func FuzzDecodeClaude(f *testing.F)   { fuzzDecode(f, "claude") }
func FuzzDecodeCodex(f *testing.F)    { fuzzDecode(f, "codex") }
func FuzzDecodeKimi(f *testing.F)     { fuzzDecode(f, "kimi") }
func FuzzDecodeCursor(f *testing.F)   { fuzzDecode(f, "cursor") }
func FuzzDecodeOpenCode(f *testing.F) { fuzzDecode(f, "opencode") }
func FuzzDecodePi(f *testing.F)       { fuzzDecode(f, "pi") }
