package hold_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/decisions"
	. "paddock/internal/decisions/hold"
	"paddock/internal/hookstate"
)

// recorded returns the payloads of one event from a recording of the real
// CLI (testdata/<cli>/hooks.jsonl, written by the proving ground).
func recorded(t *testing.T, cli, event string) [][]byte {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", cli, "hooks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var line struct {
			Event   string          `json:"event"`
			Payload json.RawMessage `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Event == event {
			out = append(out, line.Payload)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s in the %s recording", event, cli)
	}
	return out
}

// hold runs one recorded decision event through a Service and a real
// broker, decides it with d (or releases it with res), and returns the
// item and what the hook would print.
func hold(t *testing.T, runtime string, payload []byte, d *decisions.Decision, res decisions.Resolution) (decisions.Item, []byte) {
	t.Helper()
	ctx := t.Context()
	b := decisions.New(decisions.Options{})
	s := newService(Options{Broker: b})
	ev, err := decode(runtime, "PermissionRequest", payload)
	if err != nil {
		t.Fatal(err)
	}
	until, wait, ok := s.Hold(ctx, ev, payload)
	if !ok || time.Until(until) <= 0 {
		t.Fatalf("not held: %v %v", ok, until)
	}
	items := b.List(decisions.Filter{PendingOnly: true})
	if len(items) != 1 {
		t.Fatalf("items %+v", items)
	}
	it := items[0]
	if d != nil {
		if it, err = b.Decide(ctx, it.ID, *d); err != nil {
			t.Fatal(err)
		}
	} else {
		it, _ = b.Release(ctx, it.ID, res, "desk")
	}
	return it, wait(ctx)
}

type decisionOut struct {
	HookSpecificOutput struct {
		HookEventName string `json:"hookEventName"`
		Decision      struct {
			Behavior           string          `json:"behavior"`
			Message            string          `json:"message"`
			UpdatedInput       json.RawMessage `json:"updatedInput"`
			UpdatedPermissions json.RawMessage `json:"updatedPermissions"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

func parseOut(t *testing.T, b []byte) decisionOut {
	t.Helper()
	var o decisionOut
	if err := json.Unmarshal(b, &o); err != nil || o.HookSpecificOutput.HookEventName != "PermissionRequest" {
		t.Fatalf("output %s: %v", b, err)
	}
	return o
}

func TestClaudeApprovalEncodings(t *testing.T) {
	bash := recorded(t, "claude-2.1.328", "PermissionRequest")[0]
	var in struct {
		Suggestions json.RawMessage `json:"permission_suggestions"`
	}
	_ = json.Unmarshal(bash, &in)
	for _, tc := range []struct {
		name      string
		d         *decisions.Decision
		res       decisions.Resolution
		behavior  string
		message   string
		withPerms bool
	}{
		{"allow", &decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}, "", "allow", "", false},
		{"always: the recorded suggestions back", &decisions.Decision{Verb: decisions.VerbAlways, By: "device:1"}, "", "allow", "", true},
		{"deny with the user's words", &decisions.Decision{Verb: decisions.VerbDeny, Message: "not now", By: "device:1"}, "", "deny", "not now", false},
		{"deny without words", &decisions.Decision{Verb: decisions.VerbDeny, By: "device:1"}, "", "deny", DenyMessage, false},
		{"desk: no decision", nil, decisions.Desk, "", "", false},
		{"expired: no decision, never a deny", nil, decisions.Expired, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it, out := hold(t, "claude", bash, tc.d, tc.res)
			if it.Tool != "Bash" || it.Kind != decisions.KindApproval || strings.Join(it.Can, ",") != "allow,deny,always" || it.Reason != "Append a line to mock_out.txt" {
				t.Fatalf("item %+v", it)
			}
			if tc.behavior == "" {
				if out != nil {
					t.Fatalf("printed %s, want nothing (the agent's own prompt takes over)", out)
				}
				return
			}
			o := parseOut(t, out).HookSpecificOutput.Decision
			if o.Behavior != tc.behavior || o.Message != tc.message || len(o.UpdatedInput) != 0 {
				t.Fatalf("decision %+v", o)
			}
			if tc.withPerms != (len(o.UpdatedPermissions) > 0) || tc.withPerms && !SameJSON(o.UpdatedPermissions, in.Suggestions) {
				t.Fatalf("updatedPermissions %s, want %v (the suggestions %s)", o.UpdatedPermissions, tc.withPerms, in.Suggestions)
			}
		})
	}
	if got := registry.Default().Scope("claude", in.Suggestions); !strings.Contains(got, "allow access to /tmp/paddock-fixtures-home/proj for this session") {
		t.Errorf("scope %q", got)
	}
}

