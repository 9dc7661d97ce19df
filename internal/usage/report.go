package usage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"paddock/internal/session"
)

// Totals are the summed usage of some calls. Cost is what is known of
// their cost: the agents' own figures and the list prices; the calls of
// models without a price are counted in UnknownCalls and UnknownTokens,
// and never guessed.
type Totals struct {
	Calls      int64   `json:"calls"`
	Input      int64   `json:"input_tokens"`
	Output     int64   `json:"output_tokens"`
	CacheRead  int64   `json:"cache_read_tokens"`
	CacheWrite int64   `json:"cache_write_tokens"`
	Cost       float64 `json:"cost_usd"`
	// Listed is the part of Cost priced from the price table (the rest
	// is the agents' own figures).
	Listed        float64 `json:"cost_listed_usd"`
	UnknownCalls  int64   `json:"unknown_cost_calls"`
	UnknownTokens int64   `json:"unknown_cost_tokens"`
}

// Tokens is every token counted.
func (t Totals) Tokens() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// CostKnown says the whole cost is known.
func (t Totals) CostKnown() bool { return t.UnknownCalls == 0 }

func (t *Totals) add(o Totals) {
	t.Calls += o.Calls
	t.Input += o.Input
	t.Output += o.Output
	t.CacheRead += o.CacheRead
	t.CacheWrite += o.CacheWrite
	t.Cost += o.Cost
	t.Listed += o.Listed
	t.UnknownCalls += o.UnknownCalls
	t.UnknownTokens += o.UnknownTokens
}

// Day is a calendar day in the store's zone.
type Day struct{ Y, M, D int }

// DayOf is t's day in loc.
func DayOf(t time.Time, loc *time.Location) Day {
	y, m, d := t.In(loc).Date()
	return Day{y, int(m), d}
}

// ParseDay reads "2006-01-02".
func ParseDay(s string) (Day, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return Day{}, fmt.Errorf("usage: %q is not a day (YYYY-MM-DD)", s)
	}
	return Day{t.Year(), int(t.Month()), t.Day()}, nil
}

func dayOfInt(n int) Day { return Day{n / 10000, n / 100 % 100, n % 100} }

func (d Day) int() int { return d.Y*10000 + d.M*100 + d.D }

// String is the day as "2006-01-02".
func (d Day) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Y, d.M, d.D) }

// Time is the day's midnight in loc.
func (d Day) Time(loc *time.Location) time.Time {
	return time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, loc)
}

// AddDays is the day n days later (earlier when negative).
func (d Day) AddDays(n int) Day {
	t := time.Date(d.Y, time.Month(d.M), d.D+n, 12, 0, 0, 0, time.UTC)
	return Day{t.Year(), int(t.Month()), t.Day()}
}

// Before says d is an earlier day than o.
func (d Day) Before(o Day) bool { return d.int() < o.int() }

// The groupings a report sums by.
const (
	ByDay     = "day"
	ByProject = "project"
	ByAgent   = "agent"
	ByModel   = "model"
)

// ErrGroup is a grouping that is none of ByDay, ByProject, ByAgent, ByModel.
var ErrGroup = errors.New("usage: group by day, project, agent or model")

// Row is the usage of one group.
type Row struct {
	Key string `json:"key"`
	Totals
	// CostKnown says every call's cost is known (Cost is then the
	// whole cost, else a part of it).
	CostKnown bool `json:"cost_known"`
}

// Rows sums the days from from to to (both included) per day, project,
// agent or model: days in order, the others costliest first (then by
// name).
func (s *Store) Rows(ctx context.Context, group string, from, to Day) ([]Row, error) {
	table, key := "agent_days", "day"
	if r, ok := rollupFor(group); ok {
		table, key = r.table, r.key
	} else if group != ByDay {
		return nil, ErrGroup
	}
	sums := make([]string, len(sumColumns))
	for i, c := range sumColumns {
		sums[i] = "sum(" + c + ")"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+key+`, `+strings.Join(sums, ", ")+` FROM `+table+`
		WHERE day BETWEEN ? AND ? GROUP BY `+key, from.int(), to.int())
	if err != nil {
		return nil, fmt.Errorf("usage: %w", err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var k any
		if err := rows.Scan(&k, &r.Calls, &r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.Cost, &r.Listed, &r.UnknownCalls, &r.UnknownTokens); err != nil {
			return nil, err
		}
		switch v := k.(type) {
		case int64:
			r.Key = dayOfInt(int(v)).String()
		case string:
			r.Key = v
		}
		// What was taken off again (a session gone, or moved) leaves a
		// row of nothing, down to the float's last digits.
		if r.Calls == 0 && r.Tokens() == 0 && math.Abs(r.Cost) < 1e-9 {
			continue
		}
		r.CostKnown = r.UnknownCalls == 0
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Row) int {
		if group == ByDay {
			return cmp.Compare(a.Key, b.Key)
		}
		return cmp.Or(cmp.Compare(b.Cost, a.Cost), cmp.Compare(b.Tokens(), a.Tokens()), cmp.Compare(a.Key, b.Key))
	})
	return out, nil
}

