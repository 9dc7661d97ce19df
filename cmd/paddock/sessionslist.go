package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"text/tabwriter"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
	"paddock/internal/session"
)

// sessionJSON is one session as the commands print it.
type sessionJSON struct {
	Runtime  string    `json:"runtime"`
	ID       string    `json:"id"`
	Title    string    `json:"title,omitempty"`
	Cwd      string    `json:"cwd,omitempty"`
	Model    string    `json:"model,omitempty"`
	Running  bool      `json:"running"`
	PID      int       `json:"pid,omitempty"`
	Prompts  int       `json:"prompts,omitempty"`
	Created  time.Time `json:"created,omitzero"`
	Updated  time.Time `json:"updated"`
	Messages []struct {
		Role string    `json:"role"`
		Text string    `json:"text"`
		Time time.Time `json:"time,omitzero"`
	} `json:"messages,omitempty"`
}

func sessionJSONOf(i session.Info) sessionJSON {
	return sessionJSON{Runtime: i.Runtime, ID: i.ID, Title: i.Title, Cwd: i.Cwd, Model: i.Model, Running: i.Live, PID: i.PID,
		Prompts: i.PromptCount, Created: i.Created.UTC(), Updated: i.Updated.UTC()}
}

// cmdSessionsRead is `paddock sessions list|show|status`: asked of paddock
// serve when it runs (its board holds what hooks report), else read from
// the agents' histories and the process table.
func cmdSessionsRead(ctx context.Context, sub string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, fs, err := sessionsFlags(sub, stderr, getenv)
	if err != nil {
		return err
	}
	runtime := fs.String("runtime", "", "the agent (list: only its sessions; show, status: the session's)")
	live := fs.Bool("live", false, "list: only sessions running now")
	limit := fs.Int("limit", 50, "list: at most this many sessions; show: its newest messages, at most this many")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if sub == "list" && fs.NArg() != 0 {
		return errors.New("usage: paddock sessions list [--live] [--runtime R] [--limit N] [--json]")
	}
	var id string
	if sub != "list" {
		if fs.NArg() != 1 {
			return fmt.Errorf("usage: paddock sessions %s --runtime R [--json] ID", sub)
		}
		if *runtime, id = trimKey(*runtime, fs.Arg(0)); *runtime == "" {
			return fmt.Errorf("usage: paddock sessions %s --runtime R [--json] ID (or RUNTIME:ID)", sub)
		}
	}
	if *limit < 1 || *limit > 1000 {
		return errors.New("--limit is from 1 to 1000")
	}
	// With serve running, ask it: its board holds what hooks report.
	client, err := newServeClient(ctx, *cfg, getenv("PADDOCK_TOKEN"), true, stderr)
	if err != nil {
		return err
	}
	if client != nil {
		return askSessions(ctx, client, sub, *runtime, id, *live, *limit, *asJSON, stdout)
	}
	c := app.HistoryCatalog(*cfg, registry.Default(), newLogger(stderr, cfg.LogLevel))
	fmt.Fprintln(stderr, "paddock serve is not running: running means an agent process holds the session; what hooks report is not known")
	if sub == "list" {
		c.Rescan(ctx)
		var out []sessionJSON
		for _, i := range c.All() {
			if (*runtime != "" && i.Runtime != *runtime) || (*live && !i.Live) {
				continue
			}
			if len(out) < *limit {
				out = append(out, sessionJSONOf(i))
			}
		}
		if *asJSON {
			return printJSON(stdout, out)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tRUNNING\tUPDATED\tTITLE")
		for _, s := range out {
			fmt.Fprintf(tw, "%s:%s\t%v\t%s\t%s\n", s.Runtime, s.ID, s.Running, s.Updated.Local().Format("2006-01-02 15:04"), s.Title)
		}
		return tw.Flush()
	}
	k := session.Key{Runtime: *runtime, ID: id}
	info, err := c.Get(ctx, k)
	if errors.Is(err, session.ErrNotFound) {
		return fmt.Errorf("%s has no session %s", *runtime, k.ID)
	}
	if err != nil {
		return err
	}
	s := sessionJSONOf(info)
	if sub == "show" {
		msgs, err := c.Messages(ctx, k)
		if err != nil {
			return err
		}
		for _, m := range msgs[max(0, len(msgs)-*limit):] {
			s.Messages = append(s.Messages, struct {
				Role string    `json:"role"`
				Text string    `json:"text"`
				Time time.Time `json:"time,omitzero"`
			}{m.Role, m.Text, m.Time.UTC()})
		}
	}
	if *asJSON {
		return printJSON(stdout, s)
	}
	fmt.Fprintf(stdout, "%s:%s  %s\n  running: %v", s.Runtime, s.ID, s.Title, s.Running)
	if s.PID != 0 {
		fmt.Fprintf(stdout, " (pid %d)", s.PID)
	}
	fmt.Fprintf(stdout, "\n  workspace: %s\n  updated: %s\n", s.Cwd, s.Updated.Local().Format("2006-01-02 15:04"))
	for _, m := range s.Messages {
		fmt.Fprintf(stdout, "\n%s:\n%s\n", roleName(m.Role), m.Text)
	}
	return nil
}

func roleName(r string) string {
	if r == session.RoleAssistant {
		return "Assistant"
	}
	return "User"
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// askSessions is list, show and status answered by paddock serve: the
// API's own records (--json prints them as the API gives them).
func askSessions(ctx context.Context, c *serveClient, sub, runtime, id string, live bool, limit int, asJSON bool, stdout io.Writer) error {
	type record struct {
		Runtime, ID, Title, Cwd, State string
		Live                           bool
		PID                            int
		Updated                        time.Time
	}
	if sub == "list" {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		if runtime != "" {
			q.Set("runtime", runtime)
		}
		if live {
			q.Set("live", "true")
		}
		var page struct {
			Sessions []json.RawMessage `json:"sessions"`
		}
		if err := c.get(ctx, "/api/v1/sessions?"+q.Encode(), &page); err != nil {
			return err
		}
		if page.Sessions == nil {
			page.Sessions = []json.RawMessage{}
		}
		if asJSON {
			return printJSON(stdout, page.Sessions)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SESSION\tSTATE\tUPDATED\tTITLE")
		for _, raw := range page.Sessions {
			var r record
			if err := json.Unmarshal(raw, &r); err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s:%s\t%s\t%s\t%s\n", r.Runtime, r.ID, r.State, r.Updated.Local().Format("2006-01-02 15:04"), r.Title)
		}
		return tw.Flush()
	}
	base := "/api/v1/sessions/" + url.PathEscape(runtime) + "/" + url.PathEscape(id)
	var one struct {
		Session json.RawMessage `json:"session"`
	}
	if err := c.get(ctx, base, &one); err != nil {
		return err
	}
	var msgs []json.RawMessage
	if sub == "show" {
		var page struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := c.get(ctx, base+"/messages?limit="+strconv.Itoa(limit), &page); err != nil {
			return err
		}
		msgs = page.Messages
	}
	if asJSON {
		if sub == "status" {
			return printJSON(stdout, one.Session)
		}
		if msgs == nil {
			msgs = []json.RawMessage{}
		}
		return printJSON(stdout, map[string]any{"session": one.Session, "messages": msgs})
	}
	var r record
	if err := json.Unmarshal(one.Session, &r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s:%s  %s\n  state: %s", r.Runtime, r.ID, r.Title, r.State)
	if r.PID != 0 {
		fmt.Fprintf(stdout, " (pid %d)", r.PID)
	}
	fmt.Fprintf(stdout, "\n  workspace: %s\n  updated: %s\n", r.Cwd, r.Updated.Local().Format("2006-01-02 15:04"))
	for _, raw := range msgs {
		var m struct{ Role, Text string }
		if err := json.Unmarshal(raw, &m); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\n%s:\n%s\n", roleName(m.Role), m.Text)
	}
	return nil
}