func TestClaudeQuestionEncoding(t *testing.T) {
	var q []byte
	for _, p := range recorded(t, "claude-2.1.328", "PermissionRequest") {
		if strings.Contains(string(p), `"AskUserQuestion"`) {
			q = p
		}
	}
	it, out := hold(t, "claude", q, &decisions.Decision{Verb: decisions.VerbAnswer, By: "device:1",
		Answers: map[string]string{"Which color do you prefer?": "Blue"}}, "")
	if it.Kind != decisions.KindQuestion || len(it.Questions) != 1 || len(it.Questions[0].Options) != 2 || !it.FreeText {
		t.Fatalf("item %+v", it)
	}
	o := parseOut(t, out).HookSpecificOutput.Decision
	var updated struct {
		Questions []map[string]any  `json:"questions"`
		Answers   map[string]string `json:"answers"`
	}
	if o.Behavior != "allow" || json.Unmarshal(o.UpdatedInput, &updated) != nil {
		t.Fatalf("decision %+v", o)
	}
	if len(updated.Questions) != 1 || updated.Questions[0]["question"] != "Which color do you prefer?" || updated.Answers["Which color do you prefer?"] != "Blue" {
		t.Fatalf("updatedInput %s: the original questions with the answers beside them", o.UpdatedInput)
	}
}

func TestCodexEncodingsNeverCarryUpdates(t *testing.T) {
	p := recorded(t, "codex-0.169.0", "PermissionRequest")[0]
	it, out := hold(t, "codex", p, &decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}, "")
	if strings.Join(it.Can, ",") != "allow,deny" {
		t.Fatalf("codex can %v", it.Can)
	}
	if o := parseOut(t, out).HookSpecificOutput.Decision; o.Behavior != "allow" || len(o.UpdatedInput)+len(o.UpdatedPermissions) != 0 {
		t.Fatalf("allow %s", out)
	}
	_, out = hold(t, "codex", p, &decisions.Decision{Verb: decisions.VerbDeny, Message: "no", By: "device:1"}, "")
	if o := parseOut(t, out).HookSpecificOutput.Decision; o.Behavior != "deny" || o.Message != "no" || len(o.UpdatedInput)+len(o.UpdatedPermissions) != 0 {
		t.Fatalf("deny %s", out)
	}
}

func TestCodexNotHeldWhenNobodyWatches(t *testing.T) {
	p := recorded(t, "codex-0.169.0", "PermissionRequest")[0]
	ev, err := decode("codex", "PermissionRequest", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Watching: func() bool { return false }}, {Holds: map[string]time.Duration{"codex": 0}}} {
		o.Broker = decisions.New(decisions.Options{})
		if _, _, ok := newService(o).Hold(t.Context(), ev, p); ok {
			t.Fatalf("held with %+v", o)
		}
	}
}

