package codex

import (
	"strconv"

	"paddock/internal/launch"
)

// Launch is how paddock starts and resumes Codex 0.169.0: `codex resume
// ID`, --ask-for-approval, --model, and the reasoning effort as the config
// key model_reasoning_effort (it has no effort flag).
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:    []string{"codex"},
		Modes:   []string{"on-request", "never"},
		Efforts: []string{"minimal", "low", "medium", "high", "xhigh"},
		Fresh:   func(string) []string { return nil },
		Resume:  func(id, _ string) []string { return []string{"resume", id} },
		Flags: func(o launch.Options) []string {
			a := launch.Optional(nil, "--ask-for-approval", o.PermissionMode)
			a = launch.Optional(a, "--model", o.Model)
			if o.Effort != "" {
				a = append(a, "--config", "model_reasoning_effort="+strconv.Quote(o.Effort))
			}
			return a
		},
		Help:       []string{"--ask-for-approval", "--model", "--config"},
		ResumeHelp: []string{"resume"},
	}
}
