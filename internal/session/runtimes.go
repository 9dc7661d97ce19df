package session

// Runtimes lists the agent runtimes paddock knows, in display order.
func Runtimes() []string { return []string{"claude", "codex", "opencode", "kimi", "cursor", "pi"} }

// labels are the agents' names as their makers write them.
var labels = map[string]string{
	"claude": "Claude", "codex": "Codex", "opencode": "OpenCode",
	"kimi": "Kimi", "cursor": "Cursor", "pi": "Pi",
}

// Label is a runtime's display name ("OpenCode" for "opencode"); an
// unknown runtime is shown as it is.
func Label(runtime string) string {
	if l, ok := labels[runtime]; ok {
		return l
	}
	return runtime
}
