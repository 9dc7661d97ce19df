package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
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

// waitTurnEnd waits until runtime's session shows its turn ended.
func waitTurnEnd(t *testing.T, api *apiClient, runtime string) {
	t.Helper()
	until(t, 30*time.Second, "the turn after the denial", func() (bool, string) {
		s, ok := api.liveSession(runtime)
		return ok && s.State == "waiting", fmt.Sprintf("%+v", s)
	})
}

// approvalItem is an item of GET /api/v1/approvals or /questions.
type approvalItem struct {
	ID, Kind, Session, Tool, Resolution string
	ResolvedBy                          string `json:"resolved_by"`
	Input                               struct{ Command string }
	Can                                 []string
	Scope                               string `json:"always_scope"`
	Questions                           []struct {
		Question string
		Options  []struct{ Label string }
	}
}

// waitItem waits for a pending item of kind ("approvals" or "questions")
// that matches ok.
func waitItem(t *testing.T, api *apiClient, kind string, ok func(approvalItem) bool) approvalItem {
	t.Helper()
	var got approvalItem
	until(t, 30*time.Second, "a pending item in "+kind, func() (bool, string) {
		var out map[string][]approvalItem
		if err := api.get("/api/v1/"+kind, &out); err != nil {
			return false, err.Error()
		}
		for _, it := range out[kind] {
			if ok(it) {
				got = it
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", out)
	})
	return got
}

// decide posts a decision; it returns the status and the error code.
func decide(t *testing.T, api *apiClient, kind, id string, body map[string]any) (int, string) {
	t.Helper()
	var out struct {
		Item  approvalItem
		Error struct{ Code, Message string }
	}
	status, err := api.post("/api/v1/"+kind+"/"+id, body, &out)
	if err != nil {
		t.Fatal(err)
	}
	return status, out.Error.Code + ": " + out.Error.Message
}

// TestApprovalsEndToEnd answers real agents' prompts through paddock's API
// while their own terminal shows them: Claude Code (its PermissionRequest
// hook held by paddock) gets a Bash call approved — the file it writes
// appears — one denied — nothing written — a question answered —
// "→ Blue" on its screen — and one answered at the desk, after which the
// phone is told so (409). Codex gets one approved and one denied. Nothing
// is answered twice.
func TestApprovalsEndToEnd(t *testing.T) {
	t.Run("claude", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
		defer cancel()
		agent, api := hookedAgent(t, ctx, agenttest.Claude, nil, nil)
		term := agent.Start(t)
		term.Expect(ctx, agent.Ready)
		out := filepath.Join(agent.Cwd, "mock_out.txt")

		// 1. Approve from the phone: the command runs.
		term.Type("please RUN the thing")
		it := waitItem(t, api, "approvals", func(it approvalItem) bool { return it.Tool == "Bash" })
		if it.Input.Command != mockmodel.RunCommand(1) || !strings.HasPrefix(it.Session, "claude:") {
			t.Fatalf("item %+v", it)
		}
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusOK {
			t.Fatalf("allow: %d %s", status, msg)
		}
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "deny"}); status != http.StatusConflict || !strings.Contains(msg, "already_resolved") {
			t.Fatalf("a second decision: %d %s, want 409", status, msg)
		}
		term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.ToolFinishedReply)))
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), "hello-from-mock-1") {
			t.Fatalf("the approved command did not run: %q", b)
		}

		// 2. Deny with a message: nothing written.
		term.Type("RUN it again please")
		it = waitItem(t, api, "approvals", func(it approvalItem) bool { return it.Input.Command == mockmodel.RunCommand(2) })
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "deny", "message": "not from the phone"}); status != http.StatusOK {
			t.Fatalf("deny: %d %s", status, msg)
		}
		term.Expect(ctx, regexp.MustCompile(`not from the phone`))
		if b, _ := os.ReadFile(out); strings.Contains(string(b), "hello-from-mock-2") {
			t.Fatalf("the denied command ran: %q", b)
		}

		// 3. A question, answered with the second option.
		term.Type("ASK me which color")
		q := waitItem(t, api, "questions", func(it approvalItem) bool { return it.Kind == "question" })
		if len(q.Questions) != 1 || q.Questions[0].Question != mockmodel.AskQuestion || len(q.Questions[0].Options) != 2 {
			t.Fatalf("question %+v", q)
		}
		if status, msg := decide(t, api, "questions", q.ID, map[string]any{"answers": map[string]string{mockmodel.AskQuestion: "Blue"}}); status != http.StatusOK {
			t.Fatalf("answer: %d %s", status, msg)
		}
		term.Expect(ctx, regexp.MustCompile(`→ Blue`))

		// 4. Answered at the desk: the phone learns it, and cannot answer.
		term.Type("RUN once more")
		it = waitItem(t, api, "approvals", func(it approvalItem) bool { return it.Input.Command == mockmodel.RunCommand(4) })
		term.Answer(agent.Dialogs.Approval, agent.Dialogs.Approve...)
		until(t, 20*time.Second, "answered at the desk", func() (bool, string) {
			var all map[string][]approvalItem
			_ = api.get("/api/v1/approvals?all=1", &all)
			for _, x := range all["approvals"] {
				if x.ID == it.ID {
					return x.Resolution == "desk", x.Resolution
				}
			}
			return false, "gone"
		})
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusConflict || !strings.Contains(msg, "desk") {
			t.Fatalf("deciding after the desk: %d %s, want 409 naming the desk", status, msg)
		}
		if b, _ := os.ReadFile(out); !strings.Contains(string(b), "hello-from-mock-4") {
			t.Fatalf("the command approved at the desk did not run: %q", b)
		}
	})

	// Codex, Pi and OpenCode: one command approved from the phone (it
	// runs), the next denied with a message (it does not).
	approveDeny := []struct {
		cli       agenttest.CLI
		runtime   string
		serveArgs []string
		// watch: the agent's prompts are held only while someone watches;
		// the API token in use counts.
		watch bool
		tool  string // the first item's tool; "" when the agent names none
		can   string // the answers it takes
		// denied waits until the denial reached the agent.
		denied func(t *testing.T, ctx context.Context, term *agenttest.Term, api *apiClient)
	}{
		{cli: agenttest.Codex, runtime: "codex", watch: true, can: "allow,deny",
			denied: func(t *testing.T, _ context.Context, _ *agenttest.Term, api *apiClient) { waitTurnEnd(t, api, "codex") }},
		// Pi asks nothing before running a tool; --pi-hold makes its
		// extension wait for the phone.
		{cli: agenttest.Pi, runtime: "pi", serveArgs: []string{"--pi-hold", "2m"}, watch: true, tool: "bash", can: "allow,deny",
			denied: func(t *testing.T, ctx context.Context, term *agenttest.Term, _ *apiClient) {
				term.Expect(ctx, regexp.MustCompile(`not from the phone`))
			}},
		// The TUI runs with --port (as paddock-hosted sessions do): its
		// server takes the answers.
		{cli: agenttest.OpenCode, runtime: "opencode", tool: "bash", can: "allow,deny,always",
			denied: func(t *testing.T, _ context.Context, term *agenttest.Term, api *apiClient) {
				until(t, 30*time.Second, "the denial reached OpenCode", func() (bool, string) {
					s, _ := term.Screen()
					return !strings.Contains(s, "Allow once"), s
				})
				waitTurnEnd(t, api, "opencode")
			}},
	}
	for _, tc := range approveDeny {
		t.Run(tc.runtime, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
			defer cancel()
			agent, api := hookedAgent(t, ctx, tc.cli, nil, tc.serveArgs)
			if tc.watch {
				if err := api.get("/api/v1/approvals", &map[string]any{}); err != nil {
					t.Fatal(err)
				}
			}
			term := agent.Start(t)
			term.Expect(ctx, agent.Ready)
			out := filepath.Join(agent.Cwd, "mock_out.txt")

			term.Type("please RUN the thing")
			it := waitItem(t, api, "approvals", func(it approvalItem) bool { return strings.HasPrefix(it.Session, tc.runtime+":") })
			if it.Input.Command != mockmodel.RunCommand(1) || tc.tool != "" && it.Tool != tc.tool || strings.Join(it.Can, ",") != tc.can {
				t.Fatalf("%s item %+v, want tool %q, command %q, answers %s", tc.runtime, it, tc.tool, mockmodel.RunCommand(1), tc.can)
			}
			if b, _ := os.ReadFile(out); len(b) > 0 {
				t.Fatalf("the command ran before the phone answered: %q", b)
			}
			if !slices.Contains(it.Can, "always") {
				if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "always"}); status != http.StatusBadRequest {
					t.Fatalf("always for %s: %d %s, want 400", tc.runtime, status, msg)
				}
			}
			if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusOK {
				t.Fatalf("allow: %d %s", status, msg)
			}
			term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.ToolFinishedReply)))
			if b, _ := os.ReadFile(out); !strings.Contains(string(b), "hello-from-mock-1") {
				t.Fatalf("the approved command did not run: %q", b)
			}

			term.Type("RUN it again please")
			it = waitItem(t, api, "approvals", func(x approvalItem) bool {
				return strings.HasPrefix(x.Session, tc.runtime+":") && x.Input.Command == mockmodel.RunCommand(2)
			})
			if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "deny", "message": "not from the phone"}); status != http.StatusOK {
				t.Fatalf("deny: %d %s", status, msg)
			}
			tc.denied(t, ctx, term, api)
			if b, _ := os.ReadFile(out); strings.Contains(string(b), "hello-from-mock-2") {
				t.Fatalf("the denied command ran: %q", b)
			}
		})
	}

	t.Run("kimi", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
		defer cancel()
		// Kimi takes only a deny from outside: --kimi-hold offers it.
		agent, api := hookedAgent(t, ctx, agenttest.Kimi, nil, []string{"--kimi-hold", "2m"})
		if err := api.get("/api/v1/approvals", &map[string]any{}); err != nil {
			t.Fatal(err)
		}
		term := agent.Start(t)
		term.Expect(ctx, agent.Ready)
		out := filepath.Join(agent.Cwd, "mock_out.txt")

		term.Type("please RUN the thing")
		it := waitItem(t, api, "approvals", func(it approvalItem) bool { return strings.HasPrefix(it.Session, "kimi:") })
		if it.Tool != "Bash" || it.Input.Command != mockmodel.RunCommand(1) {
			t.Fatalf("kimi item %+v", it)
		}
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "deny", "message": "not from the phone"}); status != http.StatusOK {
			t.Fatalf("deny: %d %s", status, msg)
		}
		term.Expect(ctx, regexp.MustCompile(`not from the phone`))
		if b, _ := os.ReadFile(out); strings.Contains(string(b), "hello-from-mock-1") {
			t.Fatalf("the denied command ran: %q", b)
		}

		// "Let it run": no decision, and Kimi asks in its own terminal.
		term.Type("RUN it again please")
		it = waitItem(t, api, "approvals", func(x approvalItem) bool { return x.Input.Command == mockmodel.RunCommand(2) })
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusOK {
			t.Fatalf("let it run: %d %s", status, msg)
		}
		term.Answer(agent.Dialogs.Approval, agent.Dialogs.Approve...)
		until(t, 30*time.Second, "the command approved in Kimi's terminal", func() (bool, string) {
			b, _ := os.ReadFile(out)
			return strings.Contains(string(b), "hello-from-mock-2"), string(b)
		})
	})

	t.Run("claude-auto-question", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
		defer cancel()
		// In auto mode Claude asks its questions without a
		// PermissionRequest: paddock answers them at PreToolUse while a
		// device (here the API token) has been active.
		agent, api := hookedAgent(t, ctx, agenttest.Claude, nil, nil)
		agent.Argv = append(agent.Argv, "--permission-mode", "auto")
		if err := api.get("/api/v1/questions", &map[string]any{}); err != nil {
			t.Fatal(err)
		}
		term := agent.Start(t)
		readyCtx, readyCancel := context.WithTimeout(ctx, 45*time.Second)
		defer readyCancel()
		term.Expect(readyCtx, regexp.MustCompile(`(?i)auto mode`))
		term.Type("ASK me which color")
		q := waitItem(t, api, "questions", func(it approvalItem) bool { return it.Kind == "question" })
		if len(q.Questions) != 1 || q.Questions[0].Question != mockmodel.AskQuestion {
			t.Fatalf("question %+v", q)
		}
		if status, msg := decide(t, api, "questions", q.ID, map[string]any{"answers": map[string]string{mockmodel.AskQuestion: "Red"}}); status != http.StatusOK {
			t.Fatalf("answer: %d %s", status, msg)
		}
		term.Expect(ctx, regexp.MustCompile(`→ Red`))
	})

	t.Run("kimi-hosted-screen", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
		defer cancel()
		// Kimi's hooks cannot approve: for a session paddock hosts, the
		// dialog is read off its screen and answered with its keys.
		agent, _, api, _ := hostingServeCLI(t, ctx, agenttest.Kimi)
		var created struct {
			ID     string
			Prompt struct{ Delivered bool }
		}
		if status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "kimi", "workdir": agent.Cwd, "prompt": "please RUN the thing"}, &created); err != nil || status != http.StatusCreated || !created.Prompt.Delivered {
			t.Fatalf("create: %d %+v %v", status, created, err)
		}
		out := filepath.Join(agent.Cwd, "mock_out.txt")
		it := waitItem(t, api, "approvals", func(it approvalItem) bool { return strings.HasPrefix(it.Session, "kimi:") })
		if it.Input.Command != mockmodel.RunCommand(1) || !slices.Contains(it.Can, "allow") || !slices.Contains(it.Can, "deny") {
			t.Fatalf("screen item %+v", it)
		}
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusOK {
			t.Fatalf("allow: %d %s", status, msg)
		}
		until(t, 30*time.Second, "the command approved with keys ran", func() (bool, string) {
			b, _ := os.ReadFile(out)
			return strings.Contains(string(b), "hello-from-mock-1"), string(b)
		})

		key := strings.TrimPrefix(it.Session, "kimi:")
		var d struct{ Delivered bool }
		until(t, 30*time.Second, "the turn ended", func() (bool, string) {
			s, ok := api.liveSession("kimi")
			return ok && s.State == "waiting", fmt.Sprintf("%+v", s)
		})
		if status, err := api.post("/api/v1/sessions/kimi/"+key+"/message", map[string]any{"text": "RUN it again please"}, &d); err != nil || status != http.StatusOK {
			t.Fatalf("message: %d %v", status, err)
		}
		it = waitItem(t, api, "approvals", func(x approvalItem) bool { return x.Input.Command == mockmodel.RunCommand(2) })
		if status, msg := decide(t, api, "approvals", it.ID, map[string]any{"decision": "deny"}); status != http.StatusOK {
			t.Fatalf("deny: %d %s", status, msg)
		}
		until(t, 30*time.Second, "the turn after the denial", func() (bool, string) {
			s, ok := api.liveSession("kimi")
			return ok && s.State == "waiting", fmt.Sprintf("%+v", s)
		})
		if b, _ := os.ReadFile(out); strings.Contains(string(b), "hello-from-mock-2") {
			t.Fatalf("the denied command ran: %q", b)
		}
	})
}

