package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"text/tabwriter"
	"time"

	"paddock/internal/agent/registry"
	"paddock/internal/app"
	tally "paddock/internal/usage"
)

const usageUsage = "usage: paddock usage [--group day|project|agent|model] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]"

// cmdUsage is `paddock usage`: the tokens and cost of a range of days
// (the last 30 by default) per day, project, agent or model. Asked of
// paddock serve when it runs (GET /api/v1/usage: the same report), else
// read from the agents' histories into the usage file, only what changed
// since it was last read.
func cmdUsage(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, fs, err := sessionsFlags("usage", stderr, getenv)
	if err != nil {
		return err
	}
	fs.Init("paddock usage", fs.ErrorHandling())
	group := fs.String("group", tally.ByDay, "sum per day, project, agent or model")
	from := fs.String("from", "", "the first day (default: 30 days before --to)")
	to := fs.String("to", "", "the last day (default: today)")
	asJSON := fs.Bool("json", false, "print JSON (what GET /api/v1/usage answers)")
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	if fs.NArg() != 0 {
		return errors.New(usageUsage)
	}
	client, err := newServeClient(ctx, *cfg, getenv("PADDOCK_TOKEN"), true, stderr)
	if err != nil {
		return err
	}
	var r tally.Report
	if client != nil {
		q := url.Values{"group": {*group}}
		if *from != "" {
			q.Set("from", *from)
		}
		if *to != "" {
			q.Set("to", *to)
		}
		if err := client.get(ctx, "/api/v1/usage?"+q.Encode(), &r); err != nil {
			return err
		}
	} else {
		f, t, err := tally.Range(*from, *to, tally.DayOf(time.Now(), time.Local))
		if err != nil {
			return err
		}
		st, took, err := app.ReadUsage(ctx, *cfg, registry.Default(), newLogger(stderr, cfg.LogLevel))
		if err != nil {
			return err
		}
		defer st.Close()
		fmt.Fprintf(stderr, "paddock serve is not running: read the histories into %s in %s\n", app.UsagePath(*cfg), took.Round(time.Millisecond))
		if r, err = st.Report(ctx, *group, f, t); err != nil {
			if errors.Is(err, tally.ErrGroup) {
				return errors.New(usageUsage)
			}
			return err
		}
	}
	if *asJSON {
		return printJSON(stdout, r)
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tCALLS\tINPUT\tOUTPUT\tCACHE READ\tCACHE WRITE\tCOST\t\n", r.Group)
	for _, row := range append(r.Rows, r.Total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t\n", row.Key, row.Calls, row.Input, row.Output, row.CacheRead, row.CacheWrite, cliCost(row))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s to %s. Cost: each agent's own figure where it records one, else the list price (%s); \"unknown\": a model without a price.\n",
		r.From, r.To, r.Prices)
	return nil
}

// cliCost is a row's cost for the table.
func cliCost(r tally.Row) string {
	c := "$" + strconv.FormatFloat(r.Cost, 'f', 4, 64)
	switch {
	case r.CostKnown:
		return c
	case r.Cost == 0:
		return "unknown"
	}
	return c + " + unknown"
}
