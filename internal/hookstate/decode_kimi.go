package hookstate

// Kimi Code 2.1 `[[hooks]]` payloads (recorded in
// ../shared/fixtures/real/kimi-code-2.1.0/hooks.log): Claude's field names
// (snake_case) with session_id "session_<uuid>", client_type, no
// transcript_path and no permission_mode. Differences that matter:
//
//   - UserPromptSubmit's prompt is content parts [{"type":"text",…}];
//     is_steer marks a message steering a running turn.
//   - TurnStarted follows every prompt (origin_kind "user") and starts a
//     subagent's turn (origin_kind "system_trigger"): activity.
//   - PermissionRequest/PermissionResult carry id "approval_<uuid>",
//     tool_call_id and agent_id ("main" or "agent-N"); they are
//     notifications, the hook cannot answer.
//   - Stop also ends a subagent's turn (before SubagentStop), see
//     runtimeSpec.stopIncludesSubagents.
//   - Interrupt {turn_id, reason:"cancelled"} is Esc during a turn.
//   - AskUserQuestion fires only Pre/PostToolUse, no PermissionRequest: the
//     question is found by inference (3 s).
//   - Accepted but not recorded: UserPromptQueued, StopFailure,
//     SessionHeartbeat, TaskStarted, Pre/PostCompact, Notification.

func decodeKimi(installed string, f fields) (Event, error) {
	ev, err := decodeClaudeLike(installed, f, kimiKind)
	if err != nil {
		return Event{}, err
	}
	if ev.AgentID == "main" {
		ev.AgentID = "" // the main agent is the session itself
	}
	switch ev.Name {
	case "PermissionRequest", "PermissionResult":
		ev.RequestID = f.str("id")
		ev.Reply = f.str("decision")
		if ev.ToolSummary == "" {
			ev.ToolSummary = clip(f.str("action"), maxSummary)
		}
	case "TurnStarted":
		ev.Source = f.str("origin_kind")
	}
	return ev, nil
}

func kimiKind(name string, f fields) Kind {
	switch name {
	case "Interrupt":
		return KindInterrupt
	case "PermissionResult":
		return KindReplied
	case "TurnStarted", "UserPromptQueued", "SessionHeartbeat", "TaskStarted":
		return KindActivity
	}
	return claudeKind(name, f)
}
