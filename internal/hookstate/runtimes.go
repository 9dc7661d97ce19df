package hookstate

// Runtime names, as used in session keys and `paddock hook --runtime`.
const (
	RuntimeClaude   = "claude"
	RuntimeCodex    = "codex"
	RuntimeOpenCode = "opencode"
	RuntimeKimi     = "kimi"
	RuntimeCursor   = "cursor"
	RuntimePi       = "pi"
)

// Runtimes lists the runtimes Decode understands.
func Runtimes() []string {
	return []string{RuntimeClaude, RuntimeCodex, RuntimeOpenCode, RuntimeKimi, RuntimeCursor, RuntimePi}
}

// runtimeSpec is what the machine needs to know about a runtime beyond its
// events. This table and decoderFor are the only places that tell runtimes
// apart.
type runtimeSpec struct {
	// connectingTimesOut: seed 000 turns connecting into idle after 30 s for
	// Claude Code and Codex only (both may fire nothing until the first
	// prompt: Codex's TUI sends SessionStart with it).
	connectingTimesOut bool
	// inferPermissions: the runtime shows permission dialogs the hooks may
	// not announce. Pi has no dialogs of its own (only the ones an extension
	// reports directly), so timers would only produce false approvals.
	inferPermissions bool
	// stopIncludesSubagents: the runtime fires Stop when a subagent's turn
	// ends as well (Kimi, recorded: Stop precedes SubagentStop), so a Stop
	// while a subagent runs is not the main turn's end.
	stopIncludesSubagents bool
}

func specFor(runtime string) runtimeSpec {
	switch runtime {
	case RuntimeClaude, RuntimeCodex:
		return runtimeSpec{connectingTimesOut: true, inferPermissions: true}
	case RuntimeKimi:
		return runtimeSpec{inferPermissions: true, stopIncludesSubagents: true}
	case RuntimePi:
		return runtimeSpec{}
	}
	return runtimeSpec{inferPermissions: true}
}

type decoder func(eventName string, f fields) (Event, error)

func decoderFor(runtime string) decoder {
	switch runtime {
	case RuntimeClaude:
		return decodeClaude
	case RuntimeCodex:
		return decodeCodex
	case RuntimeOpenCode:
		return decodeOpenCode
	case RuntimeKimi:
		return decodeKimi
	case RuntimeCursor:
		return decodeCursor
	case RuntimePi:
		return decodePi
	}
	return nil
}
