// Command paddock-demo (`make demo`) shows paddock working in one command,
// without any agent account: in a throw-away HOME it starts the mock model
// (internal/testkit/mockmodel), `paddock serve`, and a few real agent sessions —
// whichever pinned CLIs `make e2e-deps` installed — in a private tmux
// server: plain chats, a pending approval and a pending question. It
// prints paddock's pairing link and QR code and the tmux socket to attach
// to, and keeps everything running until Ctrl-C; then it stops every
// process it started, by PID, and removes the HOME (unless --keep).
//
// It is a development tool, not part of the paddock binary. It never
// touches the real HOME, the user's own tmux server or a process it did
// not start.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"paddock/internal/testkit/agentenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		os.Exit(2)
	}
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "paddock-demo:", err)
		os.Exit(1)
	}
}

// config is the command line.
type config struct {
	Addr     string // paddock's HTTPS address
	HTTPAddr string // paddock's plain-HTTP address ("" disables it)
	HookAddr string // paddock's loopback hook listener ("" leaves paddock's default)
	Keep     bool   // keep the throw-away HOME on exit
	Paddock  string // a paddock binary to run instead of building one
	Only     []agentenv.CLI
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("paddock-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: paddock-demo [flags]   (make demo ARGS=\"flags\")\n\n"+
			"Starts a mock model, paddock and real agent sessions in a throw-away HOME; Ctrl-C stops everything.\n\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&cfg.Addr, "addr", ":7443", "paddock's HTTPS dashboard address (use another port to run next to a real paddock)")
	fs.StringVar(&cfg.HTTPAddr, "http-addr", ":7080", "paddock's plain-HTTP address (CA page); empty disables it")
	// Port 0: the relay finds the port in paddock's data dir, and a real
	// paddock may hold the default one.
	fs.StringVar(&cfg.HookAddr, "hook-addr", "127.0.0.1:0", "paddock's loopback hook listener address")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the throw-away HOME (agent files, paddock's data, logs) on exit")
	fs.StringVar(&cfg.Paddock, "paddock", "", "run this paddock binary instead of building ./cmd/paddock")
	only := fs.String("only", "", "comma-separated agents to start (default: every installed one of "+cliNames()+")")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "paddock-demo: unexpected argument %q\n", fs.Arg(0))
		return cfg, errors.New("usage")
	}
	for _, name := range strings.Split(*only, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		cli := agentenv.CLI(name)
		if _, _, ok := cli.Pinned(); !ok {
			fmt.Fprintf(stderr, "paddock-demo: --only: unknown agent %q (known: %s)\n", name, cliNames())
			return cfg, errors.New("usage")
		}
		cfg.Only = append(cfg.Only, cli)
	}
	return cfg, nil
}

func cliNames() string {
	var names []string
	for _, c := range agentenv.CLIs() {
		names = append(names, string(c))
	}
	return strings.Join(names, ", ")
}
