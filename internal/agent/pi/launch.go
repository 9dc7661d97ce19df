package pi

import (
	"cmp"

	"paddock/internal/launch"
)

// Launch is how paddock starts and resumes Pi 0.73.1: --session <path|id>
// (the transcript's path when known, else the id), --model, --thinking
// (off … xhigh).
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:    []string{"pi"},
		Efforts: []string{"off", "minimal", "low", "medium", "high", "xhigh"},
		Fresh:   func(string) []string { return nil },
		Resume:  func(id, transcript string) []string { return []string{"--session", cmp.Or(transcript, id)} },
		Flags: func(o launch.Options) []string {
			return launch.Optional(launch.Optional(nil, "--model", o.Model), "--thinking", o.Effort)
		},
		Help:       []string{"--model", "--thinking"},
		ResumeHelp: []string{"--session"},
	}
}
