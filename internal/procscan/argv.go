package procscan

import (
	"path"
	"strings"
)

// Invocation is what a command line says about an agent CLI process.
type Invocation struct {
	Runtime string // "claude", "codex", "opencode", "kimi", "cursor", "pi"
	// Args are the agent's own arguments: past the program, or past the
	// interpreter and script (node /…/cli.js, the Cursor launcher's
	// index.js).
	Args []string
	// TUI: the arguments start the interactive terminal UI, not a print or
	// one-shot run and not a management subcommand. It says nothing about
	// a terminal; AgentProcess.Interactive adds that.
	TUI bool
	// SessionID is the session named on the command line, as written.
	SessionID string
	// ArgsHidden: the process overwrote its argv with a title (Node's
	// process.title leaves "pi" and NUL padding), so no flag can be read
	// and TUI is assumed.
	ArgsHidden bool
}

// Classify tells whether argv (a /proc/<pid>/cmdline split at NULs) runs
// one of the agent CLIs and, if so, how. It is pure: the same argv always
// gives the same answer.
//
// The program is recognised by name (claude, codex, opencode, kimi-code,
// pi, cursor-agent; a trailing .exe ignored), by the script an interpreter
// runs (node …/@anthropic-ai/claude-code/cli.js, node …/bin/codex), or by
// Cursor's launcher shape (agent [--use-system-ca] …/cursor-agent/…/index.js).
// Flags are read with each CLI's own table, taken from its --help at the
// versions pinned in .ci/install-agents (Cursor's from its documentation).
func Classify(argv []string) (Invocation, bool) {
	n := len(argv)
	for n > 0 && argv[n-1] == "" {
		n--
	}
	if n == 0 {
		return Invocation{}, false
	}
	hidden := n == 1 && n < len(argv)
	argv = argv[:n]
	runtime, args, ok := identify(argv)
	if !ok {
		return Invocation{}, false
	}
	inv := Invocation{Runtime: runtime, Args: args, ArgsHidden: hidden, TUI: true}
	if !hidden {
		inv.TUI, inv.SessionID = clis[runtime].parse(args)
	}
	return inv, true
}

// programs maps an executable or script name (extension dropped) to its
// runtime. "agent" and "cursor" are missing on purpose: too common to
// trust without Cursor's launcher shape.
var programs = map[string]string{
	"claude":       "claude",
	"codex":        "codex",
	"opencode":     "opencode",
	".opencode":    "opencode",
	"kimi":         "kimi",
	"kimi-code":    "kimi",
	"pi":           "pi",
	"cursor-agent": "cursor",
}

// packages names a runtime by the npm package a script lives in, whatever
// the script's own name (claude-code/cli.js, kimi-code/dist/main.mjs).
var packages = []struct{ dir, runtime string }{
	{"/@anthropic-ai/claude-code/", "claude"},
	{"/@openai/codex/", "codex"},
	{"/opencode-ai/", "opencode"},
	{"/@moonshot-ai/kimi-code/", "kimi"},
	{"/@mariozechner/pi-coding-agent/", "pi"},
	{"/cursor-agent/", "cursor"},
}

// identify finds the runtime and where the agent's own arguments start.
func identify(argv []string) (runtime string, args []string, ok bool) {
	name := progName(argv[0])
	if inlineCode(name) != nil {
		i, ok := scriptIndex(name, argv)
		if !ok {
			return "", nil, false
		}
		script := argv[i]
		if rt, ok := programs[progName(script)]; ok {
			return rt, argv[i+1:], true
		}
		for _, p := range packages {
			if strings.Contains(script, p.dir) {
				return p.runtime, argv[i+1:], true
			}
		}
		return "", nil, false
	}
	// Cursor's launcher: exec -a "$0" node [--use-system-ca] $DIR/index.js "$@",
	// so argv[0] is whatever the user typed (agent, cursor-agent, a path).
	if name == "agent" || name == "cursor" || name == "cursor-agent" {
		i := 1
		if i < len(argv) && argv[i] == "--use-system-ca" {
			i++
		}
		if i < len(argv) && strings.HasSuffix(argv[i], "/index.js") &&
			(i == 2 || strings.Contains(argv[i], "cursor-agent")) {
			return "cursor", argv[i+1:], true
		}
		if name != "cursor-agent" {
			return "", nil, false
		}
	}
	if rt, ok := programs[name]; ok {
		return rt, argv[1:], true
	}
	// Older Codex npm packages named the native binary by its target.
	if strings.HasPrefix(name, "codex-x86_64-") || strings.HasPrefix(name, "codex-aarch64-") {
		return "codex", argv[1:], true
	}
	return "", nil, false
}

