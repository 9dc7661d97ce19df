package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/config"
	"paddock/internal/hookchannel"
	"paddock/internal/hookinstall"
	"paddock/internal/hookstate"
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
	res := hookchannel.Relay(ctx, hookchannel.RelayOptions{Args: a, Stdin: stdin, Getenv: getenv, Start: start, MayDecide: agents.MayDecide, AcceptDecision: true})
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

// hookListener is serve's loopback listener for agent hooks.
type hookListener struct {
	ln     net.Listener
	srv    *http.Server
	intake *hookchannel.Handler
	log    *slog.Logger
}

// openHookListener binds cfg.HookAddr (loopback only; empty: no listener)
// and loads the hook secret, creating it on first start.
func openHookListener(cfg config.Config, decoders hookstate.Decoders, sink hookchannel.Sink, decider hookchannel.Decider, log *slog.Logger) (*hookListener, error) {
	if cfg.HookAddr == "" {
		return nil, nil
	}
	secret, replaced, err := hookchannel.LoadOrCreateSecret(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	if replaced {
		log.Warn("the hook secret was readable by others and has been replaced; Claude http hooks installed with the old one need `paddock hooks install --claude-http` again")
	}
	ln, err := hookchannel.Listen(cfg.HookAddr)
	if err != nil {
		return nil, fmt.Errorf("--hook-addr: %w", err)
	}
	h := &hookListener{ln: ln, log: log}
	h.intake = hookchannel.NewHandler(hookchannel.HandlerOptions{Secret: secret, Decoders: decoders, Sink: sink, Decider: decider, Logger: log})
	// A held decision extends its own deadlines (hookchannel.Handler.hold).
	h.srv = &http.Server{Handler: h.intake, ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 30 * time.Second, MaxHeaderBytes: 16 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	log.Info("hook listener", "addr", ln.Addr().String())
	return h, nil
}

// Port is the listener's port, 0 without one.
func (h *hookListener) Port() int {
	if h == nil {
		return 0
	}
	return h.ln.Addr().(*net.TCPAddr).Port
}

// Addr is the bound address, "" without a listener.
func (h *hookListener) Addr() string {
	if h == nil {
		return ""
	}
	return h.ln.Addr().String()
}

// Serve serves until Shutdown. Requests live in ctx: when serve stops, a
// hook held for the phone lets go at once (no decision: the agent's own
// prompt takes over) instead of holding up the shutdown.
func (h *hookListener) Serve(ctx context.Context) error {
	h.srv.BaseContext = func(net.Listener) context.Context { return ctx }
	return h.srv.Serve(h.ln)
}

// Shutdown stops the listener and logs what it counted.
func (h *hookListener) Shutdown(ctx context.Context) {
	if h == nil {
		return
	}
	_ = h.srv.Shutdown(ctx)
	st := h.intake.Stats()
	h.log.Info("hook listener stopped", "accepted", st.Accepted, "rejected", st.RejectedTotal())
}

// Close releases the port when serve fails before serving.
func (h *hookListener) Close() {
	if h != nil {
		_ = h.ln.Close()
	}
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
		fmt.Fprintln(w, "Add them with: paddock hooks install   (see the changes first: paddock hooks install --dry-run)")
	}
}
