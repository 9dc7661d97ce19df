package runtimes

import (
	"paddock/internal/agent/claude"
	"paddock/internal/agent/codex"
	"paddock/internal/agent/cursor"
	"paddock/internal/agent/kimi"
	"paddock/internal/agent/opencode"
	"paddock/internal/agent/pi"
	"paddock/internal/launch"
)

// Recipes is how paddock starts and resumes each runtime's CLI, by runtime
// name: the runtimes internal/hosted can host. Each call builds a new map
// the caller may keep.
func Recipes() map[string]launch.Recipe {
	return map[string]launch.Recipe{
		"claude":   claude.Launch(),
		"codex":    codex.Launch(),
		"opencode": opencode.Launch(),
		"kimi":     kimi.Launch(),
		"cursor":   cursor.Launch(),
		"pi":       pi.Launch(),
	}
}