// TestDeskReleases: the tool that ran (same tool, same input) or the main
// agent's turn ending releases a held prompt as answered at the desk;
// another tool finishing beside it, or a subagent's stop, does not.
func TestDeskReleases(t *testing.T) {
	ctx := context.Background()
	bash := recorded(t, "claude-2.1.328", "PermissionRequest")[0]
	var req Request
	_ = json.Unmarshal(bash, &req)
	ev, _ := decode("claude", "PermissionRequest", bash)
	post := func(tool string, input json.RawMessage) (hookstate.Event, []byte) {
		b, _ := json.Marshal(map[string]any{"session_id": ev.SessionID, "hook_event_name": "PostToolUse", "tool_name": tool,
			"tool_input": input, "tool_use_id": "toolu_1", "tool_response": "ok"})
		e, err := decode("claude", "PostToolUse", b)
		if err != nil {
			t.Fatal(err)
		}
		return e, b
	}
	stop := func(agentID string) (hookstate.Event, []byte) {
		b, _ := json.Marshal(map[string]any{"session_id": ev.SessionID, "hook_event_name": "Stop", "agent_id": agentID})
		e, _ := decode("claude", "Stop", b)
		return e, b
	}
	// A prompt fired at a time, as the relay stamps it.
	prompt := func(at time.Time) func() (hookstate.Event, []byte) {
		return func() (hookstate.Event, []byte) {
			b, _ := json.Marshal(map[string]any{"session_id": ev.SessionID, "hook_event_name": "UserPromptSubmit", "prompt": "next"})
			e, _ := decode("claude", "UserPromptSubmit", b)
			e.Time = at
			return e, b
		}
	}
	for _, tc := range []struct {
		name    string
		event   func() (hookstate.Event, []byte)
		release bool
	}{
		{"the same tool ran", func() (hookstate.Event, []byte) { return post("Bash", req.Input) }, true},
		{"another command ran beside it", func() (hookstate.Event, []byte) { return post("Bash", json.RawMessage(`{"command":"ls"}`)) }, false},
		{"a Read finished beside it", func() (hookstate.Event, []byte) { return post("Read", json.RawMessage(`{"file_path":"/x"}`)) }, false},
		{"the turn ended", func() (hookstate.Event, []byte) { return stop("") }, true},
		{"a prompt fired after the ask", prompt(time.Now().Add(time.Minute)), true},
		// Hooks arrive out of order: the prompt that started this turn,
		// arriving after the turn's own ask, releases nothing.
		{"a prompt fired before the ask, arriving late", prompt(time.Now().Add(-time.Minute)), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := decisions.New(decisions.Options{})
			s := newService(Options{Broker: b})
			_, wait, ok := s.Hold(ctx, ev, bash)
			if !ok {
				t.Fatal("not held")
			}
			e, p := tc.event()
			if _, _, held := s.Hold(ctx, e, p); held {
				t.Fatal("a non-decision event held")
			}
			items := b.List(decisions.Filter{})
			if got := items[0].Resolution == decisions.Desk; got != tc.release {
				t.Fatalf("resolution %q, want released=%v", items[0].Resolution, tc.release)
			}
			if tc.release {
				if out := wait(ctx); out != nil {
					t.Fatalf("a desk answer printed %s", out)
				}
			}
		})
	}
}

// TestPiGate: with PiHold, paddock's Pi extension waits for the phone
// before a tool that changes something; a denial blocks the call with the
// user's words, an approval (or no answer) lets it run; read-only tools
// and a Pi without PiHold are never held.
func TestPiGate(t *testing.T) {
	// The extension's tool_call payload (internal/hookinstall/assets/pi-extension.ts).
	call := func(tool, input string) ([]byte, hookstate.Event) {
		p := []byte(`{"hook_event_name":"tool_call","session_id":"pi-s1","cwd":"/p","pid":7,"tool_name":"` + tool +
			`","tool_call_id":"call_1","input":` + input + `}`)
		ev, err := decode("pi", "tool_call", p)
		if err != nil {
			t.Fatal(err)
		}
		return p, ev
	}
	ctx := t.Context()
	bash, ev := call("bash", `{"command":"rm -rf build"}`)
	if _, _, ok := newService(Options{Broker: decisions.New(decisions.Options{})}).Hold(ctx, ev, bash); ok {
		t.Fatal("held without PiHold")
	}
	b := decisions.New(decisions.Options{})
	s := newService(Options{Broker: b, Holds: map[string]time.Duration{"pi": time.Minute}})
	read, rev := call("read", `{"path":"/p/x"}`)
	if _, _, ok := s.Hold(ctx, rev, read); ok {
		t.Fatal("a read-only tool held")
	}
	for _, tc := range []struct {
		verb, want string
	}{{decisions.VerbDeny, `{"block":true,"reason":"use make"}`}, {decisions.VerbAllow, ""}} {
		_, wait, ok := s.Hold(ctx, ev, bash)
		if !ok {
			t.Fatal("bash not held")
		}
		its := b.List(decisions.Filter{PendingOnly: true})
		if len(its) != 1 || its[0].Tool != "bash" || its[0].ToolUseID != "call_1" || !SameJSON(its[0].Input, json.RawMessage(`{"command":"rm -rf build"}`)) {
			t.Fatalf("items %+v", its)
		}
		if _, err := b.Decide(ctx, its[0].ID, decisions.Decision{Verb: tc.verb, Message: "use make", By: "device:1"}); err != nil {
			t.Fatal(err)
		}
		if out := string(wait(ctx)); out != tc.want {
			t.Fatalf("%s: printed %q, want %q", tc.verb, out, tc.want)
		}
	}
}

