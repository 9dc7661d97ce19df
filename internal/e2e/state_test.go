package e2e

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

type liveSession struct {
	ID, Runtime, Cwd, State, Attention, Terminal string
	LastPrompt                                   string `json:"last_prompt"`
	FirstPrompt                                  string `json:"first_prompt"`
	External                                     bool
	Dialog                                       *struct{ Tool, Summary string }
	StateHistory                                 []struct{ State string } `json:"state_history"`
}

func (s liveSession) history() []string {
	out := make([]string, 0, len(s.StateHistory))
	for _, h := range s.StateHistory {
		out = append(out, h.State)
	}
	return out
}

// inOrder reports whether want appears in got as a subsequence.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestLiveStateEndToEnd runs the real Claude Code and Codex in a plain
// terminal (tmux, not started by paddock) with hooks installed by
// `paddock hooks install`, through a prompt, a tool call that needs
// approval, and an exit, and checks that paddock's API shows the session's
// state at each step and its history idle → prompting → working →
// (approval →) waiting → ended in order.
func TestLiveStateEndToEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		cli  agenttest.CLI
		http bool // Claude's "type":"http" hooks post straight to the listener
	}{{"claude", agenttest.Claude, false}, {"claude-http", agenttest.Claude, true}, {"codex", agenttest.Codex, false}} {
		cli := tc.cli
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			var install, serve []string
			if cli == agenttest.Codex {
				// Answered in its terminal here: Codex shows its own
				// prompt only once paddock's hook let go.
				serve = []string{"--codex-hold", "0"}
			}
			if tc.http {
				// http hooks name the listener's port: it must be fixed.
				addr := freeLoopbackAddr(t)
				serve = []string{"--hook-addr", addr}
				install = []string{"--claude-http", "--hook-addr", addr}
			}
			agent, api := hookedAgent(t, ctx, cli, install, serve)
			if tc.http {
				b, _ := os.ReadFile(filepath.Join(agent.Home, ".claude", "settings.json"))
				if !strings.Contains(string(b), `"type": "http"`) && !strings.Contains(string(b), `"type":"http"`) {
					t.Fatalf("no http hooks installed:\n%s", b)
				}
			}
			term := agent.Start(t)
			term.Expect(ctx, agent.Ready)
			find := func() (liveSession, bool) { return api.liveSession(string(cli)) }
			waitState := func(what string, ok func(liveSession) bool) liveSession {
				t.Helper()
				var got liveSession
				until(t, 10*time.Second, what, func() (bool, string) {
					s, found := find()
					got = s
					return found && ok(s), fmt.Sprintf("%+v", s)
				})
				return got
			}

			term.Type("please RUN the tests")
			term.Expect(ctx, agent.Dialogs.Approval)
			asked := time.Now()
			s := waitState("approval shown", func(s liveSession) bool { return s.State == "approval" })
			t.Logf("%s: approval on the API %v after the dialog was on screen", cli, time.Since(asked).Round(time.Millisecond))
			// http hooks carry the tmux pane as a header Claude fills in.
			if s.Attention != "answer" || s.Cwd != agent.Cwd || !s.External || s.Terminal != "tmux" {
				t.Errorf("card while approving: %+v", s)
			}
			if s.Dialog == nil || !strings.Contains(s.Dialog.Summary, "echo") {
				t.Errorf("dialog %+v, want the command", s.Dialog)
			}
			term.Answer(agent.Dialogs.Approval, agent.Dialogs.Approve...)
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.ToolFinishedReply)))
			waitState("your turn after the reply", func(s liveSession) bool { return s.State == "waiting" })

			if _, err := agent.Quit(ctx, term); err != nil {
				t.Fatal(err)
			}
			s = waitState("ended after exit", func(s liveSession) bool { return s.State == "ended" })
			want := []string{"idle", "prompting", "working", "approval", "working", "waiting", "ended"}
			if !inOrder(s.history(), want) {
				t.Fatalf("state history %v, want %v in order", s.history(), want)
			}
			t.Logf("%s state history: %v", cli, s.history())
		})
	}
}

