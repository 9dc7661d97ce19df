package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

// sessionUsage is GET /api/v1/sessions/{runtime}/{id}/usage.
type sessionUsage struct {
	Calls     int64   `json:"calls"`
	Input     int64   `json:"input_tokens"`
	Output    int64   `json:"output_tokens"`
	Cost      float64 `json:"cost_usd"`
	CostKnown bool    `json:"cost_known"`
	Models    []struct {
		Key string `json:"key"`
	} `json:"models"`
	Context *struct {
		Tokens int64 `json:"tokens"`
		Window int64 `json:"window"`
	} `json:"context"`
}

// TestUsageRealAgents: two turns of the real Claude Code and Codex
// against the mock model, and paddock shows what each call used — the
// mock answers every call with its usage (Claude: 12 in; Codex: 100 in;
// both 6 out for these replies) — on the session's page and through the
// API. Claude Code prices the mock's model itself (its running cost);
// Codex records no cost and the mock's model has no price: tokens, and
// "cost unknown".
func TestUsageRealAgents(t *testing.T) {
	for _, tt := range []struct {
		cli           agenttest.CLI
		input, output int64
		cost          float64 // the agent's own; 0: unknown
		window        int64
	}{
		// Claude Code priced 24 in and 12 out of claude-opus-5-5 at
		// $0.000336 (its list price: $4 and $20 per million).
		{agenttest.Claude, 24, 12, 0.000336, 1_000_000},
		{agenttest.Codex, 200, 12, 0, 258400},
	} {
		t.Run(string(tt.cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			agent, api := hookedAgent(t, ctx, tt.cli, nil, nil)
			term := agent.Start(t)
			term.Expect(ctx, agent.Ready)
			term.Type("hello paddock one")
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
			term.Type("second turn please")
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(2))))

			var id string
			var got sessionUsage
			until(t, 60*time.Second, "the two calls' usage", func() (bool, string) {
				var out struct {
					Sessions []struct {
						ID          string
						FirstPrompt string `json:"first_prompt"`
					}
				}
				if err := api.get("/api/v1/sessions?runtime="+string(tt.cli), &out); err != nil {
					return false, err.Error()
				}
				for _, s := range out.Sessions {
					if s.FirstPrompt == "hello paddock one" {
						id = s.ID
					}
				}
				if id == "" {
					return false, "not listed"
				}
				got = sessionUsage{}
				if err := api.get("/api/v1/sessions/"+string(tt.cli)+"/"+url.PathEscape(id)+"/usage", &got); err != nil {
					return false, err.Error()
				}
				return got.Calls == 2 && got.Input == tt.input && got.Output == tt.output && math.Abs(got.Cost-tt.cost) < 1e-9 &&
					got.CostKnown == (tt.cost > 0), fmt.Sprintf("%+v", got)
			})
			if got.Context == nil || got.Context.Tokens == 0 || got.Context.Window != tt.window {
				t.Errorf("context %+v; want the last call's, of a %d-token window", got.Context, tt.window)
			}
			page, code := api.raw("/s/" + string(tt.cli) + "/" + url.PathEscape(id))
			tokens := fmt.Sprintf(`data-testid="session-tokens">%d<`, tt.input+tt.output)
			if code != 200 || !strings.Contains(string(page), tokens) || !strings.Contains(string(page), `data-testid="context"`) {
				t.Errorf("the session page (%d) shows no %s or no context bar", code, tokens)
			}
			if tt.cost == 0 && !strings.Contains(string(page), "cost unknown") {
				t.Error("the session page does not say the cost is unknown")
			}
			if _, err := agent.Quit(ctx, term); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestUsageCLIAndAPIAgree: `paddock usage --json` prints what GET
// /api/v1/usage answers, asking serve while it runs and reading the
// histories itself once it stopped; a price file that does not parse is
// refused with its line.
func TestUsageCLIAndAPIAgree(t *testing.T) {
	home := fixtureHome(t)
	srv := servetest.Start(t, home)
	api := newAPIClient(t, srv)
	cli := func(args ...string) (int, string, string) { return paddockCLI(t, home, srv.DataDir, nil, args...) }
	// The recordings' days, whatever today is.
	const days = "from=2026-11-01&to=2026-12-31"
	for _, group := range []string{"day", "project", "agent", "model"} {
		var fromAPI, fromCLI any
		until(t, 30*time.Second, group+": the CLI's JSON is the API's", func() (bool, string) {
			if err := api.get("/api/v1/usage?group="+group+"&"+days, &fromAPI); err != nil {
				return false, err.Error()
			}
			code, out, errs := cli("usage", "--json", "--group", group, "--from", "2026-11-01", "--to", "2026-12-31")
			if code != 0 || json.Unmarshal([]byte(out), &fromCLI) != nil {
				return false, errs
			}
			rows, _ := fromAPI.(map[string]any)["rows"].([]any)
			return len(rows) > 0 && reflect.DeepEqual(fromCLI, fromAPI), out
		})
	}
	var before any
	if err := api.get("/api/v1/usage?group=model&"+days, &before); err != nil {
		t.Fatal(err)
	}
	srv.Stop(t)
	code, out, errs := cli("usage", "--json", "--group", "model", "--from", "2026-11-01", "--to", "2026-12-31")
	var after any
	if code != 0 || json.Unmarshal([]byte(out), &after) != nil || !reflect.DeepEqual(after, before) || !strings.Contains(errs, "paddock serve is not running") {
		t.Errorf("without serve: %d %s %s; want what serve answered: %v", code, out, errs, before)
	}
	if code, out, _ := cli("usage", "--group", "agent", "--from", "2026-11-01", "--to", "2026-12-31"); code != 0 || !strings.Contains(out, "claude") || !strings.Contains(out, "$0.00") {
		t.Errorf("as a table: %d %s", code, out)
	}
	if err := os.WriteFile(filepath.Join(srv.DataDir, "prices.toml"), []byte("[models.\"x\"]\ninput = 1.0\noutput = two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli("usage"); code != 1 || !strings.Contains(errs, "prices.toml line 3") {
		t.Errorf("a broken price file: %d %q, want its line 3 named", code, errs)
	}
	// serve refuses to start on it.
	code, _, errs = cli("serve", "--addr", "127.0.0.1:0", "--http-addr", "", "--hook-addr", "127.0.0.1:0", "--tailnet=false")
	if code != 1 || !strings.Contains(errs, "prices.toml line 3") {
		t.Errorf("serve with a broken price file: %d %q, want a refusal naming its line 3", code, errs)
	}
}
