package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/hookinstall"
	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/tmux"
)

// demo is everything one run started; close stops it all.
type demo struct {
	root  string // the throw-away directory: home/, bin/, logs
	home  string // the fake HOME every agent and paddock share
	data  string // paddock's data dir ($PADDOCK_HOME)
	keep  bool
	mock  *mockmodel.Server
	serve *serveProc
	api   *api
	log   io.Writer // progress messages
}

// playTimeout bounds one scenario: starting a CLI and typing its prompts
// against the mock takes seconds (OpenCode's first start the longest).
const playTimeout = 2 * time.Minute

// started is one scenario's session.
type started struct {
	scenario
	setup  *agentenv.Setup
	hosted *hostedSession
	err    error
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) (err error) {
	begin := time.Now()
	root, err := os.MkdirTemp("", "paddock-demo-")
	if err != nil {
		return err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return err
	}
	d := &demo{root: root, home: filepath.Join(root, "home"), keep: cfg.Keep, log: stderr}
	d.data = filepath.Join(d.home, ".local", "share", "paddock")
	defer func() {
		stopping := time.Now()
		cerr := d.close()
		if cerr == nil && ctx.Err() != nil {
			fmt.Fprintf(stderr, "paddock-demo: stopped everything in %s\n", time.Since(stopping).Round(100*time.Millisecond))
		}
		if err == nil {
			err = cerr
		}
	}()
	// The mock and the agents outlive a first Ctrl-C only as long as close
	// takes; close stops them in order.
	bg := context.WithoutCancel(ctx)

	bin := cfg.Paddock
	if bin == "" {
		fmt.Fprintln(stderr, "paddock-demo: building paddock…")
		if bin, err = buildPaddock(ctx, filepath.Join(root, "bin")); err != nil {
			return err
		}
	}
	if d.mock, err = mockmodel.Start(bg, mockmodel.Options{}); err != nil {
		return err
	}
	env := agentenv.BaseEnv(d.home, username())

	// Set every installed agent up in the shared HOME.
	var sessions []*started
	for _, s := range selectScenarios(scenarios, cfg.Only) {
		setup, err := agentenv.New(s.CLI, agentenv.Config{Home: d.home, Cwd: filepath.Join(d.home, s.Name), ModelURL: d.mock.URL()})
		var missing *agentenv.MissingError
		if errors.As(err, &missing) {
			fmt.Fprintf(stderr, "paddock-demo: skipping %s: %v\n", s.Name, err)
			continue
		}
		if err != nil {
			return err
		}
		sessions = append(sessions, &started{scenario: s, setup: setup})
	}
	if len(sessions) == 0 {
		return errors.New("no agent CLI is installed: run `make e2e-deps` first")
	}
	// Set paddock's own environment before the hooks, so that the relay
	// the agents run finds the same data dir.
	env = append(env, "PADDOCK_HOME="+d.data)
	// paddock starts agents too (+ New session, Resume): they inherit its
	// environment, so it gets the agents' own (their mock model's address
	// and keys) and their CLIs on its PATH.
	serveEnv := withAgents(env, sessions)

	// paddock's hooks, so its live state shows too; the relay must work,
	// or Claude would read a failing hook as "block this prompt". Installed
	// before serve starts, which then has no first-run advice to print.
	if relayWorks(ctx, bin, d.data, env) {
		d.installHooks(bin, sessions)
	} else {
		fmt.Fprintln(stderr, "paddock-demo: this paddock has no working `paddock hook` relay: agent hooks not installed (sessions show from their files only)")
	}

	args := []string{"--addr", cfg.Addr, "--http-addr", cfg.HTTPAddr, "--sweep", "1s"}
	if cfg.HookAddr != "" {
		args = append(args, "--hook-addr", cfg.HookAddr)
	}
	// paddock's banner (its addresses, the pairing QR and link) is held
	// back until the sessions are on the board: a phone paired from it
	// finds them there, and the one-time link is not spent on an empty
	// board scrolled away by the set-up's messages.
	banner := &heldWriter{}
	defer banner.release(stdout)
	if d.serve, err = startServe(ctx, bin, args, serveEnv, banner, filepath.Join(root, "paddock.log")); err != nil {
		return err
	}

	// The sessions are paddock's own, started through its API as + New
	// session does: their pages have the composer, the controls, the
	// terminal and Resume, and an approval they show is answered from the
	// phone by keys even when no phone was paired as it was asked.
	port, err := httpsPort(d.data)
	if err != nil {
		return err
	}
	if d.api, err = newAPI(ctx, bin, d.data, env, "https://127.0.0.1:"+strconv.Itoa(port)); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "paddock-demo: paddock is up; it starts %d agent sessions (the pairing link follows once they are on the board)…\n", len(sessions))
	d.play(ctx, sessions)
	if ctx.Err() != nil {
		return nil
	}
	banner.release(stdout)
	d.summary(stdout, sessions, time.Since(begin))
	<-ctx.Done()
	fmt.Fprintln(stderr, "\npaddock-demo: stopping…")
	return nil
}

