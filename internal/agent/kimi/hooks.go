package kimi

import "paddock/internal/hookstate"

// Kimi Code 2.1 `[[hooks]]` payloads (as recorded from the real CLI; the
// decode tests replay that recording): Claude's field names
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
//     its HookRules.StopIncludesSubagents.
//   - Interrupt {turn_id, reason:"cancelled"} is Esc during a turn.
//   - AskUserQuestion fires only Pre/PostToolUse, no PermissionRequest: the
//     question is found by inference (3 s).
//   - Accepted but not recorded: UserPromptQueued, StopFailure,
//     SessionHeartbeat, TaskStarted, Pre/PostCompact, Notification.

func decodeKimi(installed string, f hookstate.Fields) (hookstate.Event, error) {
	ev, err := hookstate.DecodeClaudeProtocol(installed, f, kimiKind)
	if err != nil {
		return hookstate.Event{}, err
	}
	if ev.AgentID == "main" {
		ev.AgentID = "" // the main agent is the session itself
	}
	switch ev.Name {
	case "PermissionRequest", "PermissionResult":
		ev.RequestID = f.Str("id")
		ev.Reply = f.Str("decision")
		if ev.ToolSummary == "" {
			ev.ToolSummary = hookstate.Clip(f.Str("action"), hookstate.MaxSummary)
		}
	case "TurnStarted":
		ev.Source = f.Str("origin_kind")
	}
	return ev, nil
}

func kimiKind(name string, f hookstate.Fields) hookstate.Kind {
	switch name {
	case "Interrupt":
		return hookstate.KindInterrupt
	case "PermissionResult":
		return hookstate.KindReplied
	case "TurnStarted", "UserPromptQueued", "SessionHeartbeat", "TaskStarted":
		return hookstate.KindActivity
	}
	return hookstate.ClaudeProtocolKind(name, f)
}
