package hookstate

import "cmp"

// Pi 0.73 has no hook config: an extension forwards its lifecycle events.
// The accepted record is the one recorded in
// ../shared/fixtures/real/pi-0.73.1/extension-events.log:
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
// its own, so there is no inference for Pi (runtimeSpec).

func decodePi(installed string, f fields) (Event, error) {
	// Two shapes: paddock's own extension (hookinstall's pi-extension.ts)
	// sends snake_case facts with Pi's event object under "event"; the
	// recording extension of the shared fixtures sends camelCase facts with
	// the event under "payload" and its name in "event".
	payload := f.obj("payload")
	if payload == nil {
		payload = f.obj("event")
	}
	name := cmp.Or(f.str("event"), f.str("hook_event_name"))
	if name == "" {
		name = payload.str("type")
	}
	if name == "" {
		var fe *FieldError
		if name, fe = eventName(f, "event", installed); fe != nil {
			return Event{}, fe
		}
	}
	sidKey := "session_id"
	if _, camel := f["sessionId"]; camel {
		sidKey = "sessionId"
	}
	sid, fe := requireStr(f, name, sidKey)
	if fe != nil {
		return Event{}, fe
	}
	ev := Event{
		SessionID:      sid,
		Name:           name,
		Kind:           KindActivity,
		Time:           unixTime(numOr(f, "ts")),
		Cwd:            f.str("cwd"),
		TranscriptPath: cmp.Or(f.str("sessionFile"), f.str("session_file")),
		ToolName:       cmp.Or(payload.str("toolName"), f.str("tool_name")),
		ToolUseID:      cmp.Or(payload.str("toolCallId"), f.str("toolCallId"), f.str("tool_call_id")),
		Source:         payload.str("reason"),
	}
	if pid := f.int("pid"); pid > 0 {
		ev.Relay.PID = pid
	}
	ev.ToolSummary = cmp.Or(summarize(payload["args"]), summarize(payload["input"]), summarize(f["input"]))
	switch name {
	case "session_start":
		ev.Kind = KindSessionStart
	case "input":
		ev.Kind = KindPrompt
		ev.Prompt = clip(payload.str("text"), maxText)
	case "agent_start", "turn_start":
		ev.Kind = KindBusy
	case "tool_execution_start", "tool_call":
		ev.Kind = KindToolStart
	case "tool_execution_end", "tool_result":
		ev.Kind = KindToolEnd
	case "permission_asked":
		ev.Kind = KindPermission
		ev.ToolName = cmp.Or(f.str("toolName"), "bash") // the gate guards bash
		ev.ToolSummary = clip(f.str("command"), maxSummary)
	case "permission_decided":
		ev.Kind = KindReplied
		ev.Reply = f.str("choice")
	case "agent_end":
		ev.Kind = KindStop
	case "session_shutdown":
		ev.Kind = KindSessionEnd
	}
	if (ev.Kind == KindToolStart || ev.Kind == KindToolEnd) && ev.ToolName == "" {
		return Event{}, &FieldError{Event: name, Field: "payload.toolName", Problem: "missing"}
	}
	return ev, nil
}
