package procscan

import (
	"path"
	"slices"
	"strings"
)

// Invocation is what a command line says about an agent CLI process.
type Invocation struct {
	Runtime string // the Runtime of the CLI that matched
	// Args are the agent's own arguments: past the program, or past the
	// interpreter and script (node /…/cli.js), or past what a Launcher
	// skipped.
	Args []string
	// TUI: the arguments start the interactive terminal UI, not a print or
	// one-shot run and not a management subcommand. It says nothing about
	// a terminal; AgentProcess.Interactive adds that.
	TUI bool
	// SessionID is the session named on the command line, as written.
	SessionID string
	// ArgsHidden: the process overwrote its argv with a title (Node's
	// process.title leaves its name and NUL padding), so no flag can be
	// read and TUI is assumed.
	ArgsHidden bool
}

// CLI is how one agent's command line reads: which programs run it and
// how its flags say what a run does. Each agent's package gives its own,
// taken from the CLI's --help at the version paddock pins; a Matcher
// recognises any of a list of them. Only flags that take a value need
// listing in Flags (to skip the value); any other flag is a boolean.
//
// The tables are read, never written: once given to NewMatcher they must
// not change.
type CLI struct {
	// Runtime names the agent in Invocation and AgentProcess: the agent's
	// name, as session keys spell it.
	Runtime string

	// Programs are the names of the executables and scripts that run it,
	// compared with argv[0] (or the script an interpreter runs) without
	// its directory and without the extensions npm and Windows builds add
	// (.exe, .js, .mjs, .cjs, .py). Only names no other program uses: a
	// common word belongs in a Launcher, which checks the rest of argv.
	Programs []string
	// ProgramPrefixes name it by how a program's name starts, for
	// binaries named by their build target. Only argv[0] is compared, not
	// an interpreter's script.
	ProgramPrefixes []string
	// Packages are directories of the packages it ships in
	// ("/@scope/name/"): a script an interpreter runs from inside one is
	// this CLI whatever the script's own name.
	Packages []string
	// Launcher, when set, recognises a launcher that runs the CLI under a
	// name Programs cannot trust: given the program's name (as Programs
	// compare it) and the whole argv, it says whether argv is that
	// launcher and returns the agent's own arguments. It is asked before
	// Programs, for every program that is not an interpreter.
	Launcher func(prog string, argv []string) (args []string, ok bool)

	// Flags says how its flags take a value, by flag ("--model", "-m").
	Flags map[string]FlagKind
	// OneShot flags make a run that prints and exits (-p, --print, --help):
	// not the TUI.
	OneShot []string
	// OneShotValues are flag values that do the same, by flag
	// ("--mode": {"json"}).
	OneShotValues map[string][]string
	// Session flags name the session to run (with a value; an empty one
	// names none).
	Session []string
	// Fork flags say the named session is copied into a new one, so the
	// id on the command line is not this process's session.
	Fork []string
	// StopAt flags take the rest of the command line as free text (a
	// handed-over task full of words like "session" and "run" that must
	// not be read as flags or subcommands).
	StopAt []string
	// Commands are the subcommands that are not a TUI, given as the first
	// positional argument. Any other first positional is a prompt, a
	// project or a subcommand that opens the TUI.
	Commands []string
	// TUICommands are the subcommands that open the TUI as the bare
	// command does. They read as any other first positional; they are
	// listed so the table names every subcommand its --help lists.
	TUICommands []string
	// FirstArgCommands: a subcommand counts only as the very first
	// argument; a later positional is a message even if it spells one.
	FirstArgCommands bool
	// ResumeCommand names the subcommand whose own first positional is
	// the session id ("resume ID"), unless LastFlag is given, which picks
	// the newest session instead. Empty: none.
	ResumeCommand, LastFlag string

	// HoldsHistoryOpen: its processes hold their session's history files
	// open and its scanner binds a process to its session by them, so the
	// files are part of what Fingerprints says about its processes.
	HoldsHistoryOpen bool
}

// FlagKind is how a flag takes its value.
type FlagKind uint8

const (
	// BoolFlag takes no value: the kind of any flag not in CLI.Flags.
	BoolFlag FlagKind = iota
	// ValueFlag takes the next argument (or =value).
	ValueFlag
	// OptionalFlag takes the next argument unless it starts with '-'
	// (commander's [value]).
	OptionalFlag
	// ListFlag takes arguments up to the next one that starts with '-'
	// (commander's <values...>, clap's num_args(1..)).
	ListFlag
)

