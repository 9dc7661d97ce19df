// Package hookinstall edits each coding agent's own hook configuration so
// that the agent's hooks call paddock (`paddock hooks install`), and takes
// that edit out again (`uninstall`); `status` says what is installed.
//
// It must never change anything in a user's config but paddock's own
// entries: other content is kept byte for byte (JSON and TOML are edited in
// place, never re-encoded), each change is preceded by a timestamped backup
// (<file>.paddock-backup-<time>) and lands by an atomic rename that keeps
// the file's mode, a config that does not parse is left alone with an error
// naming the file and line, and a dry run writes nothing. It never starts,
// stops or talks to an agent, and it writes no file but the agents' own
// config files (their config directories, and Claude Code's .claude.json,
// which holds its MCP servers).
//
// What paddock installs for each agent — which files, which events — is
// that agent's Spec, in its own package (internal/agent/<name>): this
// package is the engine (plan, diff, backup, atomic replace, status) and
// the editors it offers them (jsonedit, tomlscan, whole files).
//
// Hooks run the relay command rather than posting to paddock's listener:
// the relay reads the listener's secret from paddock's data dir (a 0600
// file), so the secret is never written into an agent's config, which users
// copy into dotfiles repositories and which the agent itself reads; the
// relay also fails open silently when paddock is down, where a failing http
// hook is reported by the agent. Http hooks are an opt-in
// (Options.HTTPHooks) for the latency-sensitive events of the agents that
// have them.
package hookinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options say which paddock the hooks call, which agents it hooks into and
// where their configs are.
type Options struct {
	// Specs are the agents paddock can hook into, in display order
	// (required).
	Specs    []Spec
	Binary   string // absolute path of the paddock binary the hooks run
	DataDir  string // paddock's data dir, passed to the relay as --data-dir; empty leaves it out
	HookPort int    // port of the loopback hook listener (used by ClaudeHTTP)
	Home     string // home directory; default $HOME
	Env      func(string) string
	Now      func() time.Time // names backups; default time.Now

	// HTTPHooks gives the agents that can post straight to the listener
	// (Claude Code's "type":"http" hooks) http hooks for their
	// latency-sensitive events, posting to http://127.0.0.1:HookPort/hook/NAME
	// (no process per event) with Secret in an X-Paddock-Secret header.
	// The agent expands header variables only from the environment, and
	// the secret must not be in every process's environment, so the secret
	// is written literally into its config and the file is kept at 0600.
	// Off by default: see the package comment.
	HTTPHooks bool
	Secret    string

	// MCP also registers paddock's MCP server (`paddock mcp`) with each
	// agent that takes MCP servers, in that agent's own MCP config.
	MCP bool
}

// Env is Options with defaults applied and checked: what an agent's Spec
// builds its targets from.
type Env struct {
	specs           []Spec
	binary, dataDir string
	hookPort        int
	home            string
	env             func(string) string
	now             func() time.Time
	httpHooks       bool
	secret          string
	mcp             bool
}

// Resolve checks o and applies its defaults: the Env every Spec is given.
func Resolve(o Options) (*Env, error) { return resolve(o) }

