package usage

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/session"
)

// fakeSource is a catalog of fixed sessions.
type fakeSource struct {
	mu    sync.Mutex
	infos []session.Info
	ch    chan session.Change
}

func (f *fakeSource) WaitComplete(context.Context) error { return nil }
func (f *fakeSource) All() []session.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]session.Info(nil), f.infos...)
}
func (f *fakeSource) Get(_ context.Context, k session.Key) (session.Info, error) {
	for _, i := range f.All() {
		if i.Key() == k {
			return i, nil
		}
	}
	return session.Info{}, session.ErrNotFound
}
func (f *fakeSource) Subscribe() (<-chan session.Change, func()) {
	if f.ch == nil {
		f.ch = make(chan session.Change, 8)
	}
	return f.ch, func() {}
}

// scripted reads each session's records from a map, counting the reads
// and what they started from.
type scripted struct {
	mu    sync.Mutex
	recs  map[string][]Record // by session id: everything the history holds
	reads map[string][]int    // the offsets each read started from
}

func (s *scripted) Read(_ context.Context, info session.Info, from Cursor) (Batch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, ok := s.recs[info.ID]
	if !ok {
		return Batch{}, session.ErrNotFound
	}
	start := int(from.File("f").Offset)
	if s.reads == nil {
		s.reads = map[string][]int{}
	}
	s.reads[info.ID] = append(s.reads[info.ID], start)
	return Batch{Records: all[start:], Fresh: start == 0, Cursor: Cursor{Files: []Mark{{Name: "f", Offset: int64(len(all))}}}}, nil
}

