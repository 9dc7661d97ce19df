package hookstate

import "strings"

// Cursor hooks (~/.cursor/hooks.json, version 1). No recording exists in
// ../shared; this follows Cursor's documentation (docs/background/hooks.md
// §4): common stdin conversation_id (stable across turns, the session id),
// generation_id (per user message), model, hook_event_name,
// cursor_version, workspace_roots, transcript_path.
//
//	sessionStart                          → SessionStart (session_id is accepted as the id too)
//	beforeSubmitPrompt                    → prompting (seed 002: the only "working" signal)
//	afterAgentThought                     → busy
//	preToolUse / beforeShellExecution /
//	beforeMCPExecution                    → tool start (Shell and MCP calls may ask: inference)
//	postToolUse / postToolUseFailure /
//	afterShellExecution / afterMCPExecution /
//	afterFileEdit                         → tool end
//	afterAgentResponse                    → waiting (seed 002 §6: the turn's final answer, never working)
//	stop                                  → waiting (status "aborted" → interrupt)
//	subagentStart / subagentStop          → subagent bookkeeping
//	sessionEnd                            → ended
//
// beforeReadFile has no "after" counterpart and would leave a tool open
// forever, so it is activity; so are preCompact and unknown names. Tab
// events (beforeTabFileRead, afterTabFileEdit) are not agent turns and need
// no conversation id.

func decodeCursor(installed string, f fields) (Event, error) {
	name, fe := eventName(f, "hook_event_name", installed)
	if fe != nil {
		return Event{}, fe
	}
	tab := strings.Contains(name, "Tab")
	sid := f.firstStr("conversation_id", "session_id")
	if sid == "" && !tab {
		if _, fe := requireStr(f, name, "conversation_id"); fe != nil {
			return Event{}, fe
		}
	}
	ev := Event{
		SessionID:      sid,
		Name:           name,
		Kind:           KindActivity,
		TranscriptPath: f.str("transcript_path"),
		Model:          f.str("model"),
		TurnID:         f.str("generation_id"),
		Cwd:            f.str("cwd"),
		ToolName:       f.str("tool_name"),
		ToolUseID:      f.str("tool_use_id"),
		ToolSummary:    summarize(f["tool_input"]),
		Prompt:         promptText(f["prompt"]),
		Message:        clip(f.str("text"), maxText),
		Reason:         f.firstStr("reason", "status"),
	}
	if ev.Cwd == "" {
		if roots, ok := f["workspace_roots"].([]any); ok && len(roots) > 0 {
			ev.Cwd, _ = roots[0].(string)
		}
	}
	switch name {
	case "sessionStart":
		ev.Kind = KindSessionStart
	case "sessionEnd":
		ev.Kind = KindSessionEnd
	case "beforeSubmitPrompt":
		ev.Kind = KindPrompt
	case "afterAgentThought":
		ev.Kind = KindBusy
	case "preToolUse":
		ev.Kind = KindToolStart
	case "postToolUse", "postToolUseFailure":
		ev.Kind = KindToolEnd
	case "beforeShellExecution", "afterShellExecution":
		ev.Kind = KindToolStart
		if name == "afterShellExecution" {
			ev.Kind = KindToolEnd
		}
		ev.ToolName = "Shell"
		if s := summarize(map[string]any(f)); s != "" {
			ev.ToolSummary = s // the command
		}
	case "beforeMCPExecution", "afterMCPExecution":
		ev.Kind = KindToolStart
		if name == "afterMCPExecution" {
			ev.Kind = KindToolEnd
		}
		if ev.ToolName == "" {
			ev.ToolName = "MCP"
		}
		if !strings.HasPrefix(strings.ToLower(ev.ToolName), "mcp") {
			ev.ToolName = "mcp:" + ev.ToolName // MCP inference delay, whatever the server calls it
		}
	case "afterFileEdit":
		ev.Kind = KindToolEnd
		ev.ToolName = "Edit"
		ev.ToolSummary = clip(f.str("file_path"), maxSummary)
	case "afterAgentResponse":
		ev.Kind = KindTurnComplete
	case "stop":
		ev.Kind = KindStop
		if f.str("status") == "aborted" {
			ev.Kind = KindInterrupt
		}
	case "subagentStart":
		ev.Kind = KindSubagentStart
	case "subagentStop":
		ev.Kind = KindSubagentStop
	}
	if (name == "preToolUse" || name == "postToolUse" || name == "postToolUseFailure") && ev.ToolName == "" {
		if _, fe := requireStr(f, name, "tool_name"); fe != nil {
			return Event{}, fe
		}
	}
	return ev, nil
}
