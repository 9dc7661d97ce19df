// Package agent says what paddock needs to know about one coding agent,
// as one value (Agent) that each agent's own package under internal/agent
// builds: how to read its history, start and resume it, decode its hooks,
// hold its decisions, install its hooks, read its screen dialogs, and
// recognise its processes, plus its names and the notes the UI shows.
//
// The capability packages (catalog, hookstate, approvals, hookinstall,
// screendialog, procscan, hosted) hold only mechanisms: they are handed
// these parts as data, never an agent's package. A Registry is a list of
// agents; internal/agent/registry is the one list paddock ships, and the
// only package that imports the agents' packages.
//
// This package has no I/O of its own.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"time"

	"paddock/internal/catalog"
	"paddock/internal/decisions/hold"
	"paddock/internal/history"
	"paddock/internal/hookinstall"
	"paddock/internal/hookstate"
	"paddock/internal/launch"
	"paddock/internal/procscan"
	"paddock/internal/screendialog"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// Agent is everything about one coding agent. Zero-valued parts mean the
// agent does not have them (no screen dialogs recorded, no hooks, ...).
type Agent struct {
	// Name is the agent's id: in session keys and URLs (/s/{name}/{id}),
	// `paddock hook --runtime NAME` and `hooks install --runtime NAME`.
	// Lower-case letters and digits.
	Name string
	// Label is its short display name, on cards and in filters ("Kimi").
	Label string
	// Product is the name its maker gives it, for sentences ("Kimi Code").
	Product string

	// DirFlag, when set, is a serve flag that points paddock at the
	// agent's own directory (Env.Dir); the flag's default is DefaultDir.
	DirFlag *DirFlag

	// NewScanner builds the agent's scanner over its own history files.
	NewScanner func(Env) catalog.Scanner
	// Launch is how paddock starts and resumes its CLI in a terminal;
	// zero (no Bins) when paddock cannot host it.
	Launch launch.Recipe
	// DecodeHook reads its hook payloads into the state machine's events;
	// nil when it has no hooks.
	DecodeHook hookstate.Decoder
	// HookRules are how its hooks drive the state machine.
	HookRules hookstate.Rules

	// Decisions are how it takes decisions from the phone: the hook events
	// that may carry one, how long they are held, what may be answered
	// and how. Zero: it takes none.
	Decisions hold.Policy
	// HoldFlag, when set, is the serve flag that sets how long its
	// decisions are held (0: never), overriding Decisions.Hold. Agents
	// may share a flag by naming the same one; the first one listed gives
	// its usage.
	HoldFlag *HoldFlag

	// Install is how `paddock hooks install` hooks it up: its config
	// directory and the files paddock edits there. Zero (no Dir): paddock
	// cannot install hooks into it.
	Install hookinstall.Spec

	// UI are the notes the dashboard shows about it.
	UI UI

	// Process is how its processes show in the process table: the
	// programs and packages that run its CLI, how its flags say whether a
	// run is its TUI and which session it names, and whether its scanner
	// binds a process by the history files it holds open. Its Runtime is
	// the agent's Name whatever it says (Registry.Processes sets it). Zero:
	// no process of it is recognised.
	Process procscan.CLI

	// NewUsage builds the reader of the token usage (and cost, where it
	// records one) its history holds, for internal/usage; nil: its
	// history records none.
	NewUsage func(Env) usage.Reader

	// Screen reads the approval and question dialogs its CLI draws in a
	// terminal paddock hosts, and says which keys answer them: the
	// fallback for dialogs its hooks cannot answer. Zero (no Parsers): no
	// dialogs were recorded, and none is read off its screen.
	Screen screendialog.Reader
}

// DirFlag is a serve flag naming an agent's directory.
type DirFlag struct {
	Name  string // the flag, without dashes ("claude-dir")
	Usage string
	// Default is the directory the agent itself would use, from its
	// environment variable or the home directory.
	Default func(getenv func(string) string) (string, error)
}

// UI are an agent's own notes on the dashboard; a zero field takes the
// dashboard's generic text.
type UI struct {
	// DeskOnly says why a prompt of this agent on the "needs you" strip
	// cannot be answered from the phone, and what would let it.
	DeskOnly string
	// Busy says how it takes a message typed during its turn.
	Busy string
	// ApprovalNote is shown on its approval cards; until is when the
	// hold ends, in words ("in 2 min").
	ApprovalNote func(until string) string
	// AllowLabel names the Allow button where allowing does something
	// else than approve; Allowed says what became of an allowed item.
	AllowLabel, Allowed string
	// Edit reads a tool call that changes a file (its tool name and input
	// as the history holds them), for the session page to show as a diff;
	// nil or false: shown as its input.
	Edit func(tool, input string) (FileEdit, bool)
}

// FileEdit is what a tool call changes in a file: Old and New text (the
// page diffs them; both "" is no change), or a Patch the agent wrote
// itself in a diff-like form.
type FileEdit struct {
	File     string
	Old, New []string // one entry per edit: MultiEdit makes several
	Patch    string
}

// HoldFlag is a serve flag setting how long an agent's decisions wait for
// the phone.
type HoldFlag struct {
	Name  string // without dashes ("codex-hold")
	Usage string
}

