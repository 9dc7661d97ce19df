package web

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v5"

	"paddock/internal/session"
	"paddock/internal/usage"
	"paddock/views"
)

// Usage is what the sessions used and cost (internal/usage).
type Usage interface {
	Rows(ctx context.Context, group string, from, to usage.Day) ([]usage.Row, error)
	Report(ctx context.Context, group string, from, to usage.Day) (usage.Report, error)
	Session(ctx context.Context, k session.Key) (usage.SessionUsage, error)
	Context(k session.Key) (usage.Fill, bool)
	Loc() *time.Location
	Prices() *usage.Prices
	// Ready says every session's history has been read once.
	Ready() bool
	// Subscribe tells which sessions' usage changed (nil: maybe all).
	Subscribe() (<-chan []session.Key, func())
}

// usageRange reads the request's days: from and to (YYYY-MM-DD), or days
// (the last so many, today included), else the last 30.
func (s *Server) usageRange(c *echo.Context) (usage.Day, usage.Day, error) {
	today := usage.DayOf(s.opts.Now(), s.opts.Usage.Loc())
	from, to := c.QueryParam("from"), c.QueryParam("to")
	if raw := c.QueryParam("days"); raw != "" && from == "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > usage.MaxDays {
			return usage.Day{}, usage.Day{}, newError(http.StatusBadRequest, "bad_days", "days is a whole number from 1 to "+strconv.Itoa(usage.MaxDays)+".")
		}
		t := today
		if to != "" {
			var err error
			if t, err = usage.ParseDay(to); err != nil {
				return usage.Day{}, usage.Day{}, newError(http.StatusBadRequest, "bad_range", "to is a day: 2026-11-30.")
			}
		}
		from = t.AddDays(-(n - 1)).String()
	}
	f, t, err := usage.Range(from, to, today)
	if err != nil {
		return f, t, newError(http.StatusBadRequest, "bad_range", "from and to are days (2026-11-30), from before to, at most "+strconv.Itoa(usage.MaxDays)+" days apart.")
	}
	return f, t, nil
}

// usageReport is the request's report: its range and grouping.
func (s *Server) usageReport(c *echo.Context, defaultGroup string) (usage.Report, error) {
	if s.opts.Usage == nil {
		return usage.Report{}, newError(http.StatusServiceUnavailable, "no_usage", "This paddock keeps no usage.")
	}
	from, to, err := s.usageRange(c)
	if err != nil {
		return usage.Report{}, err
	}
	group := c.QueryParam("group")
	if group == "" {
		group = defaultGroup
	}
	r, err := s.opts.Usage.Report(c.Request().Context(), group, from, to)
	if errors.Is(err, usage.ErrGroup) {
		return r, newError(http.StatusBadRequest, "bad_group", "group is day, project, agent or model.")
	}
	return r, err
}

// apiUsage is GET /api/v1/usage?group=day|project|agent|model&from=&to=:
// the tokens and cost of the range (the last 30 days by default) per
// group, with their total. `paddock usage --json` prints the same.
func (s *Server) apiUsage(c *echo.Context) error {
	r, err := s.usageReport(c, usage.ByDay)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, r)
}