// installHooks installs paddock's hooks into the agents' configs in the
// fake HOME (each Setup's env says where: CODEX_HOME, PI_CODING_AGENT_DIR…).
func (d *demo) installHooks(bin string, sessions []*started) {
	env := map[string]string{}
	var runtimes []string
	for _, s := range sessions {
		for _, kv := range s.setup.Env {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		if !slices.Contains(runtimes, string(s.CLI)) {
			runtimes = append(runtimes, string(s.CLI))
		}
	}
	opts := hookinstall.Options{Specs: registry.Default().InstallSpecs(), Binary: bin, DataDir: d.data, Home: d.home, Env: func(k string) string { return env[k] }}
	res, err := hookinstall.Install(opts, runtimes, false)
	for _, r := range res {
		fmt.Fprintln(d.log, "paddock-demo: hooks:", r.Summary())
	}
	if err != nil {
		fmt.Fprintln(d.log, "paddock-demo: installing hooks:", err)
		return
	}
}

// play runs every scenario at once; each ends with its session left as
// the scenario says, or with an error kept in s.err.
func (d *demo) play(ctx context.Context, sessions []*started) {
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, playTimeout)
			defer cancel()
			s.hosted, s.err = s.playHosted(ctx, d.api, s.setup, filepath.Join(d.home, s.Name))
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		if s.err != nil && ctx.Err() == nil {
			fmt.Fprintf(d.log, "paddock-demo: %s did not play out: %v\n", s.Name, s.err)
		}
	}
}

// summary tells the newcomer what runs and how to look at it.
func (d *demo) summary(w io.Writer, sessions []*started, took time.Duration) {
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Agent sessions (real CLIs against a mock model), ready in %s:\n", took.Round(time.Second))
	for _, s := range sessions {
		state := s.describe()
		if s.err != nil {
			state = "did not play out (see above)"
		}
		fmt.Fprintf(w, "  %-16s %-9s %s\n", s.Name, s.CLI, state)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "paddock hosts them: each session's page has its messages, controls and terminal (or: tmux -S %s attach).\n",
		filepath.Join(d.data, "tmux", tmux.SocketName))
	if len(d.serve.URLs) > 0 {
		fmt.Fprintf(w, "Dashboard: %s — pair this browser or your phone with the link or QR code above.\n", d.serve.URLs[0])
	}
	fmt.Fprintf(w, "Throw-away HOME: %s (paddock's log: %s)\n", d.home, filepath.Join(d.root, "paddock.log"))
	if d.keep {
		fmt.Fprintln(w, "Press Ctrl-C to stop everything; --keep leaves the HOME in place.")
	} else {
		fmt.Fprintln(w, "Press Ctrl-C to stop everything and remove the HOME.")
	}
}

// close stops what run started, paddock's tmux with the agents first (and
// any daemon they left, like Codex's app-server), then paddock, then the
// mock, and removes
// the throw-away directory unless keep. It reports what failed to stop.
func (d *demo) close() error {
	var errs []error
	if d.data != "" {
		// The agents run in paddock's tmux, which outlives paddock (a
		// restart re-attaches them): the demo ends them too.
		errs = append(errs, agentenv.KillHosted(d.data))
	}
	if d.serve != nil {
		errs = append(errs, d.serve.stop(10*time.Second))
	}
	if d.mock != nil {
		errs = append(errs, d.mock.Close())
	}
	if d.keep {
		fmt.Fprintf(d.log, "paddock-demo: kept %s\n", d.root)
	} else if d.root != "" {
		errs = append(errs, os.RemoveAll(d.root))
	}
	return errors.Join(errs...)
}

// withAgents is env plus every set-up agent's variables (the first one's
// value where two differ) and their CLIs' directories first on PATH.
func withAgents(env []string, sessions []*started) []string {
	out := slices.Clone(env)
	have := map[string]bool{}
	path := ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		have[k] = true
		if k == "PATH" {
			path = v
		}
	}
	var dirs []string
	for _, s := range sessions {
		if d := filepath.Dir(s.setup.Argv[0]); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
		for _, kv := range s.setup.Env {
			k, _, _ := strings.Cut(kv, "=")
			if !have[k] && k != "PATH" && k != "HOME" {
				have[k] = true
				out = append(out, kv)
			}
		}
	}
	out = slices.DeleteFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "PATH=") })
	if path != "" { // an empty entry would put the working directory on PATH
		dirs = append(dirs, path)
	}
	return append(out, "PATH="+strings.Join(dirs, string(os.PathListSeparator)))
}

func username() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "paddock"
}

// heldWriter holds paddock's banner while the sessions start (its reader
// goroutine writes) and, once released, writes through.
type heldWriter struct {
	mu   sync.Mutex
	held strings.Builder
	to   io.Writer // nil while held
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.to != nil {
		return h.to.Write(p)
	}
	return h.held.Write(p)
}

// release writes what was held to w, and everything after it too.
func (h *heldWriter) release(w io.Writer) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.to == nil {
		_, _ = io.WriteString(w, h.held.String())
		h.to = w
	}
}