func resolve(o Options) (*Env, error) {
	if len(o.Specs) == 0 {
		return nil, errors.New("hookinstall: no agent to hook into (Options.Specs)")
	}
	r := &Env{specs: o.Specs, binary: o.Binary, dataDir: o.DataDir, hookPort: o.HookPort, home: o.Home, env: o.Env, now: o.Now, httpHooks: o.HTTPHooks, secret: o.Secret, mcp: o.MCP}
	if r.env == nil {
		r.env = os.Getenv
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.binary == "" || !filepath.IsAbs(r.binary) {
		return nil, fmt.Errorf("hookinstall: the paddock binary must be an absolute path, got %q", r.binary)
	}
	r.binary = filepath.Clean(r.binary)
	if r.dataDir != "" {
		if !filepath.IsAbs(r.dataDir) {
			return nil, fmt.Errorf("hookinstall: the data dir must be an absolute path, got %q", r.dataDir)
		}
		r.dataDir = filepath.Clean(r.dataDir)
	}
	if r.home == "" {
		r.home = r.env("HOME")
	}
	if r.home == "" {
		h, err := os.UserHomeDir()
		if err != nil || h == "" {
			return nil, errors.New("hookinstall: cannot find the home directory; set HOME")
		}
		r.home = h
	}
	if r.httpHooks {
		if r.hookPort <= 0 || r.hookPort > 65535 {
			return nil, fmt.Errorf("hookinstall: HTTPHooks needs the hook listener's port, got %d", r.hookPort)
		}
		if r.secret == "" || strings.ContainsAny(r.secret, "$\r\n") {
			return nil, errors.New("hookinstall: HTTPHooks needs the hook secret (no '$' or line breaks)")
		}
	}
	return r, nil
}

// Action is what happens to one file.
type Action string

const (
	ActionNone   Action = "unchanged"
	ActionCreate Action = "create"
	ActionUpdate Action = "update"
	ActionDelete Action = "delete"
)

// FileChange is one file of a plan, and after Install/Uninstall what was done.
type FileChange struct {
	Path    string
	Action  Action
	Diff    string // unified diff; empty when unchanged
	Backup  string // the backup written before the change (not in a dry run)
	Ours    int    // paddock entries the file held before
	Foreign int    // other hook entries in it, kept as they are
	old     []byte
	new     []byte
	mode    fs.FileMode
}

// InstallPlan is what Install (or Uninstall) would do to one runtime.
type InstallPlan struct {
	Runtime string
	Dir     string // the agent's config dir
	Absent  bool   // the agent's config dir does not exist: nothing to do
	Files   []FileChange
	Notes   []string
}

// Changed says whether the plan writes anything.
func (p InstallPlan) Changed() bool {
	for _, f := range p.Files {
		if f.Action != ActionNone {
			return true
		}
	}
	return false
}

// Diff is the unified diff of every file the plan changes.
func (p InstallPlan) Diff() string {
	var b strings.Builder
	for _, f := range p.Files {
		b.WriteString(f.Diff)
	}
	return b.String()
}

// Plan computes what installing paddock's hooks into runtime would change,
// without writing anything.
func Plan(opts Options, runtime string) (InstallPlan, error) {
	return planFor(opts, runtime, true)
}

// PlanUninstall computes what removing paddock's hooks would change.
func PlanUninstall(opts Options, runtime string) (InstallPlan, error) {
	return planFor(opts, runtime, false)
}

func planFor(opts Options, runtime string, install bool) (InstallPlan, error) {
	o, err := resolve(opts)
	if err != nil {
		return InstallPlan{}, err
	}
	s, ok := o.spec(runtime)
	if !ok {
		return InstallPlan{}, o.unknownRuntime(runtime)
	}
	return o.plan(s, install)
}

func (o *Env) plan(s *Spec, install bool) (InstallPlan, error) {
	p := InstallPlan{Runtime: s.Name, Dir: s.Dir(o)}
	if st, err := os.Stat(p.Dir); err != nil || !st.IsDir() {
		p.Absent = true
		p.Notes = []string{fmt.Sprintf("%s is not installed for this user (no %s): skipped", s.Title, p.Dir)}
		return p, nil
	}
	for _, t := range s.Targets(o, p.Dir, install) {
		fc, notes, err := o.planFile(t, install)
		if err != nil {
			// one file that cannot be edited stops the runtime: no half
			// install (Codex's hooks.json without its config.toml)
			return InstallPlan{Runtime: s.Name, Dir: p.Dir}, err
		}
		p.Files = append(p.Files, fc)
		p.Notes = append(p.Notes, notes...)
	}
	if install {
		p.Notes = append(p.Notes, s.Notes(o)...)
	}
	return p, nil
}

func (o *Env) planFile(t Target, install bool) (FileChange, []string, error) {
	fc := FileChange{Path: t.Path, mode: t.Mode}
	old, exists, err := readConfig(t.Path)
	if err != nil {
		return fc, nil, err
	}
	fc.old = old
	if exists {
		if st, err := os.Stat(t.Path); err == nil {
			fc.mode = st.Mode().Perm()
		}
	}
	if !exists && !install {
		fc.Action = ActionNone
		return fc, nil, nil
	}
	src := old
	if !exists {
		src = t.Base
	}
	res, err := t.Edit(src, exists, install)
	if err != nil {
		var se syntaxError
		if errors.As(err, &se) {
			line, col := se.Position()
			return fc, nil, fmt.Errorf("%s:%d:%d does not parse (%s); left unchanged", t.Path, line, col, se.Reason())
		}
		return fc, nil, fmt.Errorf("%s: %w; left unchanged", t.Path, err)
	}
	fc.Ours, fc.Foreign = res.Ours, res.Foreign
	if res.Secret {
		fc.mode &^= 0o077
	}
	newExists := !res.Remove
	if exists && !install && t.Base != nil && bytes.Equal(res.Out, t.Base) && !isSymlink(t.Path) {
		// nothing left but what paddock created; a symlink (dotfiles)
		// keeps its target, which gets the remainder written instead
		newExists = false
	}
	switch {
	case !exists && !newExists:
		fc.Action = ActionNone
	case !exists:
		fc.Action = ActionCreate
		if t.Base != nil && bytes.Equal(res.Out, t.Base) {
			fc.Action = ActionNone
		}
	case !newExists:
		fc.Action = ActionDelete
	case !bytes.Equal(old, res.Out):
		fc.Action = ActionUpdate
	case res.Secret && fileMode(t.Path)&0o077 != 0:
		fc.Action = ActionUpdate // same bytes, but the secret needs a 0600 file
	default:
		fc.Action = ActionNone
	}
	if newExists {
		fc.new = res.Out
	}
	if fc.Action != ActionNone {
		fc.Diff = unifiedDiff(t.Path, old, fc.new, exists, newExists)
	}
	return fc, res.Notes, nil
}

func isSymlink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

func fileMode(path string) fs.FileMode {
	if st, err := os.Stat(path); err == nil {
		return st.Mode().Perm()
	}
	return 0
}

// apply writes a plan: for each changed file a backup of the old content,
// then the atomic replacement (or removal).
func (o *Env) apply(p *InstallPlan) error {
	for i := range p.Files {
		f := &p.Files[i]
		switch f.Action {
		case ActionNone:
			continue
		case ActionCreate:
			// the agent's dir exists (checked by plan); a plugin subdir may not
			if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
				return err
			}
			if err := writeAtomic(f.Path, f.new, f.mode, nil, false); err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
			continue
		}
		if err := unchangedSince(f.Path, f.old, true); err != nil {
			return err
		}
		b, err := writeBackup(f.Path, f.old, fileMode(f.Path), o.now())
		if err != nil {
			return fmt.Errorf("%s: backup failed, nothing written: %w", f.Path, err)
		}
		f.Backup = b
		if f.Action == ActionDelete {
			err = removeFile(f.Path, f.old)
		} else {
			err = writeAtomic(f.Path, f.new, f.mode, f.old, true)
		}
		if err != nil {
			return fmt.Errorf("%s: %w (the backup %s stays)", f.Path, err, b)
		}
	}
	return nil
}

