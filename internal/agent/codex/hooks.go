package codex

import "paddock/internal/hookstate"

// Codex 0.169 hooks (~/.codex/hooks.json) send Claude's shape (as recorded
// from the real CLI; the decode tests replay that recording): session_id (the thread
// id), transcript_path, cwd, hook_event_name, model, permission_mode
// ("default" in the TUI, "bypassPermissions" in exec), turn_id. Events:
// SessionStart (the TUI fires it with the first prompt, not at launch),
// UserPromptSubmit, PreToolUse, PermissionRequest, PostToolUse, Stop,
// Interrupt (Esc), SessionEnd; PreCompact, PostCompact, SubagentStart,
// SubagentStop, StopFailure, Pre/PostModelRequest exist but were not
// recorded.
//
// The legacy `notify` program gets one argv JSON (notify.log) without
// hook_event_name: {"type":"agent-turn-complete","thread-id",…}. The TUI's
// title-generation side thread fires it too, with a thread id no hook ever
// names: the Tracker ignores turn completions of unknown sessions.

func decodeCodex(installed string, f hookstate.Fields) (hookstate.Event, error) {
	if _, named := f["hook_event_name"]; !named && (installed == "notify" || f.Str("type") != "") {
		return decodeCodexNotify(f)
	}
	return hookstate.DecodeClaudeProtocol(installed, f, codexKind)
}

func codexKind(name string, f hookstate.Fields) hookstate.Kind {
	if name == "Interrupt" {
		return hookstate.KindInterrupt
	}
	return hookstate.ClaudeProtocolKind(name, f)
}

func decodeCodexNotify(f hookstate.Fields) (hookstate.Event, error) {
	typ, fe := hookstate.RequireStr(f, "notify", "type")
	if fe != nil {
		return hookstate.Event{}, fe
	}
	sid, fe := hookstate.RequireStr(f, typ, "thread-id")
	if fe != nil {
		return hookstate.Event{}, fe
	}
	ev := hookstate.Event{
		SessionID: sid,
		Name:      typ,
		Kind:      hookstate.KindActivity,
		Cwd:       f.Str("cwd"),
		TurnID:    f.Str("turn-id"),
		Message:   hookstate.Clip(f.Str("last-assistant-message"), hookstate.MaxText),
		Source:    f.Str("client"),
	}
	if typ == "agent-turn-complete" {
		ev.Kind = hookstate.KindTurnComplete
	}
	return ev, nil
}
