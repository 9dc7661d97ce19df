package kimi

import "paddock/internal/launch"

// Launch is how paddock starts and resumes Kimi Code 2.1.0: -S/--session
// ID, -m/--model.
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:       []string{"kimi"},
		Fresh:      func(string) []string { return nil },
		Resume:     func(id, _ string) []string { return []string{"--session", id} },
		Flags:      func(o launch.Options) []string { return launch.Optional(nil, "--model", o.Model) },
		Help:       []string{"--model"},
		ResumeHelp: []string{"--session"},
	}
}