// usageExport is GET /usage/export?format=csv|json: the report as a file.
func (s *Server) usageExport(c *echo.Context) error {
	r, err := s.usageReport(c, usage.ByDay)
	if err != nil {
		return err
	}
	name := "paddock-usage-" + r.Group + "-" + r.From + "-" + r.To
	switch c.QueryParam("format") {
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`.json"`)
		return c.Blob(http.StatusOK, "application/json", append(b, '\n'))
	case "csv", "":
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write([]string{r.Group, "calls", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_usd", "cost_known", "unknown_cost_calls"})
		for _, row := range append(r.Rows, r.Total) {
			w.Write([]string{row.Key, itoa64(row.Calls), itoa64(row.Input), itoa64(row.Output), itoa64(row.CacheRead), itoa64(row.CacheWrite),
				strconv.FormatFloat(row.Cost, 'f', 6, 64), strconv.FormatBool(row.CostKnown), itoa64(row.UnknownCalls)})
		}
		w.Flush()
		c.Response().Header().Set("Content-Disposition", `attachment; filename="`+name+`.csv"`)
		return c.Blob(http.StatusOK, "text/csv; charset=utf-8", buf.Bytes())
	}
	return newError(http.StatusBadRequest, "bad_format", "format is csv or json.")
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// usageRanges are the ranges the page offers, in days.
var usageRanges = []int{7, 30, 90}

// usagePage is GET /usage: the range's cost and tokens per day (a chart)
// and per agent, project, model and day.
func (s *Server) usagePage(c *echo.Context) error {
	if s.opts.Usage == nil {
		return newError(http.StatusServiceUnavailable, "no_usage", "This paddock keeps no usage.")
	}
	from, to, err := s.usageRange(c)
	if err != nil {
		return err
	}
	// Each way of summing is its own query: a few rows a day each.
	groups := map[string][]usage.Row{}
	for _, g := range []string{usage.ByDay, usage.ByAgent, usage.ByProject, usage.ByModel} {
		if groups[g], err = s.opts.Usage.Rows(c.Request().Context(), g, from, to); err != nil {
			return err
		}
	}
	metric := c.QueryParam("metric")
	if metric != "tokens" {
		metric = "cost"
	}
	q := url.Values{"from": {from.String()}, "to": {to.String()}}
	v := views.UsagePage{From: from.String(), To: to.String(), Metric: metric, Building: !s.opts.Usage.Ready(),
		CSV: "/usage/export?" + q.Encode() + "&format=csv", JSON: "/usage/export?" + q.Encode() + "&format=json"}
	today := usage.DayOf(s.opts.Now(), s.opts.Usage.Loc())
	for _, n := range usageRanges {
		label := strconv.Itoa(n) + " days"
		v.Ranges = append(v.Ranges, views.Option{Value: "/usage?days=" + strconv.Itoa(n) + "&metric=" + metric, Label: label})
		if to == today && from == today.AddDays(-(n-1)) {
			v.Range = label
		}
	}
	for _, m := range []string{"cost", "tokens"} {
		v.Metrics = append(v.Metrics, views.Option{Value: "/usage?" + q.Encode() + "&metric=" + m, Label: m})
	}
	p := s.opts.Usage.Prices()
	v.Prices = p.Source + ", read " + p.Date
	rows := func(group string, label func(string) string) []views.UsageRow {
		out := make([]views.UsageRow, 0, len(groups[group]))
		for _, row := range groups[group] {
			out = append(out, usageRow(label(row.Key), row.Totals))
		}
		return out
	}
	v.ByAgent = rows(usage.ByAgent, s.opts.Agents.Label)
	v.ByProj = rows(usage.ByProject, func(k string) string { return cmpOr(k, "(no project)") })
	v.ByModel = rows(usage.ByModel, func(k string) string { return cmpOr(k, "(no model named)") })
	v.ByDay = rows(usage.ByDay, func(k string) string { return k })
	v.Total = usageRow("Total", usage.Sum(groups[usage.ByAgent]))
	v.Chart = usageChart(groups[usage.ByDay], from, to, metric)
	return s.render(c, http.StatusOK, views.Usage(s.page(c, "Usage"), v))
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// usageRow is a group's totals in words.
func usageRow(label string, t usage.Totals) views.UsageRow {
	return views.UsageRow{
		Label:     label,
		Cost:      costText(t),
		CostKnown: t.CostKnown(),
		Tokens:    tokenText(t.Tokens()),
		Calls:     plural64(t.Calls, "call"),
		Detail: fmt.Sprintf("%s in, %s out, cache %s read, %s written", tokenText(t.Input), tokenText(t.Output),
			tokenText(t.CacheRead), tokenText(t.CacheWrite)),
	}
}

func plural64(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}

// costText is what is known of a cost: "$1.23", "$1.23 + unknown" when
// some calls have no known price, "unknown" when none has.
func costText(t usage.Totals) string {
	if t.CostKnown() {
		return dollars(t.Cost)
	}
	if t.Cost == 0 {
		return "cost unknown"
	}
	return dollars(t.Cost) + " + unknown"
}

// dollars is an amount in US dollars, cents shown for whole amounts and
// the first digits for what is less than a cent.
func dollars(c float64) string {
	switch {
	case c == 0:
		return "$0.00"
	case c < 0.01:
		return "$" + strconv.FormatFloat(c, 'f', 4, 64)
	}
	return "$" + strconv.FormatFloat(c, 'f', 2, 64)
}

// tokenText is a token count for people: "950", "41k", "1.2M".
func tokenText(n int64) string {
	switch {
	case n >= 10_000_000:
		return strconv.FormatInt((n+500_000)/1_000_000, 10) + "M"
	case n >= 1_000_000:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 1, 64) + "M"
	case n >= 10_000:
		return strconv.FormatInt((n+500)/1000, 10) + "k"
	case n >= 1000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// Chart units: a day is dayW wide, its bar barW; the chart chartH high.
const (
	dayW   = 10
	barW   = 8
	chartH = 100
)

// usageChart draws cost or tokens per day of the range as bars.
func usageChart(days []usage.Row, from, to usage.Day, metric string) views.UsageChart {
	per := map[string]usage.Totals{}
	for _, d := range days {
		per[d.Key] = d.Totals
	}
	value := func(t usage.Totals) float64 {
		if metric == "tokens" {
			return float64(t.Tokens())
		}
		return t.Cost
	}
	text := func(f float64) string {
		if metric == "tokens" {
			return tokenText(int64(f)) + " tokens"
		}
		return dollars(f)
	}
	var all []usage.Day
	top := 0.0
	for d := from; !to.Before(d); d = d.AddDays(1) {
		all = append(all, d)
		top = max(top, value(per[d.String()]))
	}
	ch := views.UsageChart{Width: len(all) * dayW, Height: chartH, Top: text(top), First: from.String(), Last: to.String(),
		Summary: fmt.Sprintf("%s per day from %s to %s; the most in a day: %s", metric, from, to, text(top))}
	for i, d := range all {
		v := value(per[d.String()])
		h := 0
		if top > 0 {
			h = int(v / top * chartH)
			if v > 0 && h == 0 {
				h = 1 // a day with some use shows
			}
		}
		ch.Bars = append(ch.Bars, views.UsageBar{X: i*dayW + (dayW-barW)/2, Y: chartH - h, W: barW, H: h, Title: d.String() + ": " + text(v)})
	}
	return ch
}

// contextFill is k's context fill for its card and page (zero when
// none was recorded).
func (s *Server) contextFill(k session.Key) views.ContextFill {
	if s.opts.Usage == nil {
		return views.ContextFill{}
	}
	f, ok := s.opts.Usage.Context(k)
	if !ok || f.Tokens <= 0 {
		return views.ContextFill{}
	}
	if f.Window <= 0 {
		return views.ContextFill{Label: "Context: " + tokenText(f.Tokens) + " tokens"}
	}
	p := f.Percent()
	return views.ContextFill{Percent: min(p, 100), Window: true, Warn: f.Warn(),
		Label: fmt.Sprintf("Context %d%%: %s of %s tokens", p, tokenText(f.Tokens), tokenText(f.Window))}
}

// sessionUsage is k's own totals for its page; false when none.
func (s *Server) sessionUsage(ctx context.Context, k session.Key) (views.SessionUsage, bool) {
	if s.opts.Usage == nil {
		return views.SessionUsage{}, false
	}
	u, err := s.opts.Usage.Session(ctx, k)
	if err != nil {
		s.log.Warn("usage of a session not read", "session", k.String(), "error", err)
		return views.SessionUsage{}, false
	}
	if u.Calls == 0 && u.Cost == 0 {
		return views.SessionUsage{}, false
	}
	v := views.SessionUsage{Total: usageRow("Total", u.Totals)}
	for _, m := range u.Models {
		v.Models = append(v.Models, usageRow(cmpOr(m.Key, "(no model named)"), m.Totals))
	}
	return v, true
}

// sessionUsageJSON is one session's usage as the API gives it.
type sessionUsageJSON struct {
	usage.Totals
	CostKnown bool         `json:"cost_known"`
	Models    []usage.Row  `json:"models"`
	Context   *contextJSON `json:"context,omitempty"`
}

type contextJSON struct {
	Tokens  int64     `json:"tokens"`
	Window  int64     `json:"window,omitempty"` // 0: unknown
	Percent int       `json:"percent,omitempty"`
	Warn    bool      `json:"warn"`
	Model   string    `json:"model,omitempty"`
	At      time.Time `json:"at"`
}

// apiSessionUsage is GET /api/v1/sessions/{runtime}/{id}/usage: the
// session's tokens and cost, per model, and its context fill.
func (s *Server) apiSessionUsage(c *echo.Context) error {
	if s.opts.Usage == nil {
		return newError(http.StatusServiceUnavailable, "no_usage", "This paddock keeps no usage.")
	}
	k := session.Key{Runtime: c.Param("runtime"), ID: c.Param("id")}
	if _, err := s.opts.Board.Get(c.Request().Context(), k); err != nil {
		return err
	}
	u, err := s.opts.Usage.Session(c.Request().Context(), k)
	if err != nil {
		return err
	}
	out := sessionUsageJSON{Totals: u.Totals, CostKnown: u.CostKnown(), Models: u.Models}
	if out.Models == nil {
		out.Models = []usage.Row{}
	}
	for i := range out.Models {
		out.Models[i].CostKnown = out.Models[i].UnknownCalls == 0
	}
	if u.HasFill {
		f := u.Context
		out.Context = &contextJSON{Tokens: f.Tokens, Window: f.Window, Percent: f.Percent(), Warn: f.Warn(), Model: f.Model, At: f.At.UTC()}
	}
	return c.JSON(http.StatusOK, out)
}
