package hookstate

// Runtime names still used by approvals and the relay until their
// per-agent parts move into the agents' packages.
const (
	RuntimeClaude   = "claude"
	RuntimeCodex    = "codex"
	RuntimeOpenCode = "opencode"
	RuntimeKimi     = "kimi"
	RuntimeCursor   = "cursor"
	RuntimePi       = "pi"
)
