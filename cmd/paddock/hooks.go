package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"paddock/internal/agent/registry"
	"paddock/internal/config"
	"paddock/internal/hookchannel"
	"paddock/internal/hookinstall"
)

const hooksUsage = "usage: paddock hooks install|uninstall|status [--runtime R] [--mcp] [--dry-run]"

// cmdHooks installs, removes or reports paddock's hooks in the agents'
// own configs (internal/hookinstall does the editing).
func cmdHooks(_ context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return errors.New(hooksUsage)
	}
	sub, args := args[0], args[1:]
	if sub != "install" && sub != "uninstall" && sub != "status" {
		return fmt.Errorf("unknown hooks command %q (install, uninstall, status)", sub)
	}
	cfg, err := config.Default(getenv)
	if err != nil {
		return err
	}
	agents := registry.Default()
	fs := flag.NewFlagSet("paddock hooks "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var runtimes hostList // a comma-separated, repeatable list
	fs.Var(&runtimes, "runtime", "agent: "+strings.Join(agents.Names(), ", ")+" or all (repeatable, comma-separated; default: every agent installed here)")
	dryRun := false
	if sub != "status" {
		fs.BoolVar(&dryRun, "dry-run", false, "show what would change, as a diff, and write nothing")
	}
	mcp := false
	if sub != "uninstall" {
		fs.BoolVar(&mcp, "mcp", false, "also register paddock's MCP server (paddock mcp) with each agent that takes MCP servers, so agents can find, read and hand off sessions (uninstall always takes it out)")
	}
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "paddock's data directory, passed to the hook command")
	binary := fs.String("binary", "", "the paddock binary the hooks run (default: this one)")
	claudeHTTP := fs.Bool("claude-http", false, "Claude Code posts most events straight to the hook listener (no process per event; its secret is written into settings.json, kept 0600)")
	fs.StringVar(&cfg.HookAddr, "hook-addr", cfg.HookAddr, "the hook listener address paddock serve uses (for --claude-http; needs a fixed port)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q; %s", fs.Arg(0), hooksUsage)
	}
	if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
		return err
	}
	opts := hookinstall.Options{Specs: agents.InstallSpecs(), Binary: *binary, DataDir: cfg.DataDir, Env: getenv, MCP: mcp}
	if opts.Binary == "" {
		if opts.Binary, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot tell where this paddock binary is (%v); pass --binary", err)
		}
		if sub == "install" && strings.Contains(opts.Binary, string(filepath.Separator)+"go-build") {
			return fmt.Errorf("this paddock runs from a temporary build (%s, go run?); the hooks would call a binary that goes away. Build it (make build) and run that, or pass --binary", opts.Binary)
		}
	} else if opts.Binary, err = filepath.Abs(opts.Binary); err != nil {
		return err
	}
	mask := func(s string) string { return s }
	if *claudeHTTP {
		if err := claudeHTTPOptions(&opts, cfg, sub == "install" && !dryRun); err != nil {
			return err
		}
		secret := opts.Secret
		mask = hookchannel.Masker(secret)
	}

	if sub == "status" {
		sts, err := hookinstall.Status(opts, runtimes)
		if sts == nil && err != nil {
			return err
		}
		printHookStatus(stdout, sts, mask)
		if err != nil {
			return errors.New("some agent configs could not be read (see above)")
		}
		return nil
	}
	run := hookinstall.Install
	if sub == "uninstall" {
		run = hookinstall.Uninstall
	}
	res, err := run(opts, runtimes, dryRun)
	if res == nil && err != nil {
		return err
	}
	printHookResults(stdout, res, agents.Names(), mask)
	if sub == "install" && !mcp && len(res) > 0 {
		fmt.Fprintln(stdout, "To let the agents find, read and hand off sessions themselves, add --mcp: it registers paddock's MCP server with those that take MCP servers.")
	}
	if err != nil {
		return errors.New("some agents were not changed (see above)")
	}
	return nil
}

// claudeHTTPOptions fills the listener's port and the secret for http
// hooks (Claude Code's, the agent that has them). Only a real install creates the secret; a dry run or status
// reads it, or shows a placeholder.
func claudeHTTPOptions(o *hookinstall.Options, cfg config.Config, create bool) error {
	addr, err := hookchannel.LoopbackAddr(cfg.HookAddr)
	if err != nil {
		return fmt.Errorf("--hook-addr: %w", err)
	}
	host, port, err := splitPort(addr)
	if err != nil || port == 0 || host != "127.0.0.1" {
		return errors.New("--claude-http needs the hook listener on 127.0.0.1 and a fixed port (--hook-addr 127.0.0.1:PORT, as paddock serve uses)")
	}
	o.HTTPHooks, o.HookPort = true, port
	if create {
		if err := config.EnsureDataDir(cfg.DataDir); err != nil {
			return err
		}
		o.Secret, _, err = hookchannel.LoadOrCreateSecret(cfg.DataDir)
		return err
	}
	if o.Secret, err = hookchannel.ReadSecret(cfg.DataDir); err != nil {
		o.Secret = hookchannel.SecretShown
	}
	return nil
}

func printHookResults(w io.Writer, res []hookinstall.Result, names []string, mask func(string) string) {
	if len(res) == 0 {
		fmt.Fprintln(w, "No agent found: paddock hooks into "+strings.Join(names, ", ")+" (give --runtime to name one).")
		return
	}
	for _, r := range res {
		fmt.Fprintln(w, mask(r.Summary()))
		if r.Err != nil || r.Skipped {
			continue
		}
		if r.DryRun {
			for _, f := range r.Files {
				if f.Diff != "" {
					fmt.Fprint(w, indent(mask(f.Diff)))
				}
			}
		}
		if r.Changed || !r.Uninstall {
			for _, n := range r.Notes {
				fmt.Fprintln(w, "  note: "+mask(n))
			}
		}
	}
	if res[0].DryRun {
		fmt.Fprintln(w, "Dry run: nothing was written.")
	}
}

func printHookStatus(w io.Writer, sts []hookinstall.RuntimeStatus, mask func(string) string) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tSTATE\tPADDOCK HOOKS\tOTHER HOOKS\tCONFIG")
	missing := false
	for _, s := range sts {
		state := string(s.State)
		if s.Err != nil {
			state = "error"
		}
		missing = missing || s.State == hookinstall.StateNotInstalled || s.State == hookinstall.StatePartial
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", s.Runtime, state, s.Ours, s.Foreign, s.Dir)
	}
	_ = tw.Flush()
	for _, s := range sts {
		if s.Err != nil {
			fmt.Fprintln(w, mask(s.Runtime+": "+s.Err.Error()))
		}
	}
	if missing {
		fmt.Fprintln(w, "To install or update them: paddock hooks install (preview with --dry-run).")
	}
}

func indent(s string) string {
	lines := strings.SplitAfter(s, "\n")
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("    " + l)
		}
	}
	if !strings.HasSuffix(s, "\n") && s != "" {
		b.WriteString("\n")
	}
	return b.String()
}