// MaxHold bounds every hold flag: no agent's hook waits longer than
// paddock's hooks are installed to (Claude Code's 600 s timeout).
const MaxHold = 10 * time.Minute

// Env is what an agent's scanner is built with.
type Env struct {
	// Dir is the agent's directory from its DirFlag; "" takes the agent's
	// own default.
	Dir string
	// Processes lists the running agent processes (one snapshot shared by
	// every agent's scanner); nil: no liveness.
	Processes func(ctx context.Context) ([]procscan.AgentProcess, error)
	// HostedSession names the session a paddock-hosted terminal runs,
	// for agents whose processes hide their arguments; nil: none.
	HostedSession func(terminalID string) (session.Key, bool)
	// Snapshots holds the private copies of the agents' SQLite databases
	// that scanners read instead of the files themselves; nil: each
	// scanner copies for every read and removes the copy after it.
	Snapshots *history.Snapshots
	Logger    *slog.Logger
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9]{0,31}$`)

// Registry is a list of agents, in display order. Build it with
// NewRegistry; it is read-only afterwards and safe for concurrent use.
type Registry struct {
	list   []Agent
	byName map[string]int
}

// NewRegistry checks the agents (a valid, unique name, a label and a
// scanner each) and lists them in the order given.
func NewRegistry(agents ...Agent) (*Registry, error) {
	r := &Registry{byName: make(map[string]int, len(agents))}
	for _, a := range agents {
		if !validName.MatchString(a.Name) {
			return nil, fmt.Errorf("agent: name %q is not lower-case letters and digits", a.Name)
		}
		if _, dup := r.byName[a.Name]; dup {
			return nil, fmt.Errorf("agent: %q is listed twice", a.Name)
		}
		if a.Label == "" || a.Product == "" {
			return nil, fmt.Errorf("agent: %q has no label or product name", a.Name)
		}
		if a.NewScanner == nil {
			return nil, fmt.Errorf("agent: %q has no scanner", a.Name)
		}
		if err := r.unclaimed(a); err != nil {
			return nil, err
		}
		r.byName[a.Name] = len(r.list)
		r.list = append(r.list, a)
	}
	if len(r.list) == 0 {
		return nil, errors.New("agent: a registry needs an agent")
	}
	return r, nil
}

// unclaimed checks that no agent listed before a claims one of its
// programs or packages: a command line must name one agent.
func (r *Registry) unclaimed(a Agent) error {
	for _, b := range r.list {
		for _, p := range a.Process.Programs {
			if slices.Contains(b.Process.Programs, p) {
				return fmt.Errorf("agent: %q and %q both run as program %q", b.Name, a.Name, p)
			}
		}
		for _, p := range a.Process.Packages {
			if slices.Contains(b.Process.Packages, p) {
				return fmt.Errorf("agent: %q and %q both ship in package %q", b.Name, a.Name, p)
			}
		}
	}
	return nil
}

// MustRegistry is NewRegistry for lists fixed in code, where an error is
// a programming mistake.
func MustRegistry(agents ...Agent) *Registry {
	r, err := NewRegistry(agents...)
	if err != nil {
		panic(err)
	}
	return r
}

// All lists the agents in display order. The slice is the caller's.
func (r *Registry) All() []Agent { return append([]Agent(nil), r.list...) }

// Get returns the agent called name.
func (r *Registry) Get(name string) (Agent, bool) {
	i, ok := r.byName[name]
	if !ok {
		return Agent{}, false
	}
	return r.list[i], true
}

// Names lists the agents' names in display order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.list))
	for i, a := range r.list {
		out[i] = a.Name
	}
	return out
}

// Label is name's short display name; an unknown name is shown as it is.
func (r *Registry) Label(name string) string {
	if a, ok := r.Get(name); ok {
		return a.Label
	}
	return name
}

// Product is name's full name; an unknown name is shown as it is.
func (r *Registry) Product(name string) string {
	if a, ok := r.Get(name); ok {
		return a.Product
	}
	return name
}

// Recipes are the launch recipes of the agents paddock can host, by name.
func (r *Registry) Recipes() map[string]launch.Recipe {
	out := make(map[string]launch.Recipe, len(r.list))
	for _, a := range r.list {
		if len(a.Launch.Bins) > 0 {
			out[a.Name] = a.Launch
		}
	}
	return out
}

// Screens are the screen dialog readers of the agents whose dialogs were
// recorded, by name.
func (r *Registry) Screens() screendialog.Readers {
	out := make(screendialog.Readers, len(r.list))
	for _, a := range r.list {
		if len(a.Screen.Parsers) > 0 {
			out[a.Name] = a.Screen
		}
	}
	return out
}

// Scanners builds every agent's scanner. dirs holds the DirFlag values by
// flag name (a missing one takes the agent's default).
func (r *Registry) Scanners(env Env, dirs map[string]string) []catalog.Scanner {
	out := make([]catalog.Scanner, 0, len(r.list))
	for _, a := range r.list {
		e := env
		if a.DirFlag != nil {
			e.Dir = dirs[a.DirFlag.Name]
		}
		out = append(out, a.NewScanner(e))
	}
	return out
}

// UsageReaders builds the usage readers of the agents whose histories
// record usage, by name. dirs are as for Scanners.
func (r *Registry) UsageReaders(env Env, dirs map[string]string) map[string]usage.Reader {
	out := make(map[string]usage.Reader, len(r.list))
	for _, a := range r.list {
		if a.NewUsage == nil {
			continue
		}
		e := env
		if a.DirFlag != nil {
			e.Dir = dirs[a.DirFlag.Name]
		}
		out[a.Name] = a.NewUsage(e)
	}
	return out
}

// Decoders are the hook decoders of the agents that have hooks.
func (r *Registry) Decoders() hookstate.Decoders {
	out := make(hookstate.Decoders, len(r.list))
	for _, a := range r.list {
		if a.DecodeHook != nil {
			out[a.Name] = a.DecodeHook
		}
	}
	return out
}

// HookRules are every agent's state-machine rules, by name.
func (r *Registry) HookRules() map[string]hookstate.Rules {
	out := make(map[string]hookstate.Rules, len(r.list))
	for _, a := range r.list {
		out[a.Name] = a.HookRules
	}
	return out
}

// UIOf is name's dashboard notes (zero for an unknown agent).
func (r *Registry) UIOf(name string) UI {
	a, _ := r.Get(name)
	return a.UI
}

// Policies are every agent's decision policy, by name.
func (r *Registry) Policies() map[string]hold.Policy {
	out := make(map[string]hold.Policy, len(r.list))
	for _, a := range r.list {
		out[a.Name] = a.Decisions
	}
	return out
}

// MayDecide says whether name's agent takes the answer to its hook event
// as a decision: the only case `paddock hook` may print.
func (r *Registry) MayDecide(name, event string) bool {
	a, ok := r.Get(name)
	return ok && slices.Contains(a.Decisions.Events, event)
}

// MayHold says, from its payload, whether name's agent's decision event
// may be held for the phone: only then may the relay wait past the
// fail-open budget.
func (r *Registry) MayHold(name, event string, payload []byte) bool {
	a, ok := r.Get(name)
	if !ok || !slices.Contains(a.Decisions.Events, event) {
		return false
	}
	return a.Decisions.MayHold == nil || a.Decisions.MayHold(event, payload)
}

// Scope spells out what "always" grants for an item of name's agent with
// these suggestions; "" when its policy cannot say.
func (r *Registry) Scope(name string, suggestions json.RawMessage) string {
	a, ok := r.Get(name)
	if !ok || a.Decisions.Scope == nil {
		return ""
	}
	return a.Decisions.Scope(suggestions)
}

// HoldFlags are the distinct hold flags, in the order the agents list
// them, with the usage of the first agent naming each.
func (r *Registry) HoldFlags() []HoldFlag {
	var out []HoldFlag
	seen := map[string]bool{}
	for _, a := range r.list {
		if f := a.HoldFlag; f != nil && !seen[f.Name] {
			seen[f.Name] = true
			out = append(out, *f)
		}
	}
	return out
}

// DefaultHold is the hold of the first agent naming flag: the flag's
// default.
func (r *Registry) DefaultHold(flag string) time.Duration {
	for _, a := range r.list {
		if a.HoldFlag != nil && a.HoldFlag.Name == flag {
			return a.Decisions.Hold
		}
	}
	return 0
}

// Holds maps hold flag values (by flag name) to the agents that take
// them, for hold.Options.Holds. A flag not in flags leaves its
// agents at their default hold.
func (r *Registry) Holds(flags map[string]time.Duration) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, a := range r.list {
		if f := a.HoldFlag; f != nil {
			if d, ok := flags[f.Name]; ok {
				out[a.Name] = d
			}
		}
	}
	return out
}

// InstallSpecs are the hook-install specs of the agents that have one,
// named after them.
func (r *Registry) InstallSpecs() []hookinstall.Spec {
	var out []hookinstall.Spec
	for _, a := range r.list {
		if a.Install.Dir != nil {
			s := a.Install
			s.Name, s.Title = a.Name, a.Product
			out = append(out, s)
		}
	}
	return out
}

// HoldsHistoryOpen reports whether name's scanner binds processes by the
// files they hold open (its Process.HoldsHistoryOpen), for
// procscan.Fingerprints.
func (r *Registry) HoldsHistoryOpen(name string) bool {
	a, ok := r.Get(name)
	return ok && a.Process.HoldsHistoryOpen
}

// Processes recognises every agent's processes, each CLI under its
// agent's name.
func (r *Registry) Processes() *procscan.Matcher {
	clis := make([]procscan.CLI, len(r.list))
	for i, a := range r.list {
		clis[i] = a.Process
		clis[i].Runtime = a.Name
	}
	return procscan.NewMatcher(clis...)
}

// Home is $HOME, else the user's home directory, read through getenv:
// where agents keep their directories by default.
func Home(getenv func(string) string) (string, error) {
	if h := getenv("HOME"); h != "" {
		return h, nil
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return "", errors.New("cannot find the home directory; set HOME")
	}
	return h, nil
}
