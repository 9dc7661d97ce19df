package opencode

import (
	"cmp"
	"paddock/internal/hookstate"
	"strings"
)

// OpenCode 1.18 plugin events (as recorded from the real CLI; the decode
// tests replay that recording). Three shapes
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

func decodeOpenCode(installed string, f hookstate.Fields) (hookstate.Event, error) {
	var ev hookstate.Event
	ev.Time = hookstate.UnixTime(hookstate.NumOr(f, "ts"))
	if pid := f.Int("pid"); pid > 0 {
		ev.Relay.PID = pid
	}
	kind := f.Str("kind")
	// paddock's own plugin (hookinstall's opencode-plugin.js): the bus
	// event under "event", or a hook call with its input flattened.
	if name := f.Str("hook_event_name"); name != "" && kind == "" {
		ev.Relay.PPID = f.Int("ppid")
		if inner := f.Obj("event"); inner != nil {
			return decodeOpenCodeBus(installed, inner, ev)
		}
		if isOpenCodeHook(name) {
			return decodeOpenCodeHook(name, hookstate.Fields{"input": map[string]any(f), "output": map[string]any{"args": f["args"]}}, ev)
		}
		ev.Name, ev.Kind = name, hookstate.KindActivity
		return ev, nil
	}
	switch {
	case kind == "event":
		inner := f.Obj("event")
		if inner == nil {
			return hookstate.Event{}, &hookstate.FieldError{Event: f.Str("type"), Field: "event", Problem: hookstate.ProblemObject(f["event"])}
		}
		return decodeOpenCodeBus(installed, inner, ev)
	case strings.HasPrefix(kind, "hook:"):
		return decodeOpenCodeHook(strings.TrimPrefix(kind, "hook:"), f, ev)
	case kind != "":
		ev.Name, ev.Kind = kind, hookstate.KindActivity // plugin.init and other recorder records
		return ev, nil
	case isOpenCodeHook(installed) && f["input"] != nil:
		return decodeOpenCodeHook(installed, f, ev)
	}
	return decodeOpenCodeBus(installed, f, ev)
}

func isOpenCodeHook(name string) bool {
	switch name {
	case "tool.execute.before", "tool.execute.after", "chat.message", "permission.ask":
		return true
	}
	return false
}

func decodeOpenCodeHook(name string, f hookstate.Fields, ev hookstate.Event) (hookstate.Event, error) {
	ev.Name = "hook:" + name
	in := f.Obj("input")
	if in == nil {
		return hookstate.Event{}, &hookstate.FieldError{Event: ev.Name, Field: "input", Problem: hookstate.ProblemObject(f["input"])}
	}
	sid, fe := hookstate.RequireStr(in, ev.Name, "sessionID")
	if fe != nil {
		fe.Field = "input.sessionID"
		return hookstate.Event{}, fe
	}
	ev.SessionID = sid
	ev.Kind = hookstate.KindActivity
	switch name {
	case "chat.message":
		ev.Kind = hookstate.KindPrompt
		ev.Prompt = hookstate.Clip(in.Str("prompt"), hookstate.MaxText) // paddock's plugin sends the text parts
	case "tool.execute.before", "tool.execute.after":
		tool, fe := hookstate.RequireStr(in, ev.Name, "tool")
		if fe != nil {
			fe.Field = "input.tool"
			return hookstate.Event{}, fe
		}
		ev.Kind = hookstate.KindToolStart
		ev.ToolName = tool
		ev.ToolUseID = in.Str("callID")
		ev.ToolSummary = hookstate.Summarize(f.Obj("output")["args"])
		if name == "tool.execute.after" {
			ev.Kind = hookstate.KindToolEnd
			ev.ToolSummary = hookstate.Summarize(in["args"])
		}
	case "permission.ask":
		ev.Kind = hookstate.KindPermission
		ev.ToolName = in.FirstStr("permission", "type")
		ev.RequestID = in.Str("id")
		ev.ToolUseID = in.FirstStr("callID")
		ev.ToolSummary = openCodePermissionSummary(in)
	}
	return ev, nil
}

