package kimi

import "paddock/internal/procscan"

// process is how Kimi Code's command line reads, from its --help at 2.1.0
// (commander), the version pinned in .ci/install-agents: -p/--prompt runs
// one prompt and prints. Its programs are kimi and kimi-code (the npm
// package's dist/main.mjs under node); its TUI sets a process title over
// its arguments.
func process() procscan.CLI {
	return procscan.CLI{
		Runtime:  runtimeName,
		Programs: []string{"kimi", "kimi-code"},
		Packages: []string{"/@moonshot-ai/kimi-code/"},
		Flags: map[string]procscan.FlagKind{
			"-S": procscan.OptionalFlag, "--session": procscan.OptionalFlag, "-m": procscan.ValueFlag, "--model": procscan.ValueFlag,
			"-p": procscan.ValueFlag, "--prompt": procscan.ValueFlag, "--output-format": procscan.ValueFlag,
			"--skills-dir": procscan.ValueFlag, "--agent": procscan.ValueFlag, "--agent-file": procscan.ValueFlag,
			"--add-dir": procscan.ValueFlag,
		},
		OneShot:       []string{"-p", "--prompt", "-h", "--help", "-V", "--version"},
		OneShotValues: map[string][]string{"--output-format": {"stream-json"}},
		Session:       []string{"-S", "--session"},
		Commands: []string{"export", "fork", "provider", "session", "acp", "web", "server", "rc",
			"remote", "login", "doctor", "vis", "install-desktop", "migrate", "upgrade", "update", "help"},
	}
}