// TestCursorEncodings follows Cursor's documented hooks (the CLI cannot be
// installed here): beforeShellExecution and beforeMCPExecution take
// allow/deny in snake_case, and no decision is "ask" — Cursor asks its
// user — never an empty answer it might take for allow.
func TestCursorEncodings(t *testing.T) {
	shell := []byte(`{"conversation_id":"c-1","generation_id":"g-1","hook_event_name":"beforeShellExecution","command":"npm publish","cwd":"/p","timeout":30}`)
	mcp := []byte(`{"conversation_id":"c-1","hook_event_name":"beforeMCPExecution","tool_name":"deploy","tool_input":"{\"env\":\"prod\"}","url":"http://127.0.0.1:9/mcp"}`)
	for _, tc := range []struct {
		name, event string
		payload     []byte
		d           *decisions.Decision
		res         decisions.Resolution
		want        string
		tool        string
	}{
		{"shell allowed", "beforeShellExecution", shell, &decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}, "", `{"permission":"allow"}`, "Shell"},
		{"shell denied", "beforeShellExecution", shell, &decisions.Decision{Verb: decisions.VerbDeny, Message: "not prod", By: "device:1"}, "",
			`{"agent_message":"not prod","permission":"deny","user_message":"not prod"}`, "Shell"},
		{"mcp expired", "beforeMCPExecution", mcp, nil, decisions.Expired, `{"permission":"ask"}`, "deploy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := decisions.New(decisions.Options{})
			s := newService(Options{Broker: b})
			ev, err := decode("cursor", tc.event, tc.payload)
			if err != nil {
				t.Fatal(err)
			}
			_, wait, ok := s.Hold(t.Context(), ev, tc.payload)
			if !ok {
				t.Fatal("not held")
			}
			it := b.List(decisions.Filter{PendingOnly: true})[0]
			if it.Tool != tc.tool || strings.Join(it.Can, ",") != "allow,deny" {
				t.Fatalf("item %+v", it)
			}
			if tc.d != nil {
				_, err = b.Decide(t.Context(), it.ID, *tc.d)
			} else {
				b.Release(t.Context(), it.ID, tc.res, "paddock")
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := string(wait(t.Context())); got != tc.want {
				t.Fatalf("printed %s, want %s", got, tc.want)
			}
		})
	}
}

