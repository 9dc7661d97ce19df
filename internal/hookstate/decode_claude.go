package hookstate

// Claude Code hooks (command stdin or http POST body), as recorded from
// 2.1.328 (../shared/fixtures/real/claude-2.1.328/hooks.log) and documented
// for 2.1.240: common fields session_id, transcript_path, cwd,
// hook_event_name, permission_mode (not on every event), agent_id/agent_type
// inside subagents. Codex and Kimi send the same shape (decode_codex.go,
// decode_kimi.go).

func decodeClaude(installed string, f fields) (Event, error) {
	return decodeClaudeLike(installed, f, claudeKind)
}

// claudeKind maps a Claude Code event name onto a Kind. Events the machine
// does not act on (PreCompact, Setup, CwdChanged, …, and names from newer
// versions) are activity: they still prove the session is alive.
func claudeKind(name string, f fields) Kind {
	switch name {
	case "SessionStart":
		if f.str("source") == "compact" {
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
		if f.boolean("is_interrupt") {
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

func decodeClaudeLike(installed string, f fields, kindOf func(string, fields) Kind) (Event, error) {
	name, fe := eventName(f, "hook_event_name", installed)
	if fe != nil {
		return Event{}, fe
	}
	sid, fe := requireStr(f, name, "session_id")
	if fe != nil {
		return Event{}, fe
	}
	ev := Event{
		SessionID:        sid,
		Name:             name,
		Kind:             kindOf(name, f),
		Cwd:              f.str("cwd"),
		TranscriptPath:   f.str("transcript_path"),
		Model:            f.str("model"),
		PermissionMode:   f.str("permission_mode"),
		TurnID:           f.idStr("turn_id"),
		ToolName:         f.str("tool_name"),
		ToolUseID:        f.firstStr("tool_use_id", "tool_call_id"),
		ToolSummary:      summarize(f["tool_input"]),
		NotificationType: f.str("notification_type"),
		Message:          clip(f.firstStr("message", "last_assistant_message", "body"), maxText),
		Prompt:           promptText(f["prompt"]),
		Steer:            f.boolean("is_steer"),
		Source:           f.str("source"),
		Reason:           f.str("reason"),
		AgentID:          f.str("agent_id"),
		AgentType:        f.str("agent_type"),
	}
	if isToolEvent(name) {
		if _, fe := requireStr(f, name, "tool_name"); fe != nil {
			return Event{}, fe
		}
	}
	return ev, nil
}
