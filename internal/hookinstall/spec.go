package hookinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/hookinstall/jsonedit"
)

// Spec is how paddock hooks into one agent: where its config lives,
// which files it edits there, and what the user should know afterwards.
// Each agent's package states its own (internal/agent/<name>).
type Spec struct {
	Name  string // the agent, as `--runtime NAME` and in the relay command
	Title string // its name in messages ("Claude Code")
	// Dir is the agent's config directory; an agent whose directory does
	// not exist is not installed for this user and is skipped.
	Dir func(e *Env) string
	// Targets are the files paddock edits there; install says which way
	// (an uninstall also looks where an install would not write).
	Targets func(e *Env, dir string, install bool) []Target
	// Notes are shown after an install (restart the agent, trust steps).
	Notes func(e *Env) []string
}

// Target is one file paddock edits.
type Target struct {
	Path string
	// Base is what Edit starts from when the file is absent; an uninstall
	// that leaves exactly Base removes the file again.
	Base []byte
	Mode os.FileMode // of a file paddock creates
	// Edit is the file's new content: paddock's entries added (install)
	// or taken out, everything else kept byte for byte.
	Edit func(src []byte, exists, install bool) (Edit, error)
}

// Edit is a file's new content and what was found in the old one.
type Edit struct {
	Out     []byte
	Remove  bool // the file should not exist afterwards
	Ours    int  // paddock entries found
	Foreign int  // other entries found (kept)
	Notes   []string
	Secret  bool // Out holds paddock's hook secret: keep the file 0600
}

// Timeouts, in seconds, that the installed hooks give the relay.
const (
	StatusTimeout   = 10  // the relay itself gives up within 100 ms
	DecisionTimeout = 600 // events paddock may hold for a phone answer
)

// PostTimeout, in seconds, is what an agent that posts a hook straight to
// the listener (no relay process) waits for it: the relay's own budget, so
// that a hung or slow paddock costs such an event no more than the relay
// would. Only events paddock never holds are posted this way.
const PostTimeout = 0.095

// EnvDir is $name made absolute (relative to the home directory) if set,
// else home/rel: how most agents find their config directory.
func (e *Env) EnvDir(name string, rel ...string) string {
	if d := e.env(name); d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(e.home, d)
		}
		return filepath.Clean(d)
	}
	return filepath.Join(append([]string{e.home}, rel...)...)
}

// Home is the home directory the agents' configs are found under.
func (e *Env) Home() string { return e.home }

// Getenv reads the environment the agents would see.
func (e *Env) Getenv(name string) string { return e.env(name) }

// HTTPHooks says whether agents that can post straight to paddock's
// listener should (Options.HTTPHooks); HookPort and Secret are then set.
func (e *Env) HTTPHooks() bool { return e.httpHooks }

// HookPort is the loopback listener's port.
func (e *Env) HookPort() int { return e.hookPort }

// Secret is the listener's secret, for HTTPHooks.
func (e *Env) Secret() string { return e.secret }

// Fill puts the relay's path and arguments into a plugin source as JS
// literals (JSON strings are JS strings): the placeholders
// __PADDOCK_BIN__ and __PADDOCK_ARGS__.
func (e *Env) Fill(src, runtime string) []byte {
	bin, _ := json.Marshal(e.binary)
	args, _ := json.Marshal(e.RelayArgv(runtime)[1:])
	return []byte(strings.NewReplacer("__PADDOCK_BIN__", string(bin), "__PADDOCK_ARGS__", string(args)).Replace(src))
}

// JSONEdit is the Edit of a JSON hook file by h.
func JSONEdit(h *jsonedit.Hooks, src []byte, install bool) (Edit, error) {
	r, err := h.Edit(src, install)
	if err != nil {
		return Edit{}, err
	}
	return Edit{Out: r.Out, Ours: r.Ours, Foreign: r.Foreign}, nil
}

// WholeFile manages a file that is entirely paddock's: recognised by
// marker, written whole, removed on uninstall; a file of that name without
// the marker is someone else's and is never touched.
func WholeFile(content []byte, marker string) func([]byte, bool, bool) (Edit, error) {
	return func(src []byte, exists, install bool) (Edit, error) {
		if exists && !bytes.Contains(src, []byte(marker)) {
			if install {
				return Edit{}, fmt.Errorf("the file exists and is not paddock's (no %q marker)", marker)
			}
			return Edit{Out: src, Foreign: 1}, nil
		}
		res := Edit{}
		if exists {
			res.Ours = 1
		}
		if install {
			res.Out = content
		} else {
			res.Remove = true
		}
		return res, nil
	}
}

// PluginTargets is the file name in the first of subdirs that holds it,
// else in the first subdir that exists, else in subdirs[0]; uninstall and
// status also look at the others.
func PluginTargets(dir string, subdirs []string, name string, edit func([]byte, bool, bool) (Edit, error), install bool) []Target {
	var have []Target
	for _, sd := range subdirs {
		p := filepath.Join(dir, sd, name)
		if _, err := os.Lstat(p); err == nil {
			have = append(have, Target{Path: p, Mode: 0o600, Edit: edit})
		}
	}
	if len(have) > 0 {
		if install {
			return have[:1]
		}
		return have
	}
	sd := subdirs[0]
	for _, c := range subdirs {
		if st, err := os.Stat(filepath.Join(dir, c)); err == nil && st.IsDir() {
			sd = c
			break
		}
	}
	return []Target{{Path: filepath.Join(dir, sd, name), Mode: 0o600, Edit: edit}}
}
