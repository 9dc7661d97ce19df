package pi

import "paddock/internal/procscan"

// process is how Pi's command line reads, from its --help at 0.73.1 (its
// own parser), the version pinned in .ci/install-agents: commands only as
// the first argument, every other positional is a message. Its TUI sets a
// process title over its arguments.
func process() procscan.CLI {
	return procscan.CLI{
		Runtime:  runtimeName,
		Programs: []string{"pi"},
		Packages: []string{"/@mariozechner/pi-coding-agent/"},
		Flags: map[string]procscan.FlagKind{
			"--provider": procscan.ValueFlag, "--model": procscan.ValueFlag, "--api-key": procscan.ValueFlag,
			"--system-prompt": procscan.ValueFlag, "--append-system-prompt": procscan.ValueFlag, "--mode": procscan.ValueFlag,
			"--session": procscan.ValueFlag, "--fork": procscan.ValueFlag, "--session-dir": procscan.ValueFlag,
			"--models": procscan.ValueFlag, "--tools": procscan.ValueFlag, "-t": procscan.ValueFlag, "--thinking": procscan.ValueFlag,
			"--export": procscan.ValueFlag, "--extension": procscan.ValueFlag, "-e": procscan.ValueFlag, "--skill": procscan.ValueFlag,
			"--prompt-template": procscan.ValueFlag, "--theme": procscan.ValueFlag, "--list-models": procscan.OptionalFlag,
		},
		OneShot:          []string{"-p", "--print", "--export", "--list-models", "-h", "--help", "-v", "--version"},
		OneShotValues:    map[string][]string{"--mode": {"json", "rpc"}},
		Session:          []string{"--session"},
		Commands:         []string{"install", "remove", "uninstall", "update", "list", "config"},
		FirstArgCommands: true,
	}
}
