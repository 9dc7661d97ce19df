// Package launch describes how paddock starts and resumes one runtime's
// interactive CLI: its executable, the arguments of a new and of a resumed
// session, and which options it takes. Each runtime's package
// (internal/agent/<runtime>) owns its Recipe; internal/runtimes collects
// them and internal/hosted runs them. It only builds argument lists: it
// never runs a command nor reads an agent's files.
package launch

import "strconv"

// Options are what a user chose for one agent, passed to its CLI as flags
// on every start, new or resumed.
type Options struct {
	Name           string
	PermissionMode string
	Model          string
	Effort         string
}

// Recipe is how paddock starts one runtime's CLI in a hosted terminal.
// Each flag it uses is checked against the installed CLI's --help at
// start-up (internal/hosted's Probe), so Help and ResumeHelp must name
// every flag or subcommand Fresh, Resume and Flags pass.
type Recipe struct {
	Bins []string // executable names, first found on PATH wins
	// Fresh is the arguments that start a new session; sessionID is the
	// id paddock chose when the CLI accepts one (ChoosesID), else "".
	Fresh     func(sessionID string) []string
	ChoosesID bool
	// Resume is the arguments that reopen session id (transcript is its
	// history file, for CLIs that take a file). Never --continue: it may
	// attach to an unrelated conversation.
	Resume func(id, transcript string) []string
	// Server: the CLI serves its own HTTP API on --port (OpenCode), which
	// answers permissions and questions: every start gets a
	// port paddock knows.
	Server bool
	// Flags is the options as arguments, for new and resumed agents
	// alike.
	Flags   func(o Options) []string
	Modes   []string // permission modes it accepts; nil: none
	Efforts []string // effort levels it accepts; nil: none
	Named   bool     // it takes a session name
	// ScreenApprovals: its hooks cannot answer its approval dialogs (Kimi
	// Code takes only a deny from outside), so a hosted session's dialogs
	// are read off its screen and answered with keys.
	ScreenApprovals bool
	// Help lists what its --help must show for the flags above to be
	// trusted; ResumeHelp what resuming needs.
	Help, ResumeHelp []string
}

// Argv is the command line of an agent: the binary, base (Fresh's or
// Resume's arguments), the server port when the CLI serves one (port is
// ignored otherwise) and the options' flags.
func (r Recipe) Argv(bin string, base []string, port int, o Options) []string {
	a := append([]string{bin}, base...)
	if r.Server {
		a = append(a, "--port", strconv.Itoa(port))
	}
	if r.Flags != nil {
		a = append(a, r.Flags(o)...)
	}
	return a
}

// Optional appends flag and value when value is set.
func Optional(args []string, flag, value string) []string {
	if value == "" {
		return args
	}
	return append(args, flag, value)
}
