package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
	"paddock/internal/config"
	"paddock/internal/export"
	"paddock/internal/search"
	"paddock/internal/session"
)

const sessionsUsage = `usage: paddock sessions list [--live] [--runtime R] [--limit N] [--json]
       paddock sessions show|status --runtime R [--limit N] [--json] ID
       paddock sessions search [--runtime R] [--session ID] [--project P] [--since T] [--until T] [--limit N] [--json] WORDS...
       paddock sessions export --runtime R [--format F] [--tools] -o FILE [--force] ID
       paddock sessions create --runtime R [--workdir DIR] [--name NAME] [PROMPT...]
       paddock sessions handoff (--to RUNTIME:ID | --start RUNTIME) (--from RUNTIME:ID | --query WORDS | --category C) --task TEXT [--wait]`

// cmdSessions is `paddock sessions`: list, show, status, search, export,
// create and handoff.
func cmdSessions(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) > 0 {
		switch args[0] {
		case "export":
			return cmdExport(ctx, args[1:], stdout, stderr, getenv)
		case "create":
			return cmdSessionsCreate(ctx, args[1:], stdout, stderr, getenv)
		case "handoff":
			return cmdSessionsHandoff(ctx, args[1:], stdout, stderr, getenv)
		}
	}
	if len(args) > 0 && (args[0] == "list" || args[0] == "show" || args[0] == "status") {
		return cmdSessionsRead(ctx, args[0], args[1:], stdout, stderr, getenv)
	}
	if len(args) == 0 || args[0] != "search" {
		return errors.New(sessionsUsage)
	}
	cfg, fs, err := sessionsFlags("search", stderr, getenv)
	if err != nil {
		return err
	}
	runtime := fs.String("runtime", "", "only this agent's sessions: "+strings.Join(registry.Default().Names(), ", "))
	id := fs.String("session", "", "only inside this session (with --runtime)")
	project := fs.String("project", "", "only sessions in this directory (its path or its last element)")
	since := fs.String("since", "", "only messages from then on (RFC 3339 or 2026-11-30)")
	until := fs.String("until", "", "only messages before then")
	limit := fs.Int("limit", 30, "at most this many hits (1–200)")
	asJSON := fs.Bool("json", false, "print the hits as JSON, one array")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage
	}
	q := search.Query{Text: strings.Join(fs.Args(), " "), Runtime: *runtime, Project: *project, Limit: *limit}
	if *limit < 1 || *limit > 200 {
		return errors.New("--limit is from 1 to 200")
	}
	if *id != "" {
		if *runtime == "" {
			return errors.New("--session needs --runtime")
		}
		q.Session = session.Key{Runtime: *runtime, ID: *id}
	}
	for _, p := range []struct {
		name, raw string
		to        *time.Time
	}{{"since", *since, &q.Since}, {"until", *until, &q.Until}} {
		if p.raw == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, p.raw)
		if err != nil {
			if t, err = time.ParseInLocation(time.DateOnly, p.raw, time.Local); err != nil {
				return fmt.Errorf("--%s is a time (2026-11-30T09:00:00Z) or a day (2026-11-30), not %q", p.name, p.raw)
			}
		}
		*p.to = t
	}
	ix, err := search.OpenReader(ctx, app.IndexPath(*cfg))
	if err != nil {
		return err
	}
	defer ix.Close()
	hits, err := ix.Search(ctx, q)
	if errors.Is(err, search.ErrEmptyQuery) {
		return errors.New("give a word to search for; " + sessionsUsage)
	}
	if err != nil {
		return err
	}
	// What the index says is as current as paddock serve keeps it.
	if _, running := app.ServeRunning(cfg.DataDir); !running {
		fmt.Fprintln(stderr, "paddock serve is not running: the index is as its last run left it")
	}
	if *asJSON {
		out := make([]search.Record, 0, len(hits))
		for _, h := range hits {
			out = append(out, h.Record())
		}
		return printJSON(stdout, out)
	}
	if len(hits) == 0 {
		fmt.Fprintln(stdout, "no message matches")
		return nil
	}
	for _, h := range hits {
		title := h.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(stdout, "%s  #%d %s  %s  %s\n    %s\n", h.Key, h.Seq, h.Role, h.At.Local().Format("2006-01-02 15:04"), title,
			strings.Join(strings.Fields(h.Marked()), " "))
	}
	return nil
}

