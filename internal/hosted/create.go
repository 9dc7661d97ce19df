package hosted

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"paddock/internal/launch"
	"paddock/internal/live"
	"paddock/internal/session"
	"paddock/internal/tmux"
)

// Request is a new hosted session.
type Request struct {
	Runtime        string `json:"runtime"`
	Workdir        string `json:"workdir"`
	Name           string `json:"name,omitempty"`
	Prompt         string `json:"prompt,omitempty"`
	PermissionMode string `json:"permission_mode,omitempty"`
	Model          string `json:"model,omitempty"`
	Effort         string `json:"effort,omitempty"`
	// Parent is the session ("runtime:id") this one is started from: the
	// board groups it under that card.
	Parent string `json:"parent,omitempty"`
	// Reuse: an idle session paddock hosts for the same agent in the same
	// directory takes the prompt instead of a new one starting; a new one
	// starts when there is none.
	Reuse bool `json:"reuse,omitempty"`
}

func (r Request) launch() Launch {
	return Launch{Runtime: r.Runtime, Workdir: r.Workdir, Name: r.Name, PermissionMode: r.PermissionMode, Model: r.Model, Effort: r.Effort}
}

// Created is the answer to Create.
type Created struct {
	Key        session.Key `json:"-"`
	TerminalID string      `json:"terminal_id"`
	Prompt     *Delivery   `json:"prompt,omitempty"`
	// Fresh: a resume the CLI refused, replaced by a new agent on the
	// same card.
	Fresh bool `json:"fresh,omitempty"`
	// Reused: the prompt went to an idle session already running in the
	// directory (Request.Reuse) instead of a new one.
	Reused bool `json:"reused,omitempty"`
}

// maxName bounds a session's name.
const maxName = 100

// check validates a request and finds the agent's executable.
func (m *Manager) check(r *Request) (launch.Recipe, string, error) {
	rc, ok := m.opts.Recipes[r.Runtime]
	if !ok {
		return rc, "", invalid("unknown agent %q; one of %s", r.Runtime, strings.Join(m.Runtimes(), ", "))
	}
	bin := m.bin(rc)
	if bin == "" {
		return rc, "", fmt.Errorf("%w: %s (%s is not on paddock's PATH)", ErrNotInstalled, r.Runtime, strings.Join(rc.Bins, ", "))
	}
	if !filepath.IsAbs(r.Workdir) {
		return rc, "", invalid("the working directory must be an absolute path")
	}
	r.Workdir = filepath.Clean(r.Workdir)
	if st, err := os.Stat(r.Workdir); err != nil || !st.IsDir() {
		return rc, "", invalid("%s is not an existing directory", r.Workdir)
	}
	if r.PermissionMode != "" && !slices.Contains(rc.Modes, r.PermissionMode) {
		if len(rc.Modes) == 0 {
			return rc, "", invalid("%s takes no permission mode from paddock", r.Runtime)
		}
		return rc, "", invalid("permission mode %q is not one of %s", r.PermissionMode, strings.Join(rc.Modes, ", "))
	}
	if r.Effort != "" && !slices.Contains(rc.Efforts, r.Effort) {
		if len(rc.Efforts) == 0 {
			return rc, "", invalid("%s takes no effort level", r.Runtime)
		}
		return rc, "", invalid("effort %q is not one of %s", r.Effort, strings.Join(rc.Efforts, ", "))
	}
	if r.Model != "" && (len(r.Model) > 200 || strings.ContainsAny(r.Model, " \t\n\x00") || strings.HasPrefix(r.Model, "-")) {
		return rc, "", invalid("the model name is not valid")
	}
	r.Name = strings.TrimSpace(r.Name)
	if r.Name != "" {
		if err := checkText(r.Name); err != nil || strings.ContainsAny(r.Name, "\n\t") || utf8.RuneCountInString(r.Name) > maxName || strings.HasPrefix(r.Name, "-") {
			return rc, "", invalid("the name must be one line of at most %d characters, not starting with '-'", maxName)
		}
	}
	if r.Parent != "" {
		rt, id, ok := strings.Cut(r.Parent, ":")
		if _, known := m.opts.Recipes[rt]; !ok || !known || id == "" || len(id) > 200 {
			return rc, "", invalid("the parent session must be given as runtime:id")
		}
	}
	if err := checkText(r.Prompt); err != nil {
		return rc, "", err
	}
	return rc, bin, nil
}