// Result is what Install or Uninstall did to one runtime.
type Result struct {
	Runtime   string
	Uninstall bool
	DryRun    bool
	Skipped   bool // the agent is not installed for this user
	Changed   bool // files were (in a dry run: would be) written
	Files     []FileChange
	Notes     []string
	Err       error
}

// Summary is one line for the command line.
func (r Result) Summary() string {
	var files []string
	for _, f := range r.Files {
		if f.Action != ActionNone {
			s := string(f.Action) + " " + f.Path
			if f.Backup != "" {
				s += " (backup " + filepath.Base(f.Backup) + ")"
			}
			files = append(files, s)
		}
	}
	switch {
	case r.Err != nil:
		return r.Runtime + ": " + r.Err.Error()
	case r.Skipped:
		return r.Runtime + ": skipped, not installed for this user"
	case !r.Changed && r.Uninstall:
		return r.Runtime + ": nothing to remove"
	case !r.Changed:
		return r.Runtime + ": already installed"
	case r.DryRun:
		return r.Runtime + ": would " + strings.Join(files, ", ")
	}
	return r.Runtime + ": " + strings.Join(files, ", ")
}

// Install adds paddock's hooks to each runtime ("all", or none given: every
// runtime whose config dir exists). Runtimes are independent: one with a
// broken config is reported in its Result.Err and the returned error, and
// the others are still installed. In a dry run nothing is written and the
// results carry the diffs.
func Install(opts Options, runtimes []string, dryRun bool) ([]Result, error) {
	return run(opts, runtimes, dryRun, true)
}

// Uninstall removes paddock's hooks, and only paddock's, from each runtime.
func Uninstall(opts Options, runtimes []string, dryRun bool) ([]Result, error) {
	return run(opts, runtimes, dryRun, false)
}

