package cursor

import "paddock/internal/launch"

// Launch is how paddock starts and resumes the Cursor Agent CLI, from its
// documentation (it is not installable here, so no --help was read):
// --resume ID, --model.
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:       []string{"cursor-agent"},
		Fresh:      func(string) []string { return nil },
		Resume:     func(id, _ string) []string { return []string{"--resume", id} },
		Flags:      func(o launch.Options) []string { return launch.Optional(nil, "--model", o.Model) },
		Help:       []string{"--model"},
		ResumeHelp: []string{"--resume"},
	}
}
