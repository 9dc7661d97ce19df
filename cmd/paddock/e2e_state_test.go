package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/agenttest"
	"paddock/internal/mockmodel"
)

type liveSession struct {
	ID, Runtime, Cwd, State, Attention, Terminal string
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
	if testing.Short() {
		t.Skip("drives the real agent CLIs")
	}
	for _, cli := range []agenttest.CLI{agenttest.Claude, agenttest.Codex} {
		t.Run(string(cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			mock, err := mockmodel.Start(ctx, mockmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { mock.Close() })
			agent := agenttest.New(t, cli, mock.URL())
			if cli == agenttest.Codex {
				agent.Argv = append(agent.Argv, agenttest.CodexBypassHookTrust)
			}
			_ = os.MkdirAll(filepath.Join(agent.Home, ".claude"), 0o755)

			srv := startServe(t, agent.Home)
			api := newAPIClient(t, srv)

			// The user's own step: install the hooks with paddock.
			install := exec.Command(paddockBinary(t), "hooks", "install", "--runtime", string(cli), "--data-dir", srv.DataDir)
			install.Env = append(slices.Clone(agent.Env), "HOME="+agent.Home)
			if out, err := install.CombinedOutput(); err != nil {
				t.Fatalf("paddock hooks install: %v\n%s", err, out)
			}

			term := agent.Start(t)
			term.Expect(ctx, agent.Ready)
			find := func() (liveSession, bool) {
				var out struct{ Sessions []liveSession }
				if err := api.get("/api/v1/sessions?runtime="+url.QueryEscape(string(cli)), &out); err != nil {
					return liveSession{}, false
				}
				for _, s := range out.Sessions {
					if len(s.StateHistory) > 0 {
						return s, true
					}
				}
				return liveSession{}, false
			}
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
