package web

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent"
	"paddock/internal/agent/registry"
	"paddock/internal/session"
	"paddock/internal/usage"
)

// usageRig is the rig with its Claude session's answer carrying usage,
// read into a real usage file by the real Claude reader.
func usageRig(t *testing.T) (*rig, *Server) {
	t.Helper()
	r := newRig(t)
	path := filepath.Join(r.claudeDir, "projects", "-work-demo-project", sessionA+".jsonl")
	// Sonnet 5: 1,000 in at $2/M, 500 out at $10/M, 200,000 read from the
	// cache at $0.20/M: $0.047; 201,500 of its 1,000,000-token window.
	line, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": "99999999-0000-4000-8000-000000000009", "sessionId": sessionA,
		"cwd": projectPath, "timestamp": time.Now().Add(-30 * time.Minute).UTC().Format(time.RFC3339Nano),
		"message": map[string]any{"id": "msg_usage", "role": "assistant", "model": "claude-sonnet-5",
			"content": []map[string]any{{"type": "text", "text": "counted"}},
			"usage":   map[string]any{"input_tokens": 1000, "output_tokens": 500, "cache_read_input_tokens": 200000, "cache_creation_input_tokens": 0}}})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(line, '\n'))
	f.Close()
	r.cat.Rescan(t.Context())
	st, err := usage.OpenStore(t.Context(), usage.StoreOptions{Path: filepath.Join(t.TempDir(), "usage.db"), Loc: time.Local})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ix := usage.NewIndex(usage.Options{Store: st, Source: r.cat, Readers: registry.Default().UsageReaders(agent.Env{}, nil)})
	if _, err := ix.Build(t.Context()); err != nil {
		t.Fatal(err)
	}
	// A server of the rig's options and this usage; the rig's own keeps
	// running beside it, unchanged.
	opts := r.srv.opts
	opts.Usage = struct {
		*usage.Store
		*usage.Index
	}{st, ix}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r, srv
}

func TestUsagePageAndAPI(t *testing.T) {
	r, srv := usageRig(t)
	tok := r.pair()
	h := srv.Handler()

	w := r.do(h, http.MethodGet, "/usage", withCookie(tok))
	if w.Code != http.StatusOK {
		t.Fatalf("GET /usage: %d %s", w.Code, w.Body)
	}
	doc := parseHTML(t, w.Body.String())
	if got := doc.Find(`[data-testid="usage-cost"]`).Text(); got != "$0.05" {
		t.Errorf("total cost %q, want $0.05", got)
	}
	if got := doc.Find(`[data-testid="usage-agents"] [data-testid="usage-row"] th`).First().Text(); !strings.HasPrefix(got, "Claude") {
		t.Errorf("by agent: %q", got)
	}
	if n := doc.Find(`[data-testid="usage-chart"] svg rect.bar`).Length(); n != usage.DefaultDays {
		t.Errorf("%d bars in the chart, want one per day of %d", n, usage.DefaultDays)
	}
	if doc.Find(`[data-testid="usage-unknown"]`).Length() != 0 {
		t.Error("every call's cost is known, yet the page says some are not")
	}

	// The API: the same numbers, per agent.
	w = r.do(h, http.MethodGet, "/api/v1/usage?group=agent", withCookie(tok))
	var rep usage.Report
	if err := json.Unmarshal(w.Body.Bytes(), &rep); err != nil || w.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/usage: %d %s", w.Code, w.Body)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Key != "claude" || rep.Rows[0].Input != 1000 || rep.Rows[0].CacheRead != 200000 ||
		math.Abs(rep.Rows[0].Cost-0.047) > 1e-9 || !rep.Rows[0].CostKnown || rep.Total.Calls != 1 {
		t.Errorf("report %+v", rep)
	}

	// Its export.
	w = r.do(h, http.MethodGet, "/usage/export?format=csv&group=model", withCookie(tok))
	rows, err := csv.NewReader(w.Body).ReadAll()
	if err != nil || len(rows) != 3 || rows[0][0] != "model" || rows[1][0] != "claude-sonnet-5" || rows[1][6] != "0.047000" || rows[2][0] != "total" {
		t.Errorf("CSV export: %v %v", rows, err)
	}
	if cd := w.Header().Get("Content-Disposition"); !strings.Contains(cd, "attachment") {
		t.Errorf("CSV export disposition %q", cd)
	}

	for _, bad := range []string{"/api/v1/usage?group=week", "/api/v1/usage?from=2026-12-02&to=2026-11-01", "/api/v1/usage?from=yesterday",
		"/usage?days=0", "/usage/export?format=xls"} {
		w := r.do(h, http.MethodGet, bad, withCookie(tok))
		if w.Code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", bad, w.Code)
		}
	}
	if w := r.do(h, http.MethodGet, "/api/v1/usage"); w.Code != http.StatusUnauthorized && w.Code != http.StatusForbidden && w.Code != http.StatusSeeOther {
		t.Errorf("GET /api/v1/usage without a device: %d", w.Code)
	}
}

