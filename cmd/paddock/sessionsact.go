package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"paddock/internal/agent/registry"
)

const createUsage = `usage: paddock sessions create --runtime R [--workdir DIR] [--name NAME] [--model M] [--json] [PROMPT...]`

// cmdSessionsCreate is `paddock sessions create`: a new session paddock
// serve hosts (it owns paddock's terminal), with an optional first
// prompt whose delivery is checked.
func cmdSessionsCreate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, fs, err := sessionsFlags("create", stderr, getenv)
	if err != nil {
		return err
	}
	runtime := fs.String("runtime", "", "the agent to start: "+strings.Join(registry.Default().Names(), ", "))
	wd, _ := os.Getwd()
	workdir := fs.String("workdir", wd, "the directory it works in")
	name := fs.String("name", "", "a name for the session")
	model := fs.String("model", "", "the model, where the agent takes one")
	asJSON := fs.Bool("json", false, "print serve's answer as JSON")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if *runtime == "" {
		return errors.New(createUsage)
	}
	dir, err := filepath.Abs(*workdir)
	if err != nil {
		return err
	}
	c, err := newServeClient(ctx, *cfg, getenv("PADDOCK_TOKEN"), true, stderr)
	if err != nil {
		return err
	}
	if c == nil {
		return errNoServe
	}
	var out map[string]any
	body := map[string]any{"runtime": *runtime, "workdir": dir, "name": *name, "model": *model, "prompt": strings.Join(fs.Args(), " ")}
	if err := c.post(ctx, "/api/v1/sessions", body, &out); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, out)
	}
	fmt.Fprintf(stdout, "started %v in %s\n", out["key"], dir)
	if p, ok := out["prompt"].(map[string]any); ok {
		fmt.Fprintln(stdout, deliveryLine("the prompt", p))
	}
	return nil
}

const handoffUsage = `usage: paddock sessions handoff (--to RUNTIME:ID | --start RUNTIME [--workdir DIR])
         (--from RUNTIME:ID | --query WORDS | --category C) --task TEXT
         [--context TEXT] [--history-limit N] [--wait [--timeout SECONDS]] [--json]`

// cmdSessionsHandoff is `paddock sessions handoff`: one session's work to
// another that paddock serve hosts (or starts), as the API does it.
func cmdSessionsHandoff(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, fs, err := sessionsFlags("handoff", stderr, getenv)
	if err != nil {
		return err
	}
	to := fs.String("to", "", "the running session that takes the work (RUNTIME:ID)")
	start := fs.String("start", "", "instead of --to: start a new session of this agent with the hand-off as its first prompt")
	workdir := fs.String("workdir", "", "with --start: its directory (default: the source's)")
	from := fs.String("from", "", "the session whose work it is (RUNTIME:ID)")
	query := fs.String("query", "", "find the source by these words (its top hit), and keep only the messages about them")
	category := fs.String("category", "", "find the source as the newest session of this kind (subagent, github, hosted, live, untitled, recent, all)")
	task := fs.String("task", "", "what the other session should do")
	ctxText := fs.String("context", "", "the context to hand over, instead of the source's recent messages")
	historyLimit := fs.Int("history-limit", 0, "how many of the source's recent messages (default 20)")
	wait := fs.Bool("wait", false, "wait for the target's first reply and print it")
	timeout := fs.Int("timeout", 600, "with --wait: give up after this many seconds (at most 600)")
	asJSON := fs.Bool("json", false, "print serve's answer as JSON")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 || (*to == "") == (*start == "") || strings.TrimSpace(*task) == "" {
		return errors.New(handoffUsage)
	}
	if *workdir != "" && *start == "" {
		return errors.New("--workdir goes with --start")
	}
	body := map[string]any{"source": *from, "query": *query, "category": *category, "task": *task, "context": *ctxText,
		"history_limit": *historyLimit, "wait": *wait, "timeout_seconds": *timeout}
	if *to != "" {
		body["target"] = *to
	} else {
		st := map[string]any{"runtime": *start}
		if *workdir != "" {
			dir, err := filepath.Abs(*workdir)
			if err != nil {
				return err
			}
			st["workdir"] = dir
		}
		body["start"] = st
	}
	c, err := newServeClient(ctx, *cfg, getenv("PADDOCK_TOKEN"), true, stderr)
	if err != nil {
		return err
	}
	if c == nil {
		return errNoServe
	}
	var out map[string]any
	if err := c.post(ctx, "/api/v1/handoff", body, &out); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, out)
	}
	verb := "handed off"
	if out["started"] == true {
		verb = "started"
	}
	fmt.Fprintf(stdout, "%s %v → %v (%v characters): %s\n", verb, out["source"], out["target"], out["characters"], deliveryLine("the hand-off", out))
	if r, _ := out["reply"].(string); r != "" {
		fmt.Fprintf(stdout, "\nits reply:\n%s\n", r)
	} else if out["timed_out"] == true {
		fmt.Fprintln(stdout, "no reply within the timeout")
	}
	return nil
}

// deliveryLine says whether what was sent arrived, from a delivery's
// JSON.
func deliveryLine(what string, d map[string]any) string {
	switch {
	case d["delivered"] == true:
		return what + " was delivered"
	case d["queued"] == true:
		return what + " is queued: the agent takes it when its turn ends"
	}
	reason, _ := d["reason"].(string)
	return what + " was not delivered: " + reason
}