var day1 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func testStore(t *testing.T, path string, log *slog.Logger) *Store {
	t.Helper()
	st, err := OpenStore(t.Context(), StoreOptions{Path: path, Loc: time.UTC, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func info(rt, id, cwd string, at time.Time) session.Info {
	return session.Info{Runtime: rt, ID: id, Cwd: cwd, Updated: at, Path: "/h/" + id}
}

// TestStoreTotals: list prices where the agent records no cost, the
// agent's own cost where it does, tokens only (and "cost unknown") for a
// model without a price, calls covered by a running cost never priced;
// summed per day, project, agent and model, and per session.
func TestStoreTotals(t *testing.T) {
	st := testStore(t, filepath.Join(t.TempDir(), "usage.db"), nil)
	src := &fakeSource{infos: []session.Info{
		info("claude", "c1", "/w/alpha", day1),
		info("codex", "x1", "/w/beta", day1.Add(24*time.Hour)),
	}}
	rd := &scripted{recs: map[string][]Record{
		"c1": {
			// Sonnet 5: 1M in at $2, 100k out at $10, 2M read at $0.20,
			// 400k written (100k for an hour) at $2.50 and $4.
			{Key: "a", Time: day1, Model: "claude-sonnet-5", Input: 1_000_000, Output: 100_000, CacheRead: 2_000_000,
				CacheWrite: 400_000, CacheWrite1h: 100_000, Context: 3_500_000},
			// The agent's own cost: $0.50, whatever the table says.
			{Key: "b", Time: day1.Add(time.Hour), Model: "claude-sonnet-5", Input: 10, Output: 10, Cost: 0.5, HasCost: true, Context: 400_000},
			// Covered by a running cost elsewhere: never priced.
			{Key: "c", Time: day1.Add(2 * time.Hour), Model: "claude-sonnet-5", Input: 1_000_000, Covered: true, Context: 800_000},
		},
		"x1": {
			{Key: "a", Time: day1.Add(24 * time.Hour), Model: "mock-model", Input: 100, Output: 6, Context: 106, Window: 1000},
		},
	}}
	ix := NewIndex(Options{Store: st, Source: src, Readers: map[string]Reader{"claude": rd, "codex": rd}})
	if _, err := ix.Build(t.Context()); err != nil {
		t.Fatal(err)
	}
	listed := 2.0 + 1.0 + 0.4 + 0.3*2.5 + 0.1*4
	nov1, nov30 := Day{2026, 11, 1}, Day{2026, 11, 30}
	for _, tt := range []struct {
		by   string
		keys []string
	}{
		{ByDay, []string{"2026-11-03", "2026-11-04"}},
		{ByProject, []string{"alpha", "beta"}},
		{ByAgent, []string{"claude", "codex"}},
		{ByModel, []string{"claude-sonnet-5", "mock-model"}},
	} {
		rows, err := st.Rows(t.Context(), tt.by, nov1, nov30)
		if err != nil || len(rows) != len(tt.keys) {
			t.Fatalf("by %s: %v %v", tt.by, rows, err)
		}
		for i, k := range tt.keys {
			if rows[i].Key != k {
				t.Errorf("by %s: row %d is %q, want %q", tt.by, i, rows[i].Key, k)
			}
		}
		if math.Abs(rows[0].Cost-(listed+0.5)) > 1e-9 || !rows[0].CostKnown || rows[1].Cost != 0 || rows[1].UnknownCalls != 1 || rows[1].CostKnown {
			t.Errorf("by %s: %+v", tt.by, rows)
		}
		sum := Sum(rows)
		if sum.Calls != 4 || sum.Input != 2_000_110 || sum.Output != 100_016 || math.Abs(sum.Cost-(listed+0.5)) > 1e-9 ||
			math.Abs(sum.Listed-listed) > 1e-9 || sum.UnknownCalls != 1 || sum.UnknownTokens != 106 || sum.CostKnown() {
			t.Errorf("by %s, totals %+v; want 4 calls, cost %v of which %v listed, 1 call (106 tokens) of unknown cost", tt.by, sum, listed+0.5, listed)
		}
	}
	if _, err := st.Rows(t.Context(), "week", nov1, nov30); err != ErrGroup {
		t.Errorf("group by week: %v", err)
	}
	if rows, _ := st.Rows(t.Context(), ByAgent, Day{2026, 11, 4}, nov30); len(rows) != 1 || rows[0].Key != "codex" {
		t.Errorf("from the 4th: %+v; want codex alone", rows)
	}
	u, err := st.Session(t.Context(), session.Key{Runtime: "claude", ID: "c1"})
	if err != nil || u.Calls != 3 || math.Abs(u.Cost-(listed+0.5)) > 1e-9 || !u.HasFill || u.Context.Tokens != 800_000 ||
		u.Context.Window != 1_000_000 || u.Context.Percent() != 80 || !u.Context.Warn() {
		t.Errorf("session c1: %+v, %v; want its latest call's 800,000 of Sonnet 5's 1,000,000: 80%%, a warning", u, err)
	}
	// Codex records its window itself.
	if f, ok := st.Context(session.Key{Runtime: "codex", ID: "x1"}); !ok || f.Tokens != 106 || f.Window != 1000 || f.Percent() != 10 || f.Warn() {
		t.Errorf("codex fill %+v %v", f, ok)
	}
}

// TestStoreAppendsAndForgets: a session whose time changed is read from
// where its last read stopped; one whose time did not is not read; one
// the catalog no longer lists leaves.
func TestStoreAppendsAndForgets(t *testing.T) {
	st := testStore(t, filepath.Join(t.TempDir(), "usage.db"), nil)
	src := &fakeSource{infos: []session.Info{info("claude", "c1", "/w/a", day1), info("claude", "c2", "/w/a", day1)}}
	rd := &scripted{recs: map[string][]Record{
		"c1": {{Key: "m1", Time: day1, Model: "m", Input: 10}},
		"c2": {{Key: "m1", Time: day1, Model: "m", Input: 5}},
	}}
	ix := NewIndex(Options{Store: st, Source: src, Readers: map[string]Reader{"claude": rd}})
	ix.Build(t.Context())
	// c1 grows: a new call, and the last one written again with more
	// output (a streamed message) under its key.
	rd.recs["c1"] = append(rd.recs["c1"], Record{Key: "m2", Time: day1, Model: "m", Input: 20}, Record{Key: "m1", Time: day1, Model: "m", Input: 10, Output: 3})
	src.infos[0].Updated = day1.Add(time.Minute)
	ix.Build(t.Context())
	if got := rd.reads["c1"]; len(got) != 2 || got[1] != 1 {
		t.Errorf("c1 read from %v; want 0, then 1 (what was appended)", got)
	}
	if got := rd.reads["c2"]; len(got) != 1 {
		t.Errorf("c2, unchanged, read %d times", len(got))
	}
	u, _ := st.Session(t.Context(), session.Key{Runtime: "claude", ID: "c1"})
	if u.Calls != 2 || u.Input != 30 || u.Output != 3 {
		t.Errorf("c1 after the append: %+v; want 2 calls, 30 in, 3 out (m1 replaced, not added)", u.Totals)
	}
	src.infos = src.infos[:1]
	ix.Build(t.Context())
	if u, _ := st.Session(t.Context(), session.Key{Runtime: "claude", ID: "c2"}); u.Calls != 0 {
		t.Errorf("c2 left the catalog but its usage stayed: %+v", u.Totals)
	}
}

// TestStoreRefusesImpossible: negative and absurd counts are refused per
// record, logged once per session read, never summed.
func TestStoreRefusesImpossible(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	st := testStore(t, filepath.Join(t.TempDir(), "usage.db"), log)
	src := &fakeSource{infos: []session.Info{info("claude", "c1", "/w/a", day1), info("claude", "c2", "/w/a", day1)}}
	rd := &scripted{recs: map[string][]Record{
		"c1": {
			{Key: "ok", Time: day1, Model: "m", Input: 10, Output: 2},
			{Key: "neg", Time: day1, Model: "m", Input: -5},
			{Key: "huge", Time: day1, Model: "m", Output: MaxTokens + 1},
			{Key: "cost", Time: day1, Model: "m", Input: 1, Cost: -1, HasCost: true},
			{Key: "1h", Time: day1, Model: "m", CacheWrite: 1, CacheWrite1h: 2},
		},
		"c2": {{Key: "ok", Time: day1, Model: "m", Input: 1}},
	}}
	ix := NewIndex(Options{Store: st, Source: src, Readers: map[string]Reader{"claude": rd}, Log: log})
	if _, err := ix.Build(t.Context()); err != nil {
		t.Fatal(err)
	}
	u, _ := st.Session(t.Context(), session.Key{Runtime: "claude", ID: "c1"})
	if u.Calls != 1 || u.Input != 10 || u.Output != 2 || u.Cost != 0 {
		t.Errorf("c1: %+v; want only the good call", u.Totals)
	}
	if n := strings.Count(logs.String(), "records refused"); n != 1 || !strings.Contains(logs.String(), "refused=4") || !strings.Contains(logs.String(), "path=/h/c1") {
		t.Errorf("%d log lines about refused records; want one naming c1's file and 4 records:\n%s", n, logs.String())
	}
}

// TestStoreRebuilt: the file is derived: deleted, it is built again with
// the same totals; a file priced with another table is emptied and read
// again.
func TestStoreRebuilt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "usage.db")
	src := &fakeSource{infos: []session.Info{info("claude", "c1", "/w/a", day1)}}
	rd := &scripted{recs: map[string][]Record{"c1": {{Key: "a", Time: day1, Model: "claude-sonnet-5", Input: 1_000_000}}}}
	total := func(st *Store) Totals {
		ix := NewIndex(Options{Store: st, Source: src, Readers: map[string]Reader{"claude": rd}})
		if _, err := ix.Build(t.Context()); err != nil {
			t.Fatal(err)
		}
		u, _ := st.Session(t.Context(), session.Key{Runtime: "claude", ID: "c1"})
		return u.Totals
	}
	st, _ := OpenStore(t.Context(), StoreOptions{Path: path, Loc: time.UTC})
	first := total(st)
	st.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("usage file mode %v, %v; want 0600", fi.Mode(), err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		os.Remove(p)
	}
	st, _ = OpenStore(t.Context(), StoreOptions{Path: path, Loc: time.UTC})
	if again := total(st); again != first || first.Cost != 2 {
		t.Errorf("rebuilt %+v, first %+v", again, first)
	}
	st.Close()

	// The user prices Sonnet 5 at $3: the stored usage is read again.
	over := filepath.Join(dir, PricesFile)
	os.WriteFile(over, []byte("[models.\"claude-sonnet-5\"]\ninput = 3.0\noutput = 15.0\n"), 0o600)
	prices, err := LoadPrices(over)
	if err != nil {
		t.Fatal(err)
	}
	st, _ = OpenStore(t.Context(), StoreOptions{Path: path, Loc: time.UTC, Prices: prices})
	defer st.Close()
	if got := total(st); got.Cost != 3 {
		t.Errorf("priced again at $3/M: cost %v", got.Cost)
	}
}

// TestStoreDays: a call belongs to the day of the store's zone.
func TestStoreDays(t *testing.T) {
	loc := time.FixedZone("UTC-5", -5*3600)
	st, err := OpenStore(t.Context(), StoreOptions{Path: filepath.Join(t.TempDir(), "u.db"), Loc: loc})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	late := time.Date(2026, 11, 4, 3, 0, 0, 0, time.UTC) // 22:00 on the 3rd there
	src := &fakeSource{infos: []session.Info{info("claude", "c1", "/w/a", late)}}
	rd := &scripted{recs: map[string][]Record{"c1": {{Key: "a", Time: late, Model: "m", Input: 1}}}}
	NewIndex(Options{Store: st, Source: src, Readers: map[string]Reader{"claude": rd}}).Build(t.Context())
	rows, _ := st.Rows(t.Context(), ByDay, Day{2026, 11, 1}, Day{2026, 11, 30})
	if len(rows) != 1 || rows[0].Key != "2026-11-03" {
		t.Errorf("days %+v; want one, 2026-11-03", rows)
	}
}

// checkRollups compares each way of summing with the per-session sums
// added up directly: the triggers must keep them equal.
func checkRollups(t *testing.T, st *Store, step string) {
	t.Helper()
	from, to := Day{2026, 1, 1}, Day{2026, 12, 31}
	for _, g := range []struct{ by, key string }{{ByDay, "d.day"}, {ByAgent, "s.runtime"}, {ByProject, "s.project"}, {ByModel, "d.model"}} {
		rows, err := st.Rows(t.Context(), g.by, from, to)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Totals{}
		for _, r := range rows {
			got[r.Key] = r.Totals
		}
		q, err := st.db.QueryContext(t.Context(), `SELECT `+g.key+`, sum(d.calls), sum(d.input), sum(d.output), sum(d.cost), sum(d.unknown_calls)
			FROM days d JOIN sessions s ON s.num = d.num GROUP BY `+g.key)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]Totals{}
		for q.Next() {
			var k any
			var w Totals
			q.Scan(&k, &w.Calls, &w.Input, &w.Output, &w.Cost, &w.UnknownCalls)
			key := ""
			switch v := k.(type) {
			case int64:
				key = dayOfInt(int(v)).String()
			case string:
				key = v
			}
			want[key] = w
		}
		q.Close()
		if len(got) != len(want) {
			t.Errorf("%s: by %s: %v, want %v", step, g.by, got, want)
			continue
		}
		for k, w := range want {
			h := got[k]
			if h.Calls != w.Calls || h.Input != w.Input || h.Output != w.Output || math.Abs(h.Cost-w.Cost) > 1e-9 || h.UnknownCalls != w.UnknownCalls {
				t.Errorf("%s: by %s, %s: %+v, want %+v", step, g.by, k, h, w)
			}
		}
	}
}