// Create starts an agent in a new hosted terminal and, when the request has
// a prompt, sends it once the agent's input is ready. With Reuse, an idle
// hosted session of the same agent in the same directory takes the prompt
// instead.
func (m *Manager) Create(ctx context.Context, r Request) (Created, error) {
	rc, bin, err := m.check(&r)
	if err != nil {
		return Created{}, err
	}
	if r.Reuse {
		if out, ok, err := m.reuse(ctx, r); ok || err != nil {
			return out, err
		}
	}
	id := newTerminalID()
	var sid string
	if rc.ChoosesID {
		sid = newUUID()
	}
	l := r.launch()
	argv, err := commandLine(rc, bin, rc.Fresh(sid), l)
	if err != nil {
		return Created{}, err
	}
	env := []string{"PADDOCK_TERMINAL_ID=" + id}
	if sid != "" {
		env = append(env, "PADDOCK_SESSION_ID="+sid)
	}
	lt := live.Terminal{ID: id, Runtime: r.Runtime, Cwd: r.Workdir, SessionID: sid, Launch: l.encode(), Name: r.Name}
	if rt, pid, ok := strings.Cut(r.Parent, ":"); ok {
		lt.Parent = session.Key{Runtime: rt, ID: pid}
	}
	t, key, err := m.start(ctx, id, r.Workdir, argv, env, lt, session.Key{})
	if err != nil {
		return Created{}, err
	}
	out := Created{Key: key, TerminalID: id}
	if r.Prompt != "" {
		d, err := m.sendInitial(ctx, t, r.Prompt)
		if err != nil {
			return out, err
		}
		out.Prompt = &d
		if c, ok := m.opts.Live.ByTerminal(id); ok {
			out.Key = c.Key
		}
	}
	return out, nil
}

// start opens the window and registers it with the live state: a new card
// in connecting, or, when onto is set, the existing card onto (a restart or
// re-attach). It remembers the terminal. On failure nothing is left behind.
func (m *Manager) start(ctx context.Context, id, dir string, argv, env []string, lt live.Terminal, onto session.Key) (*terminal, session.Key, error) {
	pane, err := m.opts.Terminals.NewWindow(ctx, tmux.Window{Name: id, Dir: dir, Env: env, Argv: argv})
	if err != nil {
		return nil, session.Key{}, fmt.Errorf("hosted: starting %s: %w", lt.Runtime, err)
	}
	lt.ShellPID, lt.TmuxPane = pane.PID, pane.ID
	var key session.Key
	if onto.ID != "" {
		key, err = m.opts.Live.Adopt(ctx, lt, onto)
	} else {
		key, err = m.opts.Live.Host(ctx, lt)
	}
	if err != nil {
		// No half-created card: the window goes too.
		_ = m.opts.Terminals.Kill(context.WithoutCancel(ctx), pane)
		return nil, session.Key{}, fmt.Errorf("hosted: registering %s: %w", lt.Runtime, err)
	}
	t := &terminal{id: id, runtime: lt.Runtime, cwd: dir, pane: pane, started: time.Now(), argv: argv}
	m.mu.Lock()
	m.terms[id] = t
	m.mu.Unlock()
	m.save(ctx, t, key, lt.Resume)
	m.log.Info("hosted session started", "runtime", lt.Runtime, "terminal", id, "pane", pane.String(), "pid", pane.PID, "resume", lt.Resume)
	return t, key, nil
}