// progName is the base name of a program or script without the extensions
// npm and Windows builds add.
func progName(p string) string {
	p = path.Base(p)
	for _, ext := range []string{".exe", ".js", ".mjs", ".cjs", ".py"} {
		if len(p) > len(ext) && strings.EqualFold(p[len(p)-len(ext):], ext) {
			return p[:len(p)-len(ext)]
		}
	}
	return p
}

// inlineCode lists, per interpreter, the options that run code given on
// the command line instead of a script: the shell that runs "claude …" as a
// string is not the agent, its child is.
func inlineCode(interpreter string) []string {
	switch {
	case interpreter == "sh" || interpreter == "bash" || interpreter == "dash" || interpreter == "zsh":
		return []string{"-c"}
	case strings.HasPrefix(interpreter, "python"):
		return []string{"-c", "-m"}
	case interpreter == "node" || interpreter == "nodejs" || interpreter == "bun" ||
		strings.HasPrefix(interpreter, "node") && strings.Trim(interpreter[4:], "0123456789") == "":
		return []string{"-e", "--eval", "-p", "--print"}
	}
	return nil
}

// scriptIndex finds the script an interpreter runs, past its own options.
func scriptIndex(interpreter string, argv []string) (int, bool) {
	inline := inlineCode(interpreter)
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case has(inline, a):
			return 0, false
		case a == "-r" || a == "--require" || a == "--import" || a == "--loader" ||
			a == "--experimental-loader" || a == "-C" || a == "--conditions":
			i++ // node's options that take the next argument
		case a == "--":
			if i+1 < len(argv) {
				return i + 1, true
			}
			return 0, false
		case strings.HasPrefix(a, "-"):
		default:
			return i, true
		}
	}
	return 0, false
}

// flagKind is how a flag takes its value. Flags not in a table are
// booleans.
type flagKind uint8

const (
	boolFlag flagKind = iota
	// valueFlag takes the next argument (or =value).
	valueFlag
	// optionalFlag takes the next argument unless it starts with '-'
	// (commander's [value]: claude --resume, kimi -S, cursor --resume).
	optionalFlag
	// listFlag takes arguments up to the next one that starts with '-'
	// (commander's <values...>, clap's num_args(1..)).
	listFlag
)

// cli is how one agent CLI reads its command line.
type cli struct {
	flags map[string]flagKind
	// oneShot flags make a run that prints and exits (-p, --print, --help).
	oneShot []string
	// oneShotValues are flag values that do the same (pi --mode json).
	oneShotValues map[string][]string
	// session flags name the session to run; fork flags say that session
	// is copied into a new one, so the named id is not this process's.
	session []string
	fork    []string
	// stopAt flags take the rest of the command line as free text
	// (opencode --prompt: a handed-over task full of words like "session"
	// and "run" that must not be read as flags or subcommands).
	stopAt []string
	// commands are the subcommands that are not a TUI; tuiCommands the
	// ones that are. Any other first positional is a prompt or a project.
	commands    []string
	tuiCommands []string
	// firstArgCommands: a subcommand counts only as the very first
	// argument (pi; later positionals are messages).
	firstArgCommands bool
	// resumeCommand names the subcommand whose first positional is the
	// session id (codex resume ID), unless lastFlag picks the newest.
	resumeCommand, lastFlag string
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (c cli) parse(args []string) (tui bool, session string) {
	tui = true
	var positionals []string
	var forked, last bool
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positionals = append(positionals, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positionals = append(positionals, a)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		if has(c.stopAt, name) {
			break
		}
		switch c.flags[name] {
		case valueFlag:
			if !hasVal && i+1 < len(args) {
				i++
				val, hasVal = args[i], true
			}
		case optionalFlag:
			if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				val, hasVal = args[i], true
			}
		case listFlag:
			for !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				val, hasVal = args[i], true
			}
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		}
		switch {
		case has(c.oneShot, name):
			tui = false
		case hasVal && has(c.oneShotValues[name], val):
			tui = false
		case has(c.fork, name):
			forked = true
		case name == c.lastFlag && c.lastFlag != "":
			last = true
		case has(c.session, name) && hasVal && val != "":
			session = val
		}
	}
	if len(positionals) > 0 && (!c.firstArgCommands || len(args) > 0 && args[0] == positionals[0]) {
		cmd := positionals[0]
		switch {
		case has(c.commands, cmd):
			tui = false
		case cmd == c.resumeCommand && c.resumeCommand != "":
			if !last && len(positionals) > 1 {
				session = positionals[1]
			}
		}
	}
	if forked {
		session = ""
	}
	return tui, session
}