// Sum adds rows up.
func Sum(rows []Row) Totals {
	var t Totals
	for _, r := range rows {
		t.add(r.Totals)
	}
	return t
}

// SessionUsage is one session's usage: its totals, per model, and its
// latest context fill.
type SessionUsage struct {
	Totals
	Models  []Row
	Context Fill
	HasFill bool
}

// Session is session k's usage; zero Totals when none was read.
func (s *Store) Session(ctx context.Context, k session.Key) (SessionUsage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT d.model, sum(d.calls), sum(d.input), sum(d.output), sum(d.cache_read), sum(d.cache_write),
			sum(d.cost), sum(d.listed), sum(d.unknown_calls), sum(d.unknown_tokens)
		FROM days d JOIN sessions s ON s.num = d.num WHERE s.key = ? GROUP BY d.model`, k.String())
	if err != nil {
		return SessionUsage{}, fmt.Errorf("usage: %w", err)
	}
	defer rows.Close()
	var u SessionUsage
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.Key, &r.Calls, &r.Input, &r.Output, &r.CacheRead, &r.CacheWrite, &r.Cost, &r.Listed,
			&r.UnknownCalls, &r.UnknownTokens); err != nil {
			return SessionUsage{}, err
		}
		u.Models = append(u.Models, r)
		u.add(r.Totals)
	}
	if err := rows.Err(); err != nil {
		return SessionUsage{}, err
	}
	slices.SortFunc(u.Models, func(a, b Row) int { return cmp.Or(cmp.Compare(b.Tokens(), a.Tokens()), cmp.Compare(a.Key, b.Key)) })
	u.Context, u.HasFill = s.Context(k)
	return u, nil
}

// Loc is the zone the store's days are in.
func (s *Store) Loc() *time.Location { return s.loc }

// Report is the usage of a range of days grouped one way: what the API,
// the page's export and `paddock usage --json` give.
type Report struct {
	Group  string `json:"group"`
	From   string `json:"from"`
	To     string `json:"to"`
	Rows   []Row  `json:"rows"`
	Total  Row    `json:"total"`
	Prices string `json:"prices"` // where the list prices come from, and when they were read
}

// DefaultDays is how many days a report covers when not told.
const DefaultDays = 30

// MaxDays bounds a report's range.
const MaxDays = 3660

// Range reads a report's days: from and to as "2006-01-02", either
// empty for its default (to: today in loc; from: DefaultDays days
// before to, to included).
func Range(from, to string, today Day) (Day, Day, error) {
	t, f := today, Day{}
	var err error
	if to != "" {
		if t, err = ParseDay(to); err != nil {
			return f, t, err
		}
	}
	f = t.AddDays(-(DefaultDays - 1))
	if from != "" {
		if f, err = ParseDay(from); err != nil {
			return f, t, err
		}
	}
	if t.Before(f) {
		return f, t, fmt.Errorf("usage: from %s is after to %s", f, t)
	}
	if f.AddDays(MaxDays).Before(t) {
		return f, t, fmt.Errorf("usage: a report covers at most %d days", MaxDays)
	}
	return f, t, nil
}

// Report groups the usage of the days from from to to.
func (s *Store) Report(ctx context.Context, group string, from, to Day) (Report, error) {
	rows, err := s.Rows(ctx, group, from, to)
	if err != nil {
		return Report{}, err
	}
	if rows == nil {
		rows = []Row{}
	}
	total := Row{Key: "total", Totals: Sum(rows)}
	total.CostKnown = total.UnknownCalls == 0
	p := s.prices
	return Report{Group: group, From: from.String(), To: to.String(), Rows: rows, Total: total, Prices: p.Source + " (" + p.Date + ")"}, nil
}
