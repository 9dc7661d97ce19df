package kimi

import "paddock/internal/launch"

// Launch is how paddock starts and resumes Kimi Code 2.1.0: -S/--session
// ID, -m/--model. Its approvals are answered on its screen when paddock
// hosts it: its PreToolUse hook takes only a deny.
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:       []string{"kimi"},
		Fresh:      func(string) []string { return nil },
		Resume:     func(id, _ string) []string { return []string{"--session", id} },
		Flags:      func(o launch.Options) []string { return launch.Optional(nil, "--model", o.Model) },
		Help:       []string{"--model"},
		ResumeHelp: []string{"--session"},

		ScreenApprovals: true,
	}
}
