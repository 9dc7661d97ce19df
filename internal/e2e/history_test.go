package e2e

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestHistoryThroughAPI runs two plain turns of the real Codex, OpenCode,
// Pi and Kimi Code and reads them back through paddock's API: the session
// is listed with a title, live while the agent runs, with exactly the
// conversation that was typed and answered, and no longer live after it
// quits.
func TestHistoryThroughAPI(t *testing.T) {
	for _, cli := range []agenttest.CLI{agenttest.Codex, agenttest.OpenCode, agenttest.Pi, agenttest.Kimi} {
		t.Run(string(cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			agent, api := hookedAgent(t, ctx, cli, nil, nil)
			term := agent.Start(t)
			term.Expect(ctx, agent.Ready)
			term.Type("hello paddock one")
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
			term.Type("second turn please")
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(2))))

			type listed struct {
				ID, Title   string
				FirstPrompt string `json:"first_prompt"`
				Live        bool
			}
			var all []listed // the last list read, for the failure message
			find := func() (listed, bool) {
				var out struct{ Sessions []listed }
				if err := api.get("/api/v1/sessions?runtime="+url.QueryEscape(string(cli)), &out); err != nil {
					return listed{}, false
				}
				all = out.Sessions
				for _, s := range out.Sessions {
					if s.FirstPrompt == "hello paddock one" {
						return s, true
					}
				}
				return listed{}, false
			}
			var s listed
			until(t, 30*time.Second, "listed, titled and live", func() (bool, string) {
				var ok bool
				s, ok = find()
				return ok && s.Live && s.Title != "", fmt.Sprintf("%+v among %+v", s, all)
			})
			want := []string{"user: hello paddock one", "assistant: " + mockmodel.PlainReply(1),
				"user: second turn please", "assistant: " + mockmodel.PlainReply(2)}
			until(t, 20*time.Second, "the conversation as typed and answered", func() (bool, string) {
				var page struct{ Messages []struct{ Role, Text string } }
				if err := api.get("/api/v1/sessions/"+string(cli)+"/"+url.PathEscape(s.ID)+"/messages", &page); err != nil {
					return false, err.Error()
				}
				var got []string
				for _, m := range page.Messages {
					got = append(got, m.Role+": "+m.Text)
				}
				return strings.Join(got, "|") == strings.Join(want, "|"), fmt.Sprintf("%q", got)
			})
			t.Logf("%s: listed as %q (%s)", cli, s.Title, s.ID)

			if _, err := agent.Quit(ctx, term); err != nil {
				t.Fatal(err)
			}
			until(t, 40*time.Second, "not live after it quit", func() (bool, string) {
				got, ok := find()
				return ok && !got.Live, fmt.Sprintf("%+v", got)
			})
		})
	}
}
