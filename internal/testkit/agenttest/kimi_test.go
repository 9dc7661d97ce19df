package agenttest_test

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestKimiQuestion proves that the mock's question tool call is one the
// real Kimi Code accepts: an ASK prompt must open Kimi's own question UI
// with the mock's header, question and options, and the answer picked there
// must come back to the mock as the tool result. (Kimi validates tool
// arguments against the schema it offers; arguments under another spelling,
// such as Claude's multiSelect for Kimi's multi_select, are refused before
// any question is shown.) Kimi is optional in .ci/install-agents: without it
// the test skips, or fails under E2E_REQUIRED=1.
func TestKimiQuestion(t *testing.T) {
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

	a := agenttest.New(t, agenttest.Kimi, mock.URL())
	term := a.Start(t)
	term.Expect(ctx, a.Ready)
	steps := []string{"ready " + since(start)}

	const prompt = "ASK me which color"
	term.Type(prompt)
	reqs, err := mock.WaitFor(ctx, func(reqs []mockmodel.Request) bool {
		return lastReply(reqs, func(r mockmodel.Reply) bool { return r.Kind == mockmodel.KindTool }) != nil
	})
	if err != nil {
		t.Fatal(err)
	}
	call := lastReply(reqs, func(r mockmodel.Reply) bool { return r.Kind == mockmodel.KindTool })
	if call.Tool != "AskUserQuestion" || call.Prompt != prompt {
		t.Fatalf("mock called %s for %q, want AskUserQuestion for %q", call.Tool, call.Prompt, prompt)
	}
	t.Logf("mock called %s with %s", call.Tool, call.Input)

	// Kimi's question UI (verified on the real CLI, kimi-question.txt): the header
	// as a tab, "? <question>", numbered options with their descriptions.
	opts := mockmodel.AskOptions()
	ui := regexp.MustCompile(`(?s)` + regexp.QuoteMeta(mockmodel.AskHeader) + `.*\? ` +
		regexp.QuoteMeta(mockmodel.AskQuestion) + `.*\[1\] ` + regexp.QuoteMeta(opts[0][0]) + `\s+` +
		regexp.QuoteMeta(opts[0][1]) + `.*\[2\] ` + regexp.QuoteMeta(opts[1][0]))
	// Fail at once, not at the deadline, when Kimi refuses the arguments:
	// it then says so and sends the refusal back as the tool result.
	refused := regexp.MustCompile(`Could not collect your input|Invalid args for tool`)
	screen := term.Expect(ctx, regexp.MustCompile(ui.String()+`|`+refused.String()))
	if refused.MatchString(screen) && !ui.MatchString(screen) {
		t.Fatalf("Kimi refused the mock's %s arguments %s:\n%s", call.Tool, call.Input, screen)
	}
	steps = append(steps, "question shown "+since(start))

	// Pick the first option, then Submit on the review page.
	term.Key("1")
	term.Expect(ctx, regexp.MustCompile(`Ready to submit your answers\?`))
	term.Key("1")
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.ToolFinishedReply)))
	steps = append(steps, "answered "+since(start))

	// The answer went back to the model as the tool result, and the mock
	// refused nothing Kimi sent.
	reqs = mock.Requests()
	finished := false
	for _, r := range reqs {
		if r.Status >= 400 {
			t.Errorf("mock answered %s %s with %d; body: %.300s", r.Method, r.Path, r.Status, r.Body)
		}
		if r.Reply != nil && r.Reply.Text == mockmodel.ToolFinishedReply {
			finished = true
			answer := `"` + mockmodel.AskQuestion + `":"` + opts[0][0] + `"`
			if !strings.Contains(strings.ReplaceAll(string(r.Body), `\"`, `"`), answer) {
				t.Errorf("the tool result sent to the mock does not hold the answer %s; body: %.2000s", answer, r.Body)
			}
		}
	}
	if !finished {
		t.Error("the mock never saw the question's tool result")
	}

	status, err := a.Quit(ctx, term)
	if err != nil {
		t.Fatal(err)
	}
	steps = append(steps, "exited ("+status+") "+since(start))
	t.Logf("kimi: %s; %d requests to the mock", strings.Join(steps, ", "), len(reqs))
}

// lastReply returns the last reply among reqs that satisfies ok, or nil.
func lastReply(reqs []mockmodel.Request, ok func(mockmodel.Reply) bool) *mockmodel.Reply {
	for i := len(reqs) - 1; i >= 0; i-- {
		if r := reqs[i].Reply; r != nil && ok(*r) {
			return r
		}
	}
	return nil
}
