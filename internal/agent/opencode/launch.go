package opencode

import "paddock/internal/launch"

// Launch is how paddock starts and resumes OpenCode 1.18.33: -s/--session,
// -m/--model, and --port: its own HTTP server answers permissions and
// questions, so every start gets a port paddock knows.
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:       []string{"opencode"},
		Server:     true,
		Fresh:      func(string) []string { return nil },
		Resume:     func(id, _ string) []string { return []string{"--session", id} },
		Flags:      func(o launch.Options) []string { return launch.Optional(nil, "--model", o.Model) },
		Help:       []string{"--port", "--model"},
		ResumeHelp: []string{"--session"},
	}
}
