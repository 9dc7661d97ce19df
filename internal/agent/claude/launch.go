package claude

import "paddock/internal/launch"

// Launch is how paddock starts and resumes Claude Code 2.1.328:
// --session-id (paddock chooses the id), --resume, --permission-mode,
// --model, --effort (low … max), -n/--name.
func Launch() launch.Recipe {
	return launch.Recipe{
		Bins:      []string{"claude"},
		ChoosesID: true,
		// Its --help's --permission-mode values, plus "default", which it
		// still takes for "manual".
		Modes:   []string{"manual", "default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"},
		Efforts: []string{"low", "medium", "high", "xhigh", "max"},
		Named:   true,
		Fresh:   func(id string) []string { return []string{"--session-id", id} },
		Resume:  func(id, _ string) []string { return []string{"--resume", id} },
		Flags: func(o launch.Options) []string {
			a := launch.Optional(nil, "--permission-mode", o.PermissionMode)
			a = launch.Optional(a, "--model", o.Model)
			a = launch.Optional(a, "--effort", o.Effort)
			return launch.Optional(a, "--name", o.Name)
		},
		Help:       []string{"--session-id", "--permission-mode", "--model", "--effort", "--name"},
		ResumeHelp: []string{"--resume"},
	}
}