// TestRollupsFollowChanges: the sums per day, agent, project and model
// stay those of the sessions through appends that move a call to another
// day, a session that changes project, one read again from its start,
// and one that leaves.
func TestRollupsFollowChanges(t *testing.T) {
	st := testStore(t, filepath.Join(t.TempDir(), "usage.db"), nil)
	src := &fakeSource{infos: []session.Info{
		info("claude", "c1", "/w/alpha", day1),
		info("codex", "x1", "/w/alpha", day1),
		info("pi", "p1", "/w/beta", day1),
	}}
	rec := func(k string, at time.Time, model string, in int64) Record {
		return Record{Key: k, Time: at, Model: model, Input: in, Output: 1}
	}
	rd := &scripted{recs: map[string][]Record{
		"c1": {rec("a", day1, "claude-sonnet-5", 1000), rec("b", day1, "claude-sonnet-5", 10)},
		"x1": {rec("a", day1, "gpt-6-sol", 500)},
		"p1": {rec("a", day1, "mock-model", 7)},
	}}
	ix := NewIndex(Options{Store: st, Source: src, Readers: map[string]Reader{"claude": rd, "codex": rd, "pi": rd}})
	build := func(step string) {
		t.Helper()
		if _, err := ix.Build(t.Context()); err != nil {
			t.Fatal(err)
		}
		checkRollups(t, st, step)
	}
	build("first build")
	// c1 grows: its "b" is written again a day later, and a new call.
	rd.recs["c1"] = append(rd.recs["c1"], rec("b", day1.Add(24*time.Hour), "claude-sonnet-5", 20), rec("c", day1.Add(24*time.Hour), "claude-opus-5-5", 3))
	src.infos[0].Updated = day1.Add(24 * time.Hour)
	build("an append moving a call to the next day")
	// x1 moves to another project.
	src.infos[1].Cwd, src.infos[1].Updated = "/w/gamma", day1.Add(time.Hour)
	rd.recs["x1"] = append(rd.recs["x1"], rec("b", day1.Add(time.Hour), "gpt-6-sol", 5))
	build("a session moved to another project")
	if rows, _ := st.Rows(t.Context(), ByProject, Day{2026, 1, 1}, Day{2026, 12, 31}); len(rows) != 3 {
		t.Errorf("projects %+v; want alpha, beta, gamma", rows)
	}
	// p1 is read again from its start, with less in it.
	rd.recs["p1"] = []Record{rec("z", day1, "mock-model", 2)}
	src.infos[2].Updated = day1.Add(2 * time.Hour)
	rd.reads = nil
	st.mu.Lock()
	st.db.ExecContext(t.Context(), `UPDATE sessions SET cursor = '{}' WHERE key = 'pi:p1'`)
	st.mu.Unlock()
	build("a session read again from its start")
	// c1 leaves.
	src.infos = src.infos[1:]
	build("a session gone")
	if rows, _ := st.Rows(t.Context(), ByAgent, Day{2026, 1, 1}, Day{2026, 12, 31}); len(rows) != 2 {
		t.Errorf("agents %+v; want codex and pi", rows)
	}
}