func decodeOpenCodeBus(installed string, f hookstate.Fields, ev hookstate.Event) (hookstate.Event, error) {
	name, fe := hookstate.EventName(f, "type", installed)
	if fe != nil {
		return hookstate.Event{}, fe
	}
	ev.Name = name
	ev.Kind = hookstate.KindActivity
	p := f.Obj("properties")
	info, part := p.Obj("info"), p.Obj("part")
	ev.SessionID = p.FirstStr("sessionID")
	if ev.SessionID == "" {
		ev.SessionID = cmp.Or(part.Str("sessionID"), info.Str("sessionID"))
	}
	if ev.SessionID == "" && strings.HasPrefix(name, "session.") {
		ev.SessionID = info.Str("id")
	}
	if ev.SessionID == "" && sessionScoped(name) {
		if p == nil {
			return hookstate.Event{}, &hookstate.FieldError{Event: name, Field: "properties", Problem: hookstate.ProblemObject(f["properties"])}
		}
		_, problem := p.ReqStr("sessionID")
		return hookstate.Event{}, &hookstate.FieldError{Event: name, Field: "properties.sessionID", Problem: problem}
	}
	ev.Cwd = info.Str("directory")
	switch name {
	case "session.created":
		ev.Kind = hookstate.KindSessionStart
		ev.AgentID = info.Str("parentID") // a child session (task tool) is a subagent's
	case "session.deleted":
		ev.Kind = hookstate.KindSessionEnd
	case "session.status":
		switch p.Obj("status").Str("type") {
		case "busy":
			ev.Kind = hookstate.KindBusy
		case "idle":
			ev.Kind = hookstate.KindStop
		}
	case "session.idle":
		ev.Kind = hookstate.KindStop
	case "permission.asked", "permission.updated":
		ev.Kind = hookstate.KindPermission
		ev.ToolName = p.FirstStr("permission", "type")
		ev.RequestID = p.Str("id")
		ev.ToolUseID = p.Obj("tool").Str("callID")
		ev.ToolSummary = openCodePermissionSummary(p)
	case "permission.replied":
		ev.Kind = hookstate.KindReplied
		ev.RequestID = p.FirstStr("requestID", "permissionID")
		ev.Reply = p.FirstStr("reply", "response")
	case "question.asked":
		ev.Kind = hookstate.KindQuestion
		ev.ToolName = "question"
		ev.RequestID = p.Str("id")
		ev.ToolUseID = p.Obj("tool").Str("callID")
		ev.ToolSummary = hookstate.Summarize(map[string]any(p))
	case "question.replied", "question.rejected":
		ev.Kind = hookstate.KindReplied
		ev.RequestID = p.Str("requestID")
		ev.Reply = strings.TrimPrefix(name, "question.")
	case "message.part.updated":
		if part.Str("type") == "tool" {
			state := part.Obj("state")
			ev.ToolName = part.Str("tool")
			ev.ToolUseID = part.Str("callID")
			ev.ToolSummary = hookstate.Summarize(state["input"])
			switch state.Str("status") {
			case "pending":
				ev.Kind = hookstate.KindToolStart
			case "completed", "error":
				ev.Kind = hookstate.KindToolEnd
			}
			if ev.Kind != hookstate.KindActivity && ev.ToolName == "" {
				return hookstate.Event{}, &hookstate.FieldError{Event: name, Field: "properties.part.tool", Problem: "missing"}
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

func openCodePermissionSummary(p hookstate.Fields) string {
	if s := hookstate.Summarize(map[string]any(p.Obj("metadata"))); s != "" {
		return s
	}
	if pats, ok := p["patterns"].([]any); ok {
		var parts []string
		for _, x := range pats {
			if s, ok := x.(string); ok {
				parts = append(parts, s)
			}
		}
		return hookstate.Clip(strings.Join(parts, "; "), hookstate.MaxSummary)
	}
	return hookstate.Clip(p.Str("title"), hookstate.MaxSummary)
}
