package registry

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"paddock/internal/decisions"
	"paddock/internal/decisions/hold"
	"paddock/internal/testkit/fuzzseed"
)

// FuzzDecisionPayloads throws arbitrary payloads at every agent's
// decision hooks, as the relay and the listener each read them. Where the
// listener would hold one for the phone, the relay must have seen from the
// same payload that it may (else the agent gives up after the fail-open
// budget while a card waits on the phone); the card offers only verbs its
// kind takes; and every answer is a JSON object or nothing.
func FuzzDecisionPayloads(f *testing.F) {
	reg := Default()
	names := reg.Names()
	// Each recording seeds its own agent's decoder: lines spread over
	// every hook recording.
	for i, name := range names {
		files := fuzzseed.Files(f, func(rel string) bool {
			return fuzzseed.Of(name, "/hooks.jsonl", "hooks.log", "events.log")(rel)
		})
		for _, l := range fuzzseed.Lines(files, 12, 16<<10) {
			payload := l
			if j := strings.LastIndexByte(string(l), '\t'); j >= 0 {
				payload = l[j+1:]
			} else if v := jsonMember(l, "payload"); v != nil {
				payload = v
			}
			f.Add(uint8(i), uint8(0), "", payload)
		}
	}
	for _, s := range []string{
		`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"ls","description":"list"},"permission_suggestions":[{"type":"addRules","rules":[{"toolName":"Bash","ruleContent":"ls:*"}],"behavior":"allow","destination":"localSettings"}]}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","permission_mode":"bypassPermissions","tool_input":{"questions":[{"question":"q?","header":"h","multiSelect":false,"options":[{"label":"a"}]}]}}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"AskUserQuestion","permission_mode":"default","tool_input":null}`,
		`{"session_id":"s","hook_event_name":"PermissionRequest","tool_name":"ExitPlanMode","tool_input":{"plan":"p"}}`,
		`{"conversation_id":"c","hook_event_name":"beforeShellExecution","command":"rm -rf /"}`,
		`{"conversation_id":"c","hook_event_name":"beforeMCPExecution","tool_name":"t","url":"http://x","tool_input":"{}"}`,
		`{"sessionId":"s","event":"tool_call","tool_name":"bash","input":{"command":"x"},"tool_call_id":"1"}`,
		`{"session_id":"s","hook_event_name":"PermissionRequest","tool_input":[1],"permission_suggestions":null}`,
	} {
		for i := range names {
			f.Add(uint8(i), uint8(0), "", []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, agentIdx, eventIdx uint8, other string, payload []byte) {
		name := names[int(agentIdx)%len(names)]
		a, _ := reg.Get(name)
		p := a.Decisions
		event := other
		if len(p.Events) > 0 && int(eventIdx) < 2*len(p.Events) {
			event = p.Events[int(eventIdx)%len(p.Events)]
		}
		mayHold := reg.MayHold(name, event, payload)
		if mayHold && !reg.MayDecide(name, event) {
			t.Fatalf("%s %s: may hold an event it takes no decision from", name, event)
		}
		if p.Observe != nil || !slices.Contains(p.Events, event) {
			return
		}
		ev, err := reg.Decoders().Decode(name, event, payload)
		if err != nil || ev.Name != event || ev.SessionID == "" {
			return // not held: the listener rejects it, or files it under another event
		}
		req, err := hold.ParseRequest(payload)
		if err != nil {
			return
		}
		req.Event = ev.Name
		for _, watching := range []bool{true, false} {
			if (p.Held == nil || p.Held(ev, req, watching)) && !mayHold {
				t.Fatalf("%s %s (watching=%v): the listener holds what the relay lets go at once:\n%s", name, event, watching, payload)
			}
		}
		if p.Item == nil {
			return
		}
		it := p.Item(ev, req)
		if len(it.Can) == 0 {
			t.Fatalf("%s %s: an item nobody can answer: %+v", name, event, it)
		}
		can := map[decisions.Kind][]string{
			decisions.KindApproval: {decisions.VerbAllow, decisions.VerbDeny, decisions.VerbAlways},
			decisions.KindQuestion: {decisions.VerbAnswer, decisions.VerbDeny},
			decisions.KindPlan:     {decisions.VerbAllow, decisions.VerbDeny},
		}[it.Kind]
		for _, v := range it.Can {
			if !slices.Contains(can, v) {
				t.Fatalf("%s %s: a %s item offers %q", name, event, it.Kind, v)
			}
		}
		if p.Scope != nil && !utf8.ValidString(p.Scope(it.Suggestions)) {
			t.Fatalf("%s: scope is not valid text", name)
		}
		if p.Encode == nil {
			return
		}
		answers := map[string]string{}
		for _, q := range it.Questions {
			answers[q.Question] = "yes"
		}
		for _, res := range []decisions.Resolution{decisions.Allowed, decisions.Denied, decisions.Always, decisions.Answered, decisions.Desk, decisions.Expired} {
			it.Resolution, it.Answers, it.Message = res, answers, "no \"thanks\"\n"
			out := p.Encode(req, decisions.Outcome{Item: it})
			if out == nil {
				continue
			}
			var obj map[string]any
			if err := json.Unmarshal(out, &obj); err != nil || obj == nil {
				t.Fatalf("%s %s %s: the answer is not a JSON object: %q", name, event, res, out)
			}
		}
	})
}

// jsonMember is the raw value of key in the JSON object line, or nil.
func jsonMember(line []byte, key string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m[key]
}
