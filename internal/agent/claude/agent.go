package claude

import (
	"path/filepath"

	"paddock/internal/agent"
	"paddock/internal/catalog"
	"paddock/internal/hookstate"
	"paddock/internal/usage"
)

// Agent is Claude Code as paddock knows it.
func Agent() agent.Agent {
	return agent.Agent{
		Name:    runtimeName,
		Label:   "Claude",
		Product: "Claude Code",
		DirFlag: &agent.DirFlag{Name: "claude-dir", Usage: "Claude Code config dir (default $CLAUDE_CONFIG_DIR or ~/.claude)", Default: ConfigDir},
		NewScanner: func(e agent.Env) catalog.Scanner {
			dir := e.Dir
			if dir == "" {
				dir = DefaultDir()
			}
			return New(Options{Dir: dir, Logger: e.Logger})
		},
		NewUsage:   func(agent.Env) usage.Reader { return usageReader{} },
		DecodeHook: decodeHook,
		// It may fire nothing until the first prompt, and shows
		// permission dialogs its hooks may not announce.
		HookRules: hookstate.Rules{ConnectingTimesOut: true, InferPermissions: true},
		Decisions: policy(),
		Install:   install(),
		UI:        agent.UI{Busy: "The agent is working: Claude Code queues what you send now and reads it in at its next step.", Edit: edit},
		Screen:    dialogs(),
		Launch:    Launch(),
		Process:   process(),
	}
}

// ConfigDir is $CLAUDE_CONFIG_DIR (made absolute), else ~/.claude, read
// through getenv: the default of the --claude-dir flag.
func ConfigDir(getenv func(string) string) (string, error) {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Abs(d)
	}
	home, err := agent.Home(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude"), nil
}
