package agenttest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestTwoTurns proves the harness on every pinned CLI: start the mock model,
// run the real CLI in tmux, type two prompts, see both scripted replies on
// screen and in the mock's log, and exit the CLI the way a person would.
// A CLI that is not installed skips (fails under E2E_REQUIRED=1).
func TestTwoTurns(t *testing.T) {
	for _, cli := range []agenttest.CLI{agenttest.Claude, agenttest.Codex, agenttest.OpenCode, agenttest.Pi} {
		t.Run(string(cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			start := time.Now()

			mock, err := mockmodel.Start(ctx, mockmodel.Options{
				Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mock.Close() })

			a := agenttest.New(t, cli, mock.URL())
			term := a.Start(t)
			term.Expect(ctx, a.Ready)
			steps := []string{"ready " + since(start)}

			prompts := []string{"hello paddock one", "second turn please"}
			for i, p := range prompts {
				term.Type(p)
				term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(i+1))))
				steps = append(steps, fmt.Sprintf("turn %d %s", i+1, since(start)))
			}

			// The mock must have answered both prompts, in order, and
			// rejected nothing the CLI sent.
			reqs := mock.Requests()
			var answered []string
			for _, r := range reqs {
				if r.Status >= 400 {
					t.Errorf("mock answered %s %s with %d: the CLI sent something the mock does not accept; body: %.300s",
						r.Method, r.Path, r.Status, r.Body)
				}
				if r.Reply != nil && r.Reply.Kind == mockmodel.KindText {
					answered = append(answered, r.Reply.Prompt+" → "+r.Reply.Text)
				}
			}
			want := []string{
				prompts[0] + " → " + mockmodel.PlainReply(1),
				prompts[1] + " → " + mockmodel.PlainReply(2),
			}
			if !slices.Equal(answered, want) {
				t.Errorf("mock replies = %q, want %q", answered, want)
			}

			if a.Port != 0 {
				checkOpenCodeServer(t, ctx, a)
			}

			status, err := a.Quit(ctx, term)
			if err != nil {
				t.Fatal(err)
			}
			steps = append(steps, "exited ("+status+") "+since(start))
			t.Logf("%s: %s; %d requests to the mock", cli, strings.Join(steps, ", "), len(reqs))
		})
	}
}

func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }

// checkOpenCodeServer: the TUI started with --port serves its own sessions
// over HTTP (what paddock will use for OpenCode approvals).
func checkOpenCodeServer(t *testing.T, ctx context.Context, a *agenttest.Agent) {
	t.Helper()
	u := fmt.Sprintf("http://127.0.0.1:%d/session?directory=%s", a.Port, url.QueryEscape(a.Cwd))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("OpenCode's server on --port %d: %v", a.Port, err)
	}
	defer resp.Body.Close()
	var sessions []struct{ ID, Directory, Title string }
	if err := json.NewDecoder(resp.Body).Decode(&sessions); err != nil {
		t.Fatalf("GET /session: %v", err)
	}
	if len(sessions) != 1 || sessions[0].Directory != a.Cwd {
		t.Errorf("OpenCode sessions %+v, want one in %s", sessions, a.Cwd)
	}
}