// sessionsFlags is the start of every `paddock sessions` command's flags:
// the defaults' config and --data-dir.
func sessionsFlags(name string, stderr io.Writer, getenv func(string) string) (*config.Config, *flag.FlagSet, error) {
	cfg, err := config.Default(getenv)
	if err != nil {
		return nil, nil, err
	}
	fs := flag.NewFlagSet("paddock sessions "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "paddock's data directory (its search index, and where a running serve is found)")
	return &cfg, fs, nil
}

// cmdIndex is `paddock index rebuild`.
func cmdIndex(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 || args[0] != "rebuild" {
		return errors.New("usage: paddock index rebuild [--data-dir DIR]")
	}
	cfg, _, err := loadConfig("index rebuild", args[1:], stderr, getenv, false)
	if err != nil {
		return err
	}
	n, m, took, err := app.RebuildIndex(ctx, cfg, registry.Default(), newLogger(stderr, cfg.LogLevel))
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "indexed %d sessions, %d messages in %s (%s)\n", n, m, took.Round(time.Millisecond), app.IndexPath(cfg))
	return nil
}

const exportUsage = `usage: paddock sessions export --runtime R [--format markdown|json|jsonl|text] [--tools] -o FILE [--force] ID`

// cmdExport is `paddock sessions export`: one session's record to a file
// (or - for standard output), read from the agent's history.
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, fs, err := sessionsFlags("export", stderr, getenv)
	if err != nil {
		return err
	}
	runtime := fs.String("runtime", "", "the session's agent: "+strings.Join(registry.Default().Names(), ", "))
	format := fs.String("format", "markdown", "markdown (the conversation only), json, jsonl or text")
	tools := fs.Bool("tools", false, "also the thinking, tool calls and their results (each after its call)")
	out := fs.String("o", "", "the file to write (- for standard output)")
	force := fs.Bool("force", false, "replace the file when it exists")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 1 || *runtime == "" || *out == "" {
		return errors.New(exportUsage)
	}
	f, err := export.ParseFormat(*format)
	if err != nil {
		return err
	}
	k := session.Key{Runtime: *runtime, ID: fs.Arg(0)}
	agents := registry.Default()
	if !slices.Contains(agents.Names(), k.Runtime) {
		return fmt.Errorf("no agent %q (%s)", k.Runtime, strings.Join(agents.Names(), ", "))
	}
	c := app.HistoryCatalog(*cfg, agents, newLogger(stderr, cfg.LogLevel))
	info, err := c.Get(ctx, k)
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("%s has no session %s", agents.Label(k.Runtime), k.ID)
	}
	if err != nil {
		return err
	}
	// Read as it is written, never held whole.
	record := func(fn func(session.Event) error) error { return c.EachEvent(ctx, k, fn) }
	meta := export.Session{Runtime: k.Runtime, ID: k.ID, Title: info.Title, Cwd: info.Cwd, Model: info.Model, Created: info.Created, Updated: info.Updated}
	if *out == "-" {
		_, err := export.Write(stdout, f, meta, record, *tools)
		return err
	}
	path, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	if dir, ok := export.Forbidden(path, append(c.WatchDirs(), cfg.DataDir)); ok {
		return fmt.Errorf("%s is inside %s, which paddock never writes: choose another place", path, dir)
	}
	if _, err := os.Lstat(path); err == nil && !*force {
		return fmt.Errorf("%s exists; --force replaces it", path)
	}
	n, err := export.WriteFile(path, f, meta, record, *tools)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d messages to %s (%s)\n", n, path, f)
	return nil
}