// Matcher recognises the command lines of a list of CLIs. It is read-only
// and safe for concurrent use.
type Matcher struct {
	clis     []CLI
	programs map[string]int // program name → index in clis
}

// NewMatcher recognises the command lines of clis. A program two of them
// list, or a script inside packages of two, belongs to the first.
func NewMatcher(clis ...CLI) *Matcher {
	m := &Matcher{clis: slices.Clone(clis), programs: map[string]int{}}
	for i, c := range m.clis {
		for _, p := range c.Programs {
			if _, dup := m.programs[p]; !dup {
				m.programs[p] = i
			}
		}
	}
	return m
}

// Classify tells whether argv (a /proc/<pid>/cmdline split at NULs) runs
// one of the matcher's CLIs and, if so, how. It is pure: the same argv
// always gives the same answer.
//
// The program is recognised by name (CLI.Programs and ProgramPrefixes; a
// trailing .exe ignored), by the script an interpreter runs (its name, or
// the package it lives in), or by a CLI's Launcher. Flags are read with
// that CLI's own table.
func (m *Matcher) Classify(argv []string) (Invocation, bool) {
	n := len(argv)
	for n > 0 && argv[n-1] == "" {
		n--
	}
	if n == 0 {
		return Invocation{}, false
	}
	hidden := n == 1 && n < len(argv)
	argv = argv[:n]
	c, args, ok := m.identify(argv)
	if !ok {
		return Invocation{}, false
	}
	inv := Invocation{Runtime: c.Runtime, Args: args, ArgsHidden: hidden, TUI: true}
	if !hidden {
		inv.TUI, inv.SessionID = c.parse(args)
	}
	return inv, true
}

// identify finds the CLI and where the agent's own arguments start.
func (m *Matcher) identify(argv []string) (c *CLI, args []string, ok bool) {
	name := progName(argv[0])
	if inlineCode(name) != nil {
		i, ok := scriptIndex(name, argv)
		if !ok {
			return nil, nil, false
		}
		script := argv[i]
		if j, ok := m.programs[progName(script)]; ok {
			return &m.clis[j], argv[i+1:], true
		}
		for j := range m.clis {
			for _, dir := range m.clis[j].Packages {
				if strings.Contains(script, dir) {
					return &m.clis[j], argv[i+1:], true
				}
			}
		}
		return nil, nil, false
	}
	for j := range m.clis {
		if l := m.clis[j].Launcher; l != nil {
			if args, ok := l(name, argv); ok {
				return &m.clis[j], args, true
			}
		}
	}
	if j, ok := m.programs[name]; ok {
		return &m.clis[j], argv[1:], true
	}
	for j := range m.clis {
		for _, p := range m.clis[j].ProgramPrefixes {
			if strings.HasPrefix(name, p) {
				return &m.clis[j], argv[1:], true
			}
		}
	}
	return nil, nil, false
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
// the command line instead of a script: the shell that runs an agent's
// command as a string is not the agent, its child is.
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

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parse reads the agent's own arguments with c's table.
func (c *CLI) parse(args []string) (tui bool, session string) {
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
		if has(c.StopAt, name) {
			break
		}
		switch c.Flags[name] {
		case ValueFlag:
			if !hasVal && i+1 < len(args) {
				i++
				val, hasVal = args[i], true
			}
		case OptionalFlag:
			if !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				val, hasVal = args[i], true
			}
		case ListFlag:
			for !hasVal && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				val, hasVal = args[i], true
			}
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
		}
		switch {
		case has(c.OneShot, name):
			tui = false
		case hasVal && has(c.OneShotValues[name], val):
			tui = false
		case has(c.Fork, name):
			forked = true
		case name == c.LastFlag && c.LastFlag != "":
			last = true
		case has(c.Session, name) && hasVal && val != "":
			session = val
		}
	}
	if len(positionals) > 0 && (!c.FirstArgCommands || len(args) > 0 && args[0] == positionals[0]) {
		cmd := positionals[0]
		switch {
		case has(c.Commands, cmd):
			tui = false
		case cmd == c.ResumeCommand && c.ResumeCommand != "":
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
