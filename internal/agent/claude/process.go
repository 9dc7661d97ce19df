package claude

import "paddock/internal/procscan"

// process is how Claude Code's command line reads, from its --help at
// 2.1.328 (commander), the version pinned in .ci/install-agents. Its
// native binary is claude (claude.exe in the npm package); older installs
// run cli.js from the npm package under node.
func process() procscan.CLI {
	return procscan.CLI{
		Runtime:  runtimeName,
		Programs: []string{"claude"},
		Packages: []string{"/@anthropic-ai/claude-code/"},
		Flags: map[string]procscan.FlagKind{
			"--add-dir": procscan.ListFlag, "--agent": procscan.ValueFlag, "--agents": procscan.ValueFlag,
			"--allowedTools": procscan.ListFlag, "--allowed-tools": procscan.ListFlag,
			"--append-system-prompt": procscan.ValueFlag, "--append-system-prompt-file": procscan.ValueFlag,
			"--autocompact": procscan.ValueFlag, "--betas": procscan.ListFlag, "--cloud": procscan.OptionalFlag,
			"-d": procscan.OptionalFlag, "--debug": procscan.OptionalFlag, "--debug-file": procscan.ValueFlag,
			"--disallowedTools": procscan.ListFlag, "--disallowed-tools": procscan.ListFlag,
			"--effort": procscan.ValueFlag, "--environment": procscan.ValueFlag, "--fallback-model": procscan.ValueFlag,
			"--file": procscan.ListFlag, "--from-pr": procscan.OptionalFlag, "--input-format": procscan.ValueFlag,
			"--json-schema": procscan.ValueFlag, "--max-budget-usd": procscan.ValueFlag, "--max-turns": procscan.ValueFlag,
			"--mcp-config": procscan.ListFlag, "--model": procscan.ValueFlag, "-n": procscan.ValueFlag, "--name": procscan.ValueFlag,
			"--output-format": procscan.ValueFlag, "--permission-mode": procscan.ValueFlag,
			"--permission-prompt-tool": procscan.ValueFlag, "--permission-prompts": procscan.ValueFlag,
			"--plugin-dir": procscan.ValueFlag, "--plugin-url": procscan.ValueFlag, "--prompt-suggestions": procscan.OptionalFlag,
			"--remote-control": procscan.OptionalFlag, "--remote-control-session-name-prefix": procscan.ValueFlag,
			"-r": procscan.OptionalFlag, "--resume": procscan.OptionalFlag, "--session-id": procscan.ValueFlag,
			"--setting-sources": procscan.ValueFlag, "--settings": procscan.ValueFlag,
			"--system-prompt": procscan.ValueFlag, "--system-prompt-file": procscan.ValueFlag,
			"--system-prompt-snapshot": procscan.ValueFlag, "--teleport": procscan.OptionalFlag,
			"--tools": procscan.ListFlag, "-w": procscan.OptionalFlag, "--worktree": procscan.OptionalFlag,
		},
		// --bg returns at once (the session runs detached); --desktop
		// hands the session to the desktop app.
		OneShot: []string{"-p", "--print", "--bg", "--background", "--desktop",
			"-h", "--help", "-v", "--version"},
		// Formats that only work with --print: how the Agent SDK and IDE
		// extensions drive Claude Code.
		OneShotValues: map[string][]string{
			"--input-format": {"stream-json"}, "--output-format": {"json", "stream-json"},
		},
		Session: []string{"-r", "--resume", "--session-id"},
		Fork:    []string{"--fork-session"},
		// attach shows a background session that runs in another process.
		Commands: []string{"agents", "attach", "auth", "auto-mode", "config", "doctor", "gateway",
			"import", "install", "logs", "mcp", "migrate-installer", "plugin", "plugins", "purge",
			"respawn", "rm", "setup-token", "stop", "kill", "ultrareview", "update", "upgrade"},
	}
}