// TestLiveStatePlainTurn runs one plain turn of the real OpenCode, Pi and
// Kimi Code with paddock's hooks (plugin, extension, [[hooks]]) installed
// by `paddock hooks install`, and checks the state each step shows through
// the API and the history in order. OpenCode reports no exit event: its
// end comes from the process check.
func TestLiveStatePlainTurn(t *testing.T) {
	for _, tc := range []struct {
		cli  agenttest.CLI
		want []string
	}{
		{agenttest.OpenCode, []string{"idle", "prompting", "waiting", "ended"}},
		// Pi's extension does not wait for its relays, so input and
		// agent_start may land in either order: prompting or working.
		{agenttest.Pi, []string{"idle", "waiting", "ended"}},
		{agenttest.Kimi, []string{"idle", "prompting", "waiting", "ended"}},
	} {
		t.Run(string(tc.cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			agent, api := hookedAgent(t, ctx, tc.cli, nil, []string{"--process-check", "1s"})
			find := func() (liveSession, bool) { return api.liveSession(string(tc.cli)) }
			term := agent.Start(t)
			term.Expect(ctx, agent.Ready)
			term.Type("hello paddock live")
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
			until(t, 10*time.Second, "your turn after the reply", func() (bool, string) {
				s, ok := find()
				return ok && s.State == "waiting" && s.Cwd == agent.Cwd && s.LastPrompt == "hello paddock live", fmt.Sprintf("%+v", s)
			})
			if _, err := agent.Quit(ctx, term); err != nil {
				t.Fatal(err)
			}
			var s liveSession
			until(t, 15*time.Second, "ended after exit", func() (bool, string) {
				var ok bool
				s, ok = find()
				return ok && s.State == "ended", fmt.Sprintf("%+v", s)
			})
			h := s.history()
			if !inOrder(h, tc.want) || !inOrder(h, []string{"idle", "prompting", "waiting"}) && !inOrder(h, []string{"idle", "working", "waiting"}) {
				t.Fatalf("state history %v, want %v in order with the turn (prompting or working) before waiting", h, tc.want)
			}
			t.Logf("%s state history: %v", tc.cli, h)
		})
	}
}

// freeLoopbackAddr finds a free loopback port (for listeners whose port
// must be known before they start).
func freeLoopbackAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// hookedAgent is the harness of the live-state tests: a mock model, the
// real CLI in a throw-away HOME, `paddock serve` (with serveArgs) watching
// it, and paddock's hooks installed the way a user installs them, with
// `paddock hooks install` (plus installArgs).
func hookedAgent(t *testing.T, ctx context.Context, cli agenttest.CLI, installArgs, serveArgs []string) (*agenttest.Agent, *apiClient) {
	t.Helper()
	agent, _, api := hookedAgentServe(t, ctx, cli, installArgs, serveArgs)
	return agent, api
}

// hookedAgentServe is hookedAgent that also returns the serve process.
func hookedAgentServe(t *testing.T, ctx context.Context, cli agenttest.CLI, installArgs, serveArgs []string) (*agenttest.Agent, *servetest.Server, *apiClient) {
	t.Helper()
	mock, err := mockmodel.Start(ctx, mockmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	agent := agenttest.New(t, cli, mock.URL())
	switch cli {
	case agenttest.Codex:
		agent.Argv = append(agent.Argv, agenttest.CodexBypassHookTrust)
	case agenttest.Claude:
		_ = os.MkdirAll(filepath.Join(agent.Home, ".claude"), 0o755)
	case agenttest.Pi:
		// Pi finds extensions only in an existing agent dir.
		_ = os.MkdirAll(filepath.Join(agent.Home, ".pi", "agent"), 0o755)
	}
	srv := servetest.Start(t, agent.Home, serveArgs...)
	args := append([]string{"hooks", "install", "--runtime", string(cli), "--data-dir", srv.DataDir}, installArgs...)
	install := exec.Command(servetest.Binary(t), args...)
	install.Env = append(slices.Clone(agent.Env), "HOME="+agent.Home)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("paddock hooks install: %v\n%s", err, out)
	}
	return agent, srv, newAPIClient(t, srv)
}

// liveSession is the first session of runtime with a live state history.
func (c *apiClient) liveSession(runtime string) (liveSession, bool) {
	var out struct{ Sessions []liveSession }
	if err := c.get("/api/v1/sessions?runtime="+url.QueryEscape(runtime), &out); err != nil {
		return liveSession{}, false
	}
	for _, s := range out.Sessions {
		if len(s.StateHistory) > 0 {
			return s, true
		}
	}
	return liveSession{}, false
}
