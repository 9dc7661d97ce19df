package codex

import "paddock/internal/procscan"

// process is how Codex's command line reads, from its --help at 0.169.0
// (clap), the version pinned in .ci/install-agents. -p is --profile here,
// not print. The npm package runs bin/codex.js under node, which starts
// the native codex binary; older packages named that binary by its
// target (codex-x86_64-unknown-linux-musl).
func process() procscan.CLI {
	return procscan.CLI{
		Runtime:         runtimeName,
		Programs:        []string{"codex"},
		ProgramPrefixes: []string{"codex-x86_64-", "codex-aarch64-"},
		Packages:        []string{"/@openai/codex/"},
		Flags: map[string]procscan.FlagKind{
			"-c": procscan.ValueFlag, "--config": procscan.ValueFlag, "--enable": procscan.ValueFlag, "--disable": procscan.ValueFlag,
			"--remote": procscan.ValueFlag, "--remote-auth-token-env": procscan.ValueFlag,
			"-i": procscan.ListFlag, "--image": procscan.ListFlag, "-m": procscan.ValueFlag, "--model": procscan.ValueFlag,
			"--local-provider": procscan.ValueFlag, "-p": procscan.ValueFlag, "--profile": procscan.ValueFlag,
			"-s": procscan.ValueFlag, "--sandbox": procscan.ValueFlag, "-C": procscan.ValueFlag, "--cd": procscan.ValueFlag,
			"--add-dir": procscan.ValueFlag, "-a": procscan.ValueFlag, "--ask-for-approval": procscan.ValueFlag,
		},
		OneShot: []string{"-h", "--help", "-V", "--version"},
		Commands: []string{"exec", "e", "review", "login", "logout", "mcp", "mcp-server", "plugin",
			"app-server", "remote-control", "completion", "update", "doctor", "sandbox", "debug",
			"apply", "a", "queue", "archive", "delete", "migrate-rollouts", "migrate-nfs-db",
			"unarchive", "cloud", "exec-server", "features", "help", "responses-api-proxy",
			"stdio-to-uds"},
		// agents is the TUI's session browser; fork copies a session into
		// a new one, so its positional is not this process's session.
		TUICommands:   []string{"resume", "fork", "agents"},
		ResumeCommand: "resume",
		LastFlag:      "--last",
		// The rollout and thread lock of a session resumed inside a
		// running TUI.
		HoldsHistoryOpen: true,
	}
}
