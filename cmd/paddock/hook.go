package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/config"
	"paddock/internal/hookchannel"
	"paddock/internal/hookinstall"
)

// hookMain is `paddock hook` as an agent runs it; main calls it before
// setting anything else up. It always returns 0: a hook that fails must
// not disturb the agent (Claude Code even blocks a tool call on exit 2).
func hookMain(start time.Time, args []string) int {
	return cmdHook(context.Background(), start, args, hookStdin(), os.Stdout, os.Stderr, os.Getenv)
}

// hookStdin is stdin unless it is a terminal: a person trying the command
// by hand (or an agent that passes its tty through) must not leave the
// relay waiting for input that never comes.
func hookStdin() io.Reader {
	if fi, err := os.Stdin.Stat(); err != nil || fi.Mode()&os.ModeCharDevice != 0 {
		return nil
	}
	return os.Stdin
}

// cmdHook relays one hook event (internal/hookchannel). It prints nothing,
// except a decision paddock answered (an approval or an answer from the
// phone, for the events that take one), the help text on -h,
// and a one-line report on stderr under PADDOCK_HOOK_DEBUG=1 — never the
// secret or the payload.
func cmdHook(ctx context.Context, start time.Time, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	debug := getenv("PADDOCK_HOOK_DEBUG") != ""
	agents := registry.Default()
	a, err := hookchannel.ParseArgs(args, agents.Names()[0])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, hookchannel.Usage)
		} else if debug {
			fmt.Fprintln(stderr, "paddock hook:", err)
		}
		return 0
	}
	if a.DataDir == "" {
		a.DataDir, _ = config.DataDir(getenv)
	} else if abs, err := filepath.Abs(a.DataDir); err == nil {
		a.DataDir = abs
	}
	res := hookchannel.Relay(ctx, hookchannel.RelayOptions{Args: a, Stdin: stdin, Getenv: getenv, Start: start, MayDecide: agents.MayDecide, MayHold: agents.MayHold, AcceptDecision: true})
	if len(res.Output) > 0 && agents.MayDecide(a.Runtime, a.Event) {
		_, _ = stdout.Write(res.Output)
	}
	if debug {
		why := "delivered"
		if res.Err != nil {
			why = res.Err.Error()
		}
		fmt.Fprintf(stderr, "paddock hook: %s %s: %s (status %d, %s)\n", a.Runtime, a.Event, why, res.Status, res.Elapsed.Round(10*time.Microsecond))
	}
	return 0
}

// offerHookInstall is serve's first-run offer: when no agent on this
// machine calls paddock's hooks yet, say how to install them. It never
// installs anything itself.
func offerHookInstall(w io.Writer, cfg config.Config, getenv func(string) string) {
	bin, err := os.Executable()
	if err != nil {
		return
	}
	sts, _ := hookinstall.Status(hookinstall.Options{Specs: registry.Default().InstallSpecs(), Binary: bin, DataDir: cfg.DataDir, Env: getenv}, nil)
	agents := false
	for _, s := range sts {
		if s.Ours > 0 {
			return
		}
		if s.State != hookinstall.StateAbsent && s.Err == nil {
			agents = true
		}
	}
	if agents {
		fmt.Fprintln(w, "No agent calls paddock's hooks yet, so sessions started outside paddock show no live state.")
		name := invokedAs(os.Args[0], bin)
		fmt.Fprintf(w, "Add them with: %s hooks install   (see the changes first: %s hooks install --dry-run)\n", name, name)
	}
}

// invokedAs is how the user can run this binary again: the path they used
// (./bin/paddock after make run) when it has one, "paddock" when it was
// found on PATH, else its absolute path.
func invokedAs(arg0, executable string) string {
	if strings.ContainsRune(arg0, os.PathSeparator) {
		return arg0
	}
	if p, err := exec.LookPath(arg0); err == nil {
		if abs, err := filepath.Abs(p); err == nil && abs == executable {
			return arg0
		}
	}
	return executable
}
