package cursor

import (
	"paddock/internal/hookstate"
	"strings"
)

// Cursor hooks (~/.cursor/hooks.json, version 1). No recording of the real
// CLI exists; this follows Cursor's published hooks documentation: common
// stdin conversation_id (stable across turns, the session id),
// generation_id (per user message), model, hook_event_name,
// cursor_version, workspace_roots, transcript_path.
//
//	sessionStart                          → SessionStart (session_id is accepted as the id too)
//	beforeSubmitPrompt                    → prompting (the only "working" signal)
//	afterAgentThought                     → busy
//	preToolUse / beforeShellExecution /
//	beforeMCPExecution                    → tool start (Shell and MCP calls may ask: inference)
//	postToolUse / postToolUseFailure /
//	afterShellExecution / afterMCPExecution /
//	afterFileEdit                         → tool end
//	afterAgentResponse                    → waiting (the turn's final answer, never working)
//	stop                                  → waiting (status "aborted" → interrupt)
//	subagentStart / subagentStop          → subagent bookkeeping
//	sessionEnd                            → ended
//
// beforeReadFile has no "after" counterpart and would leave a tool open
// forever, so it is activity; so are preCompact and unknown names. Tab
// events (beforeTabFileRead, afterTabFileEdit) are not agent turns and need
// no conversation id.

func decodeCursor(installed string, f hookstate.Fields) (hookstate.Event, error) {
	name, fe := hookstate.EventName(f, "hook_event_name", installed)
	if fe != nil {
		return hookstate.Event{}, fe
	}
	tab := strings.Contains(name, "Tab")
	sid := f.FirstStr("conversation_id", "session_id")
	if sid == "" && !tab {
		if _, fe := hookstate.RequireStr(f, name, "conversation_id"); fe != nil {
			return hookstate.Event{}, fe
		}
	}
	ev := hookstate.Event{
		SessionID:      sid,
		Name:           name,
		Kind:           hookstate.KindActivity,
		TranscriptPath: f.Str("transcript_path"),
		Model:          f.Str("model"),
		TurnID:         f.Str("generation_id"),
		Cwd:            f.Str("cwd"),
		ToolName:       f.Str("tool_name"),
		ToolUseID:      f.Str("tool_use_id"),
		ToolSummary:    hookstate.Summarize(f["tool_input"]),
		Prompt:         hookstate.PromptText(f["prompt"]),
		Message:        hookstate.Clip(f.Str("text"), hookstate.MaxText),
		Reason:         f.FirstStr("reason", "status"),
	}
	if ev.Cwd == "" {
		if roots, ok := f["workspace_roots"].([]any); ok && len(roots) > 0 {
			ev.Cwd, _ = roots[0].(string)
		}
	}
	switch name {
	case "sessionStart":
		ev.Kind = hookstate.KindSessionStart
	case "sessionEnd":
		ev.Kind = hookstate.KindSessionEnd
	case "beforeSubmitPrompt":
		ev.Kind = hookstate.KindPrompt
	case "afterAgentThought":
		ev.Kind = hookstate.KindBusy
	case "preToolUse":
		ev.Kind = hookstate.KindToolStart
	case "postToolUse", "postToolUseFailure":
		ev.Kind = hookstate.KindToolEnd
	case "beforeShellExecution", "afterShellExecution":
		ev.Kind = hookstate.KindToolStart
		if name == "afterShellExecution" {
			ev.Kind = hookstate.KindToolEnd
		}
		ev.ToolName = "Shell"
		if s := hookstate.Summarize(map[string]any(f)); s != "" {
			ev.ToolSummary = s // the command
		}
	case "beforeMCPExecution", "afterMCPExecution":
		ev.Kind = hookstate.KindToolStart
		if name == "afterMCPExecution" {
			ev.Kind = hookstate.KindToolEnd
		}
		if ev.ToolName == "" {
			ev.ToolName = "MCP"
		}
		if !strings.HasPrefix(strings.ToLower(ev.ToolName), "mcp") {
			ev.ToolName = "mcp:" + ev.ToolName // MCP inference delay, whatever the server calls it
		}
	case "afterFileEdit":
		ev.Kind = hookstate.KindToolEnd
		ev.ToolName = "Edit"
		ev.ToolSummary = hookstate.Clip(f.Str("file_path"), hookstate.MaxSummary)
	case "afterAgentResponse":
		ev.Kind = hookstate.KindTurnComplete
	case "stop":
		ev.Kind = hookstate.KindStop
		if f.Str("status") == "aborted" {
			ev.Kind = hookstate.KindInterrupt
		}
	case "subagentStart":
		ev.Kind = hookstate.KindSubagentStart
	case "subagentStop":
		ev.Kind = hookstate.KindSubagentStop
	}
	if (name == "preToolUse" || name == "postToolUse" || name == "postToolUseFailure") && ev.ToolName == "" {
		if _, fe := hookstate.RequireStr(f, name, "tool_name"); fe != nil {
			return hookstate.Event{}, fe
		}
	}
	return ev, nil
}
