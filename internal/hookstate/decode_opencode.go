package hookstate

import (
	"cmp"
	"strings"
)

// OpenCode 1.18 plugin events (recorded in
// ../shared/fixtures/real/opencode-1.18.33/plugin-events.log). Three shapes
// are accepted:
//
//   - a bus event as the plugin's event hook or GET /event delivers it:
//     {"type":"session.status","properties":{"sessionID":…,"status":{"type":"busy"}}}
//     (eventName may carry the type instead);
//   - the recorder's envelope: {"ts":ms,"pid":…,"kind":"event","type":…,"event":{bus event}};
//   - a plugin hook call: {"ts","pid","kind":"hook:tool.execute.before","input":{…},"output":{…}},
//     or eventName "tool.execute.before" with {"input","output"};
//   - paddock's own plugin: {"hook_event_name","ts","pid","ppid",…} with
//     the bus event under "event", or a hook call's input fields (sessionID,
//     callID, tool, args) at the top level.
//
// Mapping:
//
//	session.created                 → SessionStart
//	hook chat.message               → prompting
//	session.status busy             → busy (idle/waiting → working; prompting stays)
//	session.status idle, session.idle → waiting
//	hook tool.execute.before, tool part "pending" → tool start
//	hook tool.execute.after, tool part "completed"/"error" → tool end
//	permission.asked (permission.updated before 1.18) → approval
//	question.asked                  → input
//	permission.replied, question.replied/rejected → answered
//	session.deleted                 → ended
//
// A tool part "running" is activity: OpenCode marks the part running while
// the permission prompt is still open. Process-level events (plugin.init,
// server.connected, catalog.updated, …) decode with no session id.

func decodeOpenCode(installed string, f fields) (Event, error) {
	var ev Event
	ev.Time = unixTime(numOr(f, "ts"))
	if pid := f.int("pid"); pid > 0 {
		ev.Relay.PID = pid
	}
	kind := f.str("kind")
	// paddock's own plugin (hookinstall's opencode-plugin.js): the bus
	// event under "event", or a hook call with its input flattened.
	if name := f.str("hook_event_name"); name != "" && kind == "" {
		ev.Relay.PPID = f.int("ppid")
		if inner := f.obj("event"); inner != nil {
			return decodeOpenCodeBus(installed, inner, ev)
		}
		if isOpenCodeHook(name) {
			return decodeOpenCodeHook(name, fields{"input": map[string]any(f), "output": map[string]any{"args": f["args"]}}, ev)
		}
		ev.Name, ev.Kind = name, KindActivity
		return ev, nil
	}
	switch {
	case kind == "event":
		inner := f.obj("event")
		if inner == nil {
			return Event{}, &FieldError{Event: f.str("type"), Field: "event", Problem: problemObject(f["event"])}
		}
		return decodeOpenCodeBus(installed, inner, ev)
	case strings.HasPrefix(kind, "hook:"):
		return decodeOpenCodeHook(strings.TrimPrefix(kind, "hook:"), f, ev)
	case kind != "":
		ev.Name, ev.Kind = kind, KindActivity // plugin.init and other recorder records
		return ev, nil
	case isOpenCodeHook(installed) && f["input"] != nil:
		return decodeOpenCodeHook(installed, f, ev)
	}
	return decodeOpenCodeBus(installed, f, ev)
}

func numOr(f fields, key string) float64 {
	n, _ := f.num(key)
	return n
}

func problemObject(v any) string {
	if v == nil {
		return "missing"
	}
	return "must be an object, not " + typeName(v)
}

func isOpenCodeHook(name string) bool {
	switch name {
	case "tool.execute.before", "tool.execute.after", "chat.message", "permission.ask":
		return true
	}
	return false
}

