package opencode

import "paddock/internal/procscan"

// process is how OpenCode's command line reads, from its --help at
// 1.18.33 (yargs), the version pinned in .ci/install-agents: `opencode
// [project]` is the TUI, and so are attach and pr; run, serve and the rest
// are not. The npm package is opencode-ai.
func process() procscan.CLI {
	return procscan.CLI{
		Runtime:  runtimeName,
		Programs: []string{"opencode", ".opencode"},
		Packages: []string{"/opencode-ai/"},
		Flags: map[string]procscan.FlagKind{
			"--log-level": procscan.ValueFlag, "--port": procscan.ValueFlag, "--hostname": procscan.ValueFlag,
			"--mdns-domain": procscan.ValueFlag, "--cors": procscan.ListFlag, "-m": procscan.ValueFlag, "--model": procscan.ValueFlag,
			"-s": procscan.ValueFlag, "--session": procscan.ValueFlag, "--agent": procscan.ValueFlag,
			"--replay-limit": procscan.ValueFlag, "--dir": procscan.ValueFlag,
			"-p": procscan.ValueFlag, "--password": procscan.ValueFlag, "-u": procscan.ValueFlag, "--username": procscan.ValueFlag,
		},
		OneShot: []string{"-h", "--help", "-v", "--version"},
		Session: []string{"-s", "--session"},
		Fork:    []string{"--fork"},
		// --prompt carries a handed-over task to the TUI.
		StopAt: []string{"--prompt"},
		Commands: []string{"completion", "acp", "mcp", "run", "debug", "providers", "auth", "agent",
			"upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github",
			"session", "plugin", "plug", "db", "generate", "help"},
		TUICommands: []string{"attach", "pr"},
	}
}
