package pi

import (
	"cmp"
	"paddock/internal/hookstate"
)

// Pi 0.73 has no hook config: an extension forwards its lifecycle events.
// The accepted record is the one recorded from the real Pi 0.73.1 (the
// decode tests replay that recording):
//
//	{"ts":ms,"event":"tool_call","pid":…,"cwd":…,"sessionId":…,"sessionFile":…,
//	 "hasUI":true,"idle":false,"payload":{"type":"tool_call","toolName":"bash",…}}
//
// plus the permission gate's flat records {"event":"permission_asked",
// "sessionId","toolCallId","command"} and {"event":"permission_decided",…,
// "choice":"Yes"|"No"|"blocked-no-ui"|absent on Esc}. The event name comes
// from "event", else payload.type, else eventName.
//
//	session_start                       → SessionStart
//	input                               → prompting
//	agent_start, turn_start             → busy
//	tool_execution_start, tool_call     → tool start (same toolCallId: counted once)
//	tool_execution_end, tool_result     → tool end
//	permission_asked                    → approval
//	permission_decided                  → answered
//	agent_end                           → waiting
//	session_shutdown                    → ended
//
// Everything else (before_agent_start, message_*, turn_end, model_select,
// context, agent_settled, …) is activity. Pi shows no permission dialog of
// its own, so there is no inference for Pi (its HookRules).

func decodePi(installed string, f hookstate.Fields) (hookstate.Event, error) {
	// Two shapes: paddock's own extension (hookinstall's pi-extension.ts)
	// sends snake_case facts with Pi's event object under "event"; the
	// recording extension of the shared fixtures sends camelCase facts with
	// the event under "payload" and its name in "event".
	payload := f.Obj("payload")
	if payload == nil {
		payload = f.Obj("event")
	}
	name := cmp.Or(f.Str("event"), f.Str("hook_event_name"))
	if name == "" {
		name = payload.Str("type")
	}
	if name == "" {
		var fe *hookstate.FieldError
		if name, fe = hookstate.EventName(f, "event", installed); fe != nil {
			return hookstate.Event{}, fe
		}
	}
	sidKey := "session_id"
	if _, camel := f["sessionId"]; camel {
		sidKey = "sessionId"
	}
	sid, fe := hookstate.RequireStr(f, name, sidKey)
	if fe != nil {
		return hookstate.Event{}, fe
	}
	ev := hookstate.Event{
		SessionID:      sid,
		Name:           name,
		Kind:           hookstate.KindActivity,
		Time:           hookstate.UnixTime(hookstate.NumOr(f, "ts")),
		Cwd:            f.Str("cwd"),
		TranscriptPath: cmp.Or(f.Str("sessionFile"), f.Str("session_file")),
		ToolName:       cmp.Or(payload.Str("toolName"), f.Str("tool_name")),
		ToolUseID:      cmp.Or(payload.Str("toolCallId"), f.Str("toolCallId"), f.Str("tool_call_id")),
		Source:         payload.Str("reason"),
	}
	if pid := f.Int("pid"); pid > 0 {
		ev.Relay.PID = pid
	}
	ev.ToolSummary = cmp.Or(hookstate.Summarize(payload["args"]), hookstate.Summarize(payload["input"]), hookstate.Summarize(f["input"]))
	switch name {
	case "session_start":
		ev.Kind = hookstate.KindSessionStart
	case "input":
		ev.Kind = hookstate.KindPrompt
		ev.Prompt = hookstate.Clip(payload.Str("text"), hookstate.MaxText)
	case "agent_start", "turn_start":
		ev.Kind = hookstate.KindBusy
	case "tool_execution_start", "tool_call":
		ev.Kind = hookstate.KindToolStart
	case "tool_execution_end", "tool_result":
		ev.Kind = hookstate.KindToolEnd
	case "permission_asked":
		ev.Kind = hookstate.KindPermission
		ev.ToolName = cmp.Or(f.Str("toolName"), "bash") // the gate guards bash
		ev.ToolSummary = hookstate.Clip(f.Str("command"), hookstate.MaxSummary)
	case "permission_decided":
		ev.Kind = hookstate.KindReplied
		ev.Reply = f.Str("choice")
	case "agent_end":
		ev.Kind = hookstate.KindStop
	case "session_shutdown":
		ev.Kind = hookstate.KindSessionEnd
	}
	if (ev.Kind == hookstate.KindToolStart || ev.Kind == hookstate.KindToolEnd) && ev.ToolName == "" {
		return hookstate.Event{}, &hookstate.FieldError{Event: name, Field: "payload.toolName", Problem: "missing"}
	}
	return ev, nil
}
