package hookstate

// The Claude hook protocol: Claude Code's hook payloads (command stdin or
// http POST body), which Codex and Kimi Code copied. Common fields:
// session_id, transcript_path, cwd, hook_event_name, permission_mode (not
// on every event), agent_id/agent_type inside subagents. Each of those
// agents decodes with DecodeClaudeProtocol and its own Kind mapping on top
// of ClaudeProtocolKind.

// ClaudeProtocolKind maps a Claude-protocol event name onto a Kind. Events
// the machine does not act on (PreCompact, Setup, CwdChanged, …, and names
// from newer versions) are activity: they still prove the session is
// alive.
func ClaudeProtocolKind(name string, f Fields) Kind {
	switch name {
	case "SessionStart":
		if f.Str("source") == "compact" {
			return KindActivity // compaction, possibly mid-turn: not a new session
		}
		return KindSessionStart
	case "UserPromptSubmit":
		return KindPrompt
	case "PreToolUse":
		return KindToolStart
	case "PostToolUse", "PermissionDenied":
		return KindToolEnd
	case "PostToolUseFailure":
		if f.Bool("is_interrupt") {
			return KindInterrupt // Esc during a tool
		}
		return KindToolEnd
	case "PermissionRequest":
		return KindPermission
	case "Elicitation":
		return KindQuestion // an MCP server asks the user
	case "ElicitationResult":
		return KindReplied
	case "Notification":
		return KindNotification
	case "Stop", "StopFailure":
		return KindStop
	case "SubagentStart":
		return KindSubagentStart
	case "SubagentStop":
		return KindSubagentStop
	case "SessionEnd":
		return KindSessionEnd
	}
	return KindActivity
}

// toolEvents name the events that must carry tool_name.
func isToolEvent(name string) bool {
	switch name {
	case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied":
		return true
	}
	return false
}

// DecodeClaudeProtocol reads a Claude-protocol payload, with kindOf
// mapping event names onto Kinds (ClaudeProtocolKind, or an agent's own
// that falls back on it).
func DecodeClaudeProtocol(installed string, f Fields, kindOf func(string, Fields) Kind) (Event, error) {
	name, fe := EventName(f, "hook_event_name", installed)
	if fe != nil {
		return Event{}, fe
	}
	sid, fe := RequireStr(f, name, "session_id")
	if fe != nil {
		return Event{}, fe
	}
	ev := Event{
		SessionID:        sid,
		Name:             name,
		Kind:             kindOf(name, f),
		Cwd:              f.Str("cwd"),
		TranscriptPath:   f.Str("transcript_path"),
		Model:            f.Str("model"),
		PermissionMode:   f.Str("permission_mode"),
		TurnID:           f.IDStr("turn_id"),
		ToolName:         f.Str("tool_name"),
		ToolUseID:        f.FirstStr("tool_use_id", "tool_call_id"),
		ToolSummary:      Summarize(f["tool_input"]),
		NotificationType: f.Str("notification_type"),
		Message:          Clip(f.FirstStr("message", "last_assistant_message", "body"), MaxText),
		Prompt:           PromptText(f["prompt"]),
		Steer:            f.Bool("is_steer"),
		Source:           f.Str("source"),
		Reason:           f.Str("reason"),
		AgentID:          f.Str("agent_id"),
		AgentType:        f.Str("agent_type"),
		Failed:           name == "StopFailure",
	}
	if isToolEvent(name) {
		if _, fe := RequireStr(f, name, "tool_name"); fe != nil {
			return Event{}, fe
		}
	}
	return ev, nil
}
