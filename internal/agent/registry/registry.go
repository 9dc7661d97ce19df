// Package registry is the one list of the agents paddock ships, in
// display order. It is the only package that imports the agents' own
// packages; everything else takes the list (an *agent.Registry) from the
// code that starts paddock.
package registry

import (
	"paddock/internal/agent"
	"paddock/internal/agent/claude"
	"paddock/internal/agent/codex"
	"paddock/internal/agent/cursor"
	"paddock/internal/agent/kimi"
	"paddock/internal/agent/opencode"
	"paddock/internal/agent/pi"
)

// Default is every agent paddock knows. Each call builds a new list.
func Default() *agent.Registry {
	return agent.MustRegistry(claude.Agent(), codex.Agent(), opencode.Agent(), kimi.Agent(), cursor.Agent(), pi.Agent())
}