// clis holds each runtime's command-line table. Only flags that take a
// value need listing (to skip the value); the rest are booleans.
var clis = map[string]cli{
	// Claude Code 2.1.328 (commander).
	"claude": {
		flags: map[string]flagKind{
			"--add-dir": listFlag, "--agent": valueFlag, "--agents": valueFlag,
			"--allowedTools": listFlag, "--allowed-tools": listFlag,
			"--append-system-prompt": valueFlag, "--append-system-prompt-file": valueFlag,
			"--autocompact": valueFlag, "--betas": listFlag, "--cloud": optionalFlag,
			"-d": optionalFlag, "--debug": optionalFlag, "--debug-file": valueFlag,
			"--disallowedTools": listFlag, "--disallowed-tools": listFlag,
			"--effort": valueFlag, "--environment": valueFlag, "--fallback-model": valueFlag,
			"--file": listFlag, "--from-pr": optionalFlag, "--input-format": valueFlag,
			"--json-schema": valueFlag, "--max-budget-usd": valueFlag, "--max-turns": valueFlag,
			"--mcp-config": listFlag, "--model": valueFlag, "-n": valueFlag, "--name": valueFlag,
			"--output-format": valueFlag, "--permission-mode": valueFlag,
			"--permission-prompt-tool": valueFlag, "--permission-prompts": valueFlag,
			"--plugin-dir": valueFlag, "--plugin-url": valueFlag, "--prompt-suggestions": optionalFlag,
			"--remote-control": optionalFlag, "--remote-control-session-name-prefix": valueFlag,
			"-r": optionalFlag, "--resume": optionalFlag, "--session-id": valueFlag,
			"--setting-sources": valueFlag, "--settings": valueFlag,
			"--system-prompt": valueFlag, "--system-prompt-file": valueFlag,
			"--system-prompt-snapshot": valueFlag, "--teleport": optionalFlag,
			"--tools": listFlag, "-w": optionalFlag, "--worktree": optionalFlag,
		},
		// --bg returns at once (the session runs detached); --desktop
		// hands the session to the desktop app.
		oneShot: []string{"-p", "--print", "--bg", "--background", "--desktop",
			"-h", "--help", "-v", "--version"},
		// Formats that only work with --print: how the Agent SDK and IDE
		// extensions drive Claude Code.
		oneShotValues: map[string][]string{
			"--input-format": {"stream-json"}, "--output-format": {"json", "stream-json"},
		},
		session: []string{"-r", "--resume", "--session-id"},
		fork:    []string{"--fork-session"},
		// attach shows a background session that runs in another process.
		commands: []string{"agents", "attach", "auth", "auto-mode", "config", "doctor", "gateway",
			"import", "install", "logs", "mcp", "migrate-installer", "plugin", "plugins", "purge",
			"respawn", "rm", "setup-token", "stop", "kill", "ultrareview", "update", "upgrade"},
	},
	// Codex 0.169.0 (clap). -p is --profile here, not print.
	"codex": {
		flags: map[string]flagKind{
			"-c": valueFlag, "--config": valueFlag, "--enable": valueFlag, "--disable": valueFlag,
			"--remote": valueFlag, "--remote-auth-token-env": valueFlag,
			"-i": listFlag, "--image": listFlag, "-m": valueFlag, "--model": valueFlag,
			"--local-provider": valueFlag, "-p": valueFlag, "--profile": valueFlag,
			"-s": valueFlag, "--sandbox": valueFlag, "-C": valueFlag, "--cd": valueFlag,
			"--add-dir": valueFlag, "-a": valueFlag, "--ask-for-approval": valueFlag,
		},
		oneShot: []string{"-h", "--help", "-V", "--version"},
		commands: []string{"exec", "e", "review", "login", "logout", "mcp", "mcp-server", "plugin",
			"app-server", "remote-control", "completion", "update", "doctor", "sandbox", "debug",
			"apply", "a", "queue", "archive", "delete", "migrate-rollouts", "migrate-nfs-db",
			"unarchive", "cloud", "exec-server", "features", "help", "responses-api-proxy",
			"stdio-to-uds"},
		// agents is the TUI's session browser; fork copies a session into
		// a new one, so its positional is not this process's session.
		tuiCommands:   []string{"resume", "fork", "agents"},
		resumeCommand: "resume",
		lastFlag:      "--last",
	},
	// OpenCode 1.18.33 (yargs): `opencode [project]` is the TUI, and so are
	// attach and pr; run, serve and the rest are not.
	"opencode": {
		flags: map[string]flagKind{
			"--log-level": valueFlag, "--port": valueFlag, "--hostname": valueFlag,
			"--mdns-domain": valueFlag, "--cors": listFlag, "-m": valueFlag, "--model": valueFlag,
			"-s": valueFlag, "--session": valueFlag, "--agent": valueFlag,
			"--replay-limit": valueFlag, "--dir": valueFlag,
			"-p": valueFlag, "--password": valueFlag, "-u": valueFlag, "--username": valueFlag,
		},
		oneShot: []string{"-h", "--help", "-v", "--version"},
		session: []string{"-s", "--session"},
		fork:    []string{"--fork"},
		stopAt:  []string{"--prompt"},
		commands: []string{"completion", "acp", "mcp", "run", "debug", "providers", "auth", "agent",
			"upgrade", "uninstall", "serve", "web", "models", "stats", "export", "import", "github",
			"session", "plugin", "plug", "db", "generate", "help"},
		tuiCommands: []string{"attach", "pr"},
	},
	// Kimi Code 2.1.0 (commander): -p/--prompt runs one prompt and prints.
	"kimi": {
		flags: map[string]flagKind{
			"-S": optionalFlag, "--session": optionalFlag, "-m": valueFlag, "--model": valueFlag,
			"-p": valueFlag, "--prompt": valueFlag, "--output-format": valueFlag,
			"--skills-dir": valueFlag, "--agent": valueFlag, "--agent-file": valueFlag,
			"--add-dir": valueFlag,
		},
		oneShot:       []string{"-p", "--prompt", "-h", "--help", "-V", "--version"},
		oneShotValues: map[string][]string{"--output-format": {"stream-json"}},
		session:       []string{"-S", "--session"},
		commands: []string{"export", "fork", "provider", "session", "acp", "web", "server", "rc",
			"remote", "login", "doctor", "vis", "install-desktop", "migrate", "upgrade", "update", "help"},
	},
	// Cursor CLI (commander; from its documentation): resume, ls and agent
	// open the TUI as the bare command does.
	"cursor": {
		flags: map[string]flagKind{
			"--api-key": valueFlag, "-H": valueFlag, "--header": valueFlag,
			"--output-format": valueFlag, "--resume": optionalFlag, "--model": valueFlag,
			"--mode": valueFlag, "--sandbox": valueFlag, "--workspace": valueFlag,
			"-w": optionalFlag, "--worktree": optionalFlag, "--worktree-base": valueFlag,
			"-n": valueFlag, "--name": valueFlag,
		},
		oneShot:       []string{"-p", "--print", "--list-models", "-h", "--help", "-v", "--version"},
		oneShotValues: map[string][]string{"--output-format": {"json", "stream-json"}},
		session:       []string{"--resume"},
		commands: []string{"install-shell-integration", "uninstall-shell-integration", "login",
			"logout", "mcp", "status", "whoami", "update", "upgrade", "create-chat", "generate-rule",
			"rule", "models", "about", "acp", "help"},
		tuiCommands: []string{"agent", "resume", "ls"},
	},
	// Pi 0.73.1 (its own parser): commands only as the first argument,
	// every other positional is a message.
	"pi": {
		flags: map[string]flagKind{
			"--provider": valueFlag, "--model": valueFlag, "--api-key": valueFlag,
			"--system-prompt": valueFlag, "--append-system-prompt": valueFlag, "--mode": valueFlag,
			"--session": valueFlag, "--fork": valueFlag, "--session-dir": valueFlag,
			"--models": valueFlag, "--tools": valueFlag, "-t": valueFlag, "--thinking": valueFlag,
			"--export": valueFlag, "--extension": valueFlag, "-e": valueFlag, "--skill": valueFlag,
			"--prompt-template": valueFlag, "--theme": valueFlag, "--list-models": optionalFlag,
		},
		oneShot:          []string{"-p", "--print", "--export", "--list-models", "-h", "--help", "-v", "--version"},
		oneShotValues:    map[string][]string{"--mode": {"json", "rpc"}},
		session:          []string{"--session"},
		commands:         []string{"install", "remove", "uninstall", "update", "list", "config"},
		firstArgCommands: true,
	},
}