func run(opts Options, runtimes []string, dryRun, install bool) ([]Result, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	list, err := o.expand(runtimes, false)
	if err != nil {
		return nil, err
	}
	var out []Result
	var errs []error
	for _, s := range list {
		r := Result{Runtime: s.Name, Uninstall: !install, DryRun: dryRun}
		p, err := o.plan(s, install)
		r.Files, r.Notes = p.Files, p.Notes
		switch {
		case err != nil:
			r.Err = err
		case p.Absent:
			r.Skipped = true
		default:
			r.Changed = p.Changed()
			if r.Changed && !dryRun {
				r.Err = o.apply(&p)
				r.Files = p.Files
			}
		}
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, r.Err))
		}
		out = append(out, r)
	}
	return out, errors.Join(errs...)
}

// expand turns runtime names into specs. "all" (or no names) is every
// runtime whose config dir exists; for status, every runtime.
func (o *Env) expand(names []string, status bool) ([]*Spec, error) {
	if len(names) == 0 {
		names = []string{"all"}
	}
	var out []*Spec
	add := func(s *Spec) {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, n := range names {
		if n == "all" {
			for i := range o.specs {
				s := &o.specs[i]
				if st, err := os.Stat(s.Dir(o)); status || err == nil && st.IsDir() {
					add(s)
				}
			}
			continue
		}
		s, ok := o.spec(n)
		if !ok {
			return nil, o.unknownRuntime(n)
		}
		add(s)
	}
	return out, nil
}

func (o *Env) spec(name string) (*Spec, bool) {
	for i := range o.specs {
		if o.specs[i].Name == name {
			return &o.specs[i], true
		}
	}
	return nil, false
}

func (o *Env) unknownRuntime(n string) error {
	names := make([]string, len(o.specs))
	for i, s := range o.specs {
		names[i] = s.Name
	}
	return fmt.Errorf("hookinstall: unknown runtime %q (known: %s, all)", n, strings.Join(names, ", "))
}

// syntaxError is what the editors (jsonedit, tomlscan) return for a
// config that does not parse.
type syntaxError interface {
	error
	Position() (line, col int)
	Reason() string
}

// State is how far paddock's hooks are installed in one runtime.
type State string

const (
	StateInstalled    State = "installed"     // every wanted entry is there, as install would write it
	StatePartial      State = "partial"       // some are there, or they are outdated; install would change files
	StateNotInstalled State = "not installed" // no paddock entry
	StateAbsent       State = "agent absent"  // the agent's config dir does not exist
)

// RuntimeStatus is what Status found for one runtime.
type RuntimeStatus struct {
	Runtime string
	Dir     string
	State   State
	Files   []FileChange // per config file: paddock's and foreign entries, and what install would change
	Ours    int          // paddock entries found
	Foreign int          // other hook entries, which paddock keeps
	Notes   []string     // e.g. Codex's trust step, a foreign notify
	Err     error        // the config does not parse
}

// Status reports, per runtime ("all" or none: every runtime), whether
// paddock's hooks are installed, without writing anything.
func Status(opts Options, runtimes []string) ([]RuntimeStatus, error) {
	o, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	list, err := o.expand(runtimes, true)
	if err != nil {
		return nil, err
	}
	var out []RuntimeStatus
	var errs []error
	for _, s := range list {
		st := RuntimeStatus{Runtime: s.Name}
		p, err := o.plan(s, true)
		st.Dir, st.Files, st.Notes = p.Dir, p.Files, p.Notes
		for _, f := range p.Files {
			st.Ours += f.Ours
			st.Foreign += f.Foreign
		}
		switch {
		case err != nil:
			st.Err = err
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
		case p.Absent:
			st.State = StateAbsent
		case st.Ours == 0:
			st.State = StateNotInstalled
		case p.Changed():
			st.State = StatePartial
		default:
			st.State = StateInstalled
		}
		out = append(out, st)
	}
	return out, errors.Join(errs...)
}

// Installer is Status, Plan and Install of one runtime over fixed
// Options, for a caller that offers them one agent at a time (the
// settings page).
type Installer struct{ Options Options }

// Status is Status of every runtime.
func (i Installer) Status() ([]RuntimeStatus, error) { return Status(i.Options, nil) }

// Plan is Plan of one runtime.
func (i Installer) Plan(runtime string) (InstallPlan, error) { return Plan(i.Options, runtime) }

// Install is Install of one runtime, not a dry run.
func (i Installer) Install(runtime string) (Result, error) {
	res, err := Install(i.Options, []string{runtime}, false)
	if len(res) != 1 {
		return Result{}, errors.Join(err, fmt.Errorf("hookinstall: no result for %s", runtime))
	}
	return res[0], err
}