func decodeOpenCodeHook(name string, f fields, ev Event) (Event, error) {
	ev.Name = "hook:" + name
	in := f.obj("input")
	if in == nil {
		return Event{}, &FieldError{Event: ev.Name, Field: "input", Problem: problemObject(f["input"])}
	}
	sid, fe := requireStr(in, ev.Name, "sessionID")
	if fe != nil {
		fe.Field = "input.sessionID"
		return Event{}, fe
	}
	ev.SessionID = sid
	ev.Kind = KindActivity
	switch name {
	case "chat.message":
		ev.Kind = KindPrompt
		ev.Prompt = clip(in.str("prompt"), maxText) // paddock's plugin sends the text parts
	case "tool.execute.before", "tool.execute.after":
		tool, fe := requireStr(in, ev.Name, "tool")
		if fe != nil {
			fe.Field = "input.tool"
			return Event{}, fe
		}
		ev.Kind = KindToolStart
		ev.ToolName = tool
		ev.ToolUseID = in.str("callID")
		ev.ToolSummary = summarize(f.obj("output")["args"])
		if name == "tool.execute.after" {
			ev.Kind = KindToolEnd
			ev.ToolSummary = summarize(in["args"])
		}
	case "permission.ask":
		ev.Kind = KindPermission
		ev.ToolName = in.firstStr("permission", "type")
		ev.RequestID = in.str("id")
		ev.ToolUseID = in.firstStr("callID")
		ev.ToolSummary = openCodePermissionSummary(in)
	}
	return ev, nil
}

func decodeOpenCodeBus(installed string, f fields, ev Event) (Event, error) {
	name, fe := eventName(f, "type", installed)
	if fe != nil {
		return Event{}, fe
	}
	ev.Name = name
	ev.Kind = KindActivity
	p := f.obj("properties")
	info, part := p.obj("info"), p.obj("part")
	ev.SessionID = p.firstStr("sessionID")
	if ev.SessionID == "" {
		ev.SessionID = cmp.Or(part.str("sessionID"), info.str("sessionID"))
	}
	if ev.SessionID == "" && strings.HasPrefix(name, "session.") {
		ev.SessionID = info.str("id")
	}
	if ev.SessionID == "" && sessionScoped(name) {
		if p == nil {
			return Event{}, &FieldError{Event: name, Field: "properties", Problem: problemObject(f["properties"])}
		}
		_, problem := p.reqStr("sessionID")
		return Event{}, &FieldError{Event: name, Field: "properties.sessionID", Problem: problem}
	}
	ev.Cwd = info.str("directory")
	switch name {
	case "session.created":
		ev.Kind = KindSessionStart
		ev.AgentID = info.str("parentID") // a child session (task tool) is a subagent's
	case "session.deleted":
		ev.Kind = KindSessionEnd
	case "session.status":
		switch p.obj("status").str("type") {
		case "busy":
			ev.Kind = KindBusy
		case "idle":
			ev.Kind = KindStop
		}
	case "session.idle":
		ev.Kind = KindStop
	case "permission.asked", "permission.updated":
		ev.Kind = KindPermission
		ev.ToolName = p.firstStr("permission", "type")
		ev.RequestID = p.str("id")
		ev.ToolUseID = p.obj("tool").str("callID")
		ev.ToolSummary = openCodePermissionSummary(p)
	case "permission.replied":
		ev.Kind = KindReplied
		ev.RequestID = p.firstStr("requestID", "permissionID")
		ev.Reply = p.firstStr("reply", "response")
	case "question.asked":
		ev.Kind = KindQuestion
		ev.ToolName = "question"
		ev.RequestID = p.str("id")
		ev.ToolUseID = p.obj("tool").str("callID")
		ev.ToolSummary = summarize(map[string]any(p))
	case "question.replied", "question.rejected":
		ev.Kind = KindReplied
		ev.RequestID = p.str("requestID")
		ev.Reply = strings.TrimPrefix(name, "question.")
	case "message.part.updated":
		if part.str("type") == "tool" {
			state := part.obj("state")
			ev.ToolName = part.str("tool")
			ev.ToolUseID = part.str("callID")
			ev.ToolSummary = summarize(state["input"])
			switch state.str("status") {
			case "pending":
				ev.Kind = KindToolStart
			case "completed", "error":
				ev.Kind = KindToolEnd
			}
			if ev.Kind != KindActivity && ev.ToolName == "" {
				return Event{}, &FieldError{Event: name, Field: "properties.part.tool", Problem: "missing"}
			}
		}
	}
	return ev, nil
}

// sessionScoped event families must name their session.
func sessionScoped(name string) bool {
	for _, p := range []string{"session.", "message.", "permission.", "question."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func openCodePermissionSummary(p fields) string {
	if s := summarize(map[string]any(p.obj("metadata"))); s != "" {
		return s
	}
	if pats, ok := p["patterns"].([]any); ok {
		var parts []string
		for _, x := range pats {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return clip(strings.Join(parts, "; "), maxSummary)
	}
	return clip(p.str("title"), maxSummary)
}