// TestKimiDenyOnly: Kimi's recorded PreToolUse, held with KimiHold; a
// deny is the verified hookSpecificOutput, anything else no output (Kimi
// then asks in its terminal); without KimiHold nothing is held.
func TestKimiDenyOnly(t *testing.T) {
	p := recorded(t, "kimi-2.1.0", "PreToolUse")[0]
	ev, err := decode("kimi", "PreToolUse", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := newService(Options{Broker: decisions.New(decisions.Options{})}).Hold(t.Context(), ev, p); ok {
		t.Fatal("held without KimiHold")
	}
	for verb, want := range map[string]string{
		decisions.VerbDeny:  `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`,
		decisions.VerbAllow: "",
	} {
		b := decisions.New(decisions.Options{})
		_, wait, ok := newService(Options{Broker: b, Holds: map[string]time.Duration{"kimi": time.Minute}}).Hold(t.Context(), ev, p)
		if !ok {
			t.Fatal("not held")
		}
		it := b.List(decisions.Filter{PendingOnly: true})[0]
		if _, err := b.Decide(t.Context(), it.ID, decisions.Decision{Verb: verb, Message: "no", By: "device:1"}); err != nil {
			t.Fatal(err)
		}
		if got := string(wait(t.Context())); got != want {
			t.Fatalf("%s: printed %s, want %s", verb, got, want)
		}
	}
}

// TestClaudeQuestionAtPreToolUse: in auto mode Claude sends no
// PermissionRequest for a question, so the recorded PreToolUse (moved to
// auto) is held while someone watches and answered with PreToolUse's own
// format; in default mode, or with nobody watching, it is not held.
func TestClaudeQuestionAtPreToolUse(t *testing.T) {
	var p []byte
	for _, x := range recorded(t, "claude-2.1.328", "PreToolUse") {
		if strings.Contains(string(x), `"AskUserQuestion"`) {
			p = x
		}
	}
	var m map[string]any
	if err := json.Unmarshal(p, &m); err != nil {
		t.Fatal(err)
	}
	decode := func(mode string) ([]byte, hookstate.Event) {
		m["permission_mode"] = mode
		b, _ := json.Marshal(m)
		ev, err := decode("claude", "PreToolUse", b)
		if err != nil {
			t.Fatal(err)
		}
		return b, ev
	}
	def, dev := decode("default")
	if _, _, ok := newService(Options{Broker: decisions.New(decisions.Options{})}).Hold(t.Context(), dev, def); ok {
		t.Fatal("held in default mode (a PermissionRequest follows there)")
	}
	auto, aev := decode("auto")
	if _, _, ok := newService(Options{Broker: decisions.New(decisions.Options{}), Watching: func() bool { return false }}).Hold(t.Context(), aev, auto); ok {
		t.Fatal("held with nobody watching")
	}
	b := decisions.New(decisions.Options{})
	_, wait, ok := newService(Options{Broker: b}).Hold(t.Context(), aev, auto)
	if !ok {
		t.Fatal("not held in auto mode")
	}
	it := b.List(decisions.Filter{PendingOnly: true})[0]
	if _, err := b.Decide(t.Context(), it.ID, decisions.Decision{Verb: decisions.VerbAnswer, By: "device:1",
		Answers: map[string]string{"Which color do you prefer?": "Blue"}}); err != nil {
		t.Fatal(err)
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName, PermissionDecision string
			UpdatedInput                      struct{ Answers map[string]string }
		}
	}
	if err := json.Unmarshal(wait(t.Context()), &out); err != nil || out.HookSpecificOutput.HookEventName != "PreToolUse" ||
		out.HookSpecificOutput.PermissionDecision != "allow" || out.HookSpecificOutput.UpdatedInput.Answers["Which color do you prefer?"] != "Blue" {
		t.Fatalf("output %+v %v", out, err)
	}
}

// TestClaudePlanCard: ExitPlanMode (the mock model cannot produce one: a
// payload of the documented shape) is a plan card; approving allows, and
// "keep planning" denies with words that tell Claude to go on planning.
func TestClaudePlanCard(t *testing.T) {
	p := []byte(`{"session_id":"s-plan","hook_event_name":"PermissionRequest","cwd":"/p","permission_mode":"plan","tool_name":"ExitPlanMode","tool_input":{"plan":"1. Add tests\n2. Fix the bug"}}`)
	for _, tc := range []struct {
		verb, behavior, message string
	}{{decisions.VerbAllow, "allow", ""}, {decisions.VerbDeny, "deny", "The user wants you to keep planning."}} {
		it, out := hold(t, "claude", p, &decisions.Decision{Verb: tc.verb, By: "device:1"}, "")
		if it.Kind != decisions.KindPlan || strings.Join(it.Can, ",") != "allow,deny" {
			t.Fatalf("item %+v", it)
		}
		if o := parseOut(t, out).HookSpecificOutput.Decision; o.Behavior != tc.behavior || o.Message != tc.message {
			t.Fatalf("%s: %+v", tc.verb, o)
		}
	}
}

// decode reads a payload with the shipped agents' decoders.
var decode = registry.Default().Decoders().Decode

// newService is a Service with the shipped agents' policies, as serve
// builds it.
func newService(o Options) *Service {
	o.Policies = registry.Default().Policies()
	return New(o)
}
