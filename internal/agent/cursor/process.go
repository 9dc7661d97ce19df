package cursor

import (
	"strings"

	"paddock/internal/procscan"
)

// process is how the Cursor CLI's command line reads, from its
// documentation (commander; it cannot be installed here, so no --help was
// read): resume, ls and agent open the TUI as the bare command does.
//
// Its launcher gives it whatever name the user typed, and "agent" and
// "cursor" are too common to trust as program names: only the launcher's
// shape makes them Cursor (launcher). cursor-agent is its own.
func process() procscan.CLI {
	return procscan.CLI{
		Runtime:  runtimeName,
		Programs: []string{"cursor-agent"},
		Packages: []string{"/cursor-agent/"},
		Launcher: launcher,
		Flags: map[string]procscan.FlagKind{
			"--api-key": procscan.ValueFlag, "-H": procscan.ValueFlag, "--header": procscan.ValueFlag,
			"--output-format": procscan.ValueFlag, "--resume": procscan.OptionalFlag, "--model": procscan.ValueFlag,
			"--mode": procscan.ValueFlag, "--sandbox": procscan.ValueFlag, "--workspace": procscan.ValueFlag,
			"-w": procscan.OptionalFlag, "--worktree": procscan.OptionalFlag, "--worktree-base": procscan.ValueFlag,
			"-n": procscan.ValueFlag, "--name": procscan.ValueFlag,
		},
		OneShot:       []string{"-p", "--print", "--list-models", "-h", "--help", "-v", "--version"},
		OneShotValues: map[string][]string{"--output-format": {"json", "stream-json"}},
		Session:       []string{"--resume"},
		Commands: []string{"install-shell-integration", "uninstall-shell-integration", "login",
			"logout", "mcp", "status", "whoami", "update", "upgrade", "create-chat", "generate-rule",
			"rule", "models", "about", "acp", "help"},
		TUICommands: []string{"agent", "resume", "ls"},
		// A chat's store.db.
		HoldsHistoryOpen: true,
	}
}

// launcher recognises the Cursor CLI's launcher script, which runs
// `exec -a "$0" node [--use-system-ca] $DIR/index.js "$@"`: argv[0] is
// what the user typed (agent, cursor, cursor-agent, a path to one), then
// node's option and the bundle. Any index.js after --use-system-ca counts;
// without that option, only one under a cursor-agent directory (a plain
// `agent …/index.js` is some other node program).
func launcher(prog string, argv []string) ([]string, bool) {
	if prog != "agent" && prog != "cursor" && prog != "cursor-agent" {
		return nil, false
	}
	i := 1
	if i < len(argv) && argv[i] == "--use-system-ca" {
		i++
	}
	if i < len(argv) && strings.HasSuffix(argv[i], "/index.js") &&
		(i == 2 || strings.Contains(argv[i], "cursor-agent")) {
		return argv[i+1:], true
	}
	return nil, false
}