// TestUsageOnSessionAndCard: the session page shows its own totals and
// its context bar; the card shows the bar.
func TestUsageOnSessionAndCard(t *testing.T) {
	r, srv := usageRig(t)
	tok := r.pair()
	h := srv.Handler()
	w := r.do(h, http.MethodGet, "/s/claude/"+sessionA, withCookie(tok))
	doc := parseHTML(t, w.Body.String())
	if got := doc.Find(`[data-testid="session-cost"]`).Text(); got != "$0.05" {
		t.Errorf("session cost %q", got)
	}
	if got := doc.Find(`[data-testid="session-tokens"]`).Text(); got != "202k" {
		t.Errorf("session tokens %q, want 202k", got)
	}
	ctx := doc.Find(`[data-testid="context"]`)
	if p, _ := ctx.Attr("data-percent"); p != "20" || !strings.Contains(ctx.Text(), "202k of 1.0M") || ctx.HasClass("warn") {
		t.Errorf("context bar %q at %s%%", ctx.Text(), p)
	}

	w = r.do(h, http.MethodGet, "/api/v1/sessions/claude/"+sessionA+"/usage", withCookie(tok))
	var su struct {
		Calls   int64 `json:"calls"`
		Context struct {
			Tokens  int64 `json:"tokens"`
			Percent int   `json:"percent"`
		} `json:"context"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &su); err != nil || su.Calls != 1 || su.Context.Tokens != 201500 || su.Context.Percent != 20 {
		t.Errorf("session usage API: %s (%v)", w.Body, err)
	}

	w = r.do(h, http.MethodGet, "/", withCookie(tok))
	doc = parseHTML(t, w.Body.String())
	card := doc.Find(fmt.Sprintf(`[data-key="claude:%s"] [data-testid="context"]`, sessionA))
	if p, _ := card.Attr("data-percent"); p != "20" {
		t.Errorf("card context bar at %q%%: %q", p, card.Text())
	}
	if doc.Find(`a[href="/usage"]`).Length() == 0 {
		t.Error("the board links no usage page")
	}
}

// fakeSessions is a catalog of made-up sessions, for the page benchmark.
type fakeSessions []session.Info

func (f fakeSessions) WaitComplete(context.Context) error { return nil }
func (f fakeSessions) All() []session.Info                { return f }
func (f fakeSessions) Get(context.Context, session.Key) (session.Info, error) {
	return session.Info{}, session.ErrNotFound
}
func (f fakeSessions) Subscribe() (<-chan session.Change, func()) { return nil, func() {} }

// BenchmarkUsagePage renders GET /usage?days=90 over a usage file the
// size of the 10,000-session corpus's (10,000 sessions of six agents and
// 50 projects over 90 days, five calls each of two models), whole: the
// query, the sums, the chart and the page.
func BenchmarkUsagePage(b *testing.B) {
	r := newRig(b)
	now := time.Now()
	var infos fakeSessions
	for i := range 10_000 {
		infos = append(infos, session.Info{Runtime: registry.Default().Names()[i%6], ID: fmt.Sprintf("s%05d", i),
			Cwd: fmt.Sprintf("/work/project-%02d", i%50), Updated: now.Add(-time.Duration(i) * 90 * 24 * time.Hour / 10_000)})
	}
	rd := usage.ReaderFunc(func(_ context.Context, info session.Info, _ usage.Cursor) (usage.Batch, error) {
		b := usage.Batch{Fresh: true}
		for k := range 5 {
			model := "claude-sonnet-5"
			if k%2 == 1 {
				model = "gpt-6.1-sol"
			}
			b.Records = append(b.Records, usage.Record{Key: strconv.Itoa(k), Time: info.Updated.Add(time.Duration(k) * time.Minute), Model: model,
				Input: 1000, Output: 200, CacheRead: 20_000, Context: 21_200})
		}
		return b, nil
	})
	readers := map[string]usage.Reader{}
	for _, n := range registry.Default().Names() {
		readers[n] = rd
	}
	st, err := usage.OpenStore(b.Context(), usage.StoreOptions{Path: filepath.Join(b.TempDir(), "usage.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ix := usage.NewIndex(usage.Options{Store: st, Source: infos, Readers: readers})
	if _, err := ix.Build(b.Context()); err != nil {
		b.Fatal(err)
	}
	opts := r.srv.opts
	opts.Usage = struct {
		*usage.Store
		*usage.Index
	}{st, ix}
	srv, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	h, tok := srv.Handler(), r.pair()
	for b.Loop() {
		w := r.do(h, http.MethodGet, "/usage?days=90", withCookie(tok))
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "0 calls · ") {
			b.Fatalf("%d %s", w.Code, w.Body.String())
		}
	}
}
