package runtimes

import (
	"paddock/internal/launch"
	"paddock/internal/scan/claude"
	"paddock/internal/scan/codex"
	"paddock/internal/scan/cursor"
	"paddock/internal/scan/kimi"
	"paddock/internal/scan/opencode"
	"paddock/internal/scan/pi"
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
