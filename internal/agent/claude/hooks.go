package claude

import "paddock/internal/hookstate"

// decodeHook reads Claude Code's hook payloads (command stdin or http POST
// body) in the protocol Codex and Kimi Code copied: session_id,
// transcript_path, cwd, hook_event_name, permission_mode (not on every
// event), agent_id/agent_type inside subagents.
func decodeHook(installed string, f hookstate.Fields) (hookstate.Event, error) {
	return hookstate.DecodeClaudeProtocol(installed, f, hookstate.ClaudeProtocolKind)
}
