package hookstate

// Codex 0.169 hooks (~/.codex/hooks.json) send Claude's shape (recorded in
// ../shared/fixtures/real/codex-0.169.0/hooks.log): session_id (the thread
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

func decodeCodex(installed string, f fields) (Event, error) {
	if _, named := f["hook_event_name"]; !named && (installed == "notify" || f.str("type") != "") {
		return decodeCodexNotify(f)
	}
	return decodeClaudeLike(installed, f, codexKind)
}

func codexKind(name string, f fields) Kind {
	if name == "Interrupt" {
		return KindInterrupt
	}
	return claudeKind(name, f)
}

func decodeCodexNotify(f fields) (Event, error) {
	typ, fe := requireStr(f, "notify", "type")
	if fe != nil {
		return Event{}, fe
	}
	sid, fe := requireStr(f, typ, "thread-id")
	if fe != nil {
		return Event{}, fe
	}
	ev := Event{
		SessionID: sid,
		Name:      typ,
		Kind:      KindActivity,
		Cwd:       f.str("cwd"),
		TurnID:    f.str("turn-id"),
		Message:   clip(f.str("last-assistant-message"), maxText),
		Source:    f.str("client"),
	}
	if typ == "agent-turn-complete" {
		ev.Kind = KindTurnComplete
	}
	return ev, nil
}