// TestApprovalsAcrossRestart: paddock stops while a real Claude Code waits
// on a prompt it held. Its hook fails open at once — Claude's own dialog
// still answers at the desk — and the restarted paddock shows the prompt
// as expired, answerable by nobody.
func TestApprovalsAcrossRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	agent, srv, api := hookedAgentServe(t, ctx, agenttest.Claude, nil, nil)
	term := agent.Start(t)
	term.Expect(ctx, agent.Ready)
	term.Type("please RUN the thing")
	it := waitItem(t, api, "approvals", func(it approvalItem) bool { return it.Tool == "Bash" })

	stopped := time.Now()
	srv.Stop(t)
	if took := time.Since(stopped); took > 8*time.Second {
		t.Errorf("paddock took %v to stop with a prompt held", took)
	}
	t.Logf("stopped in %v", time.Since(stopped).Round(time.Millisecond))
	srv2 := servetest.StartAt(t, agent.Home, srv.DataDir, nil)
	t.Logf("restarted after %v", time.Since(stopped).Round(time.Millisecond))
	api2 := newAPIClient(t, srv2)
	var all map[string][]approvalItem
	if err := api2.get("/api/v1/approvals?all=1", &all); err != nil {
		t.Fatal(err)
	}
	var got approvalItem
	for _, x := range all["approvals"] {
		if x.ID == it.ID {
			got = x
		}
	}
	if got.Resolution != "expired" {
		t.Fatalf("after the restart: %+v, want the held prompt expired", got)
	}
	if status, msg := decide(t, api2, "approvals", it.ID, map[string]any{"decision": "allow"}); status != http.StatusConflict || !strings.Contains(msg, "expired") {
		t.Fatalf("deciding an expired prompt: %d %s", status, msg)
	}
	// Claude's own dialog is still there and answers.
	answered := time.Now()
	term.Answer(agent.Dialogs.Approval, agent.Dialogs.Approve...)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.ToolFinishedReply)))
	t.Logf("answered at the desk in %v", time.Since(answered).Round(time.Millisecond))
}
