package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

// TestHandoffBetweenRealSessions: the work of one real Claude Code
// session is handed to another that paddock hosts: the template arrives
// in the target's own history, the target answers it, and the call
// returns that answer; the same from the phone's Hand off sheet. What
// cannot be handed off is refused with the reason.
func TestHandoffBetweenRealSessions(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	agent, srv, api := hostingServe(t, ctx)
	start := func(prompt string) string {
		var created struct{ ID string }
		if status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd, "prompt": prompt}, &created); err != nil || status != http.StatusCreated {
			t.Fatalf("create: %d %v", status, err)
		}
		until(t, 90*time.Second, "the first reply of "+created.ID, func() (bool, string) {
			msgs := messagesOf(t, api, created.ID)
			return strings.Contains(msgs, mockmodel.PlainReply(1)), msgs
		})
		return created.ID
	}
	source := start("the kiwi build is broken since the upgrade")
	target := start("hello paddock one")

	var out struct {
		Delivered  bool
		Reply      string
		Characters int
		Source     string
		Target     string
	}
	status, err := api.post("/api/v1/handoff", map[string]any{"source": "claude:" + source, "target": "claude:" + target,
		"task": "Fix the kiwi build", "wait": true, "timeout_seconds": 90}, &out)
	if err != nil || status != http.StatusOK || !out.Delivered || out.Source != "claude:"+source || out.Target != "claude:"+target {
		t.Fatalf("handoff: %d %v %+v", status, err, out)
	}
	if out.Reply != mockmodel.PlainReply(2) {
		t.Errorf("the target's reply %q, want %q", out.Reply, mockmodel.PlainReply(2))
	}
	until(t, 30*time.Second, "the hand-off in the target's own history", func() (bool, string) {
		msgs := messagesOf(t, api, target)
		return strings.Contains(msgs, "user: ## Session handoff") && strings.Contains(msgs, "**From session:** `claude:"+source+"`") &&
			strings.Contains(msgs, "**Task:** Fix the kiwi build") && strings.Contains(msgs, "the kiwi build is broken since the upgrade") &&
			strings.Contains(msgs, "Do not ask the user to re-paste this handoff."), msgs
	})

	for _, tc := range []struct {
		name string
		body map[string]any
		code int
		want string
	}{
		{"to itself", map[string]any{"source": "claude:" + target, "target": "claude:" + target, "task": "t"}, http.StatusBadRequest, "same_session"},
		{"no task", map[string]any{"source": "claude:" + source, "target": "claude:" + target}, http.StatusBadRequest, "no_task"},
		{"no source found", map[string]any{"query": "xylophonezebra", "target": "claude:" + target, "task": "t"}, http.StatusNotFound, "no_source"},
		{"nothing to hand off", map[string]any{"source": "claude:" + source, "query": "xylophonezebra", "target": "claude:" + target, "task": "t"}, http.StatusUnprocessableEntity, "empty_context"},
		{"a target that does not run", map[string]any{"source": "claude:" + target, "target": "claude:" + source + "x", "task": "t"}, http.StatusNotFound, "not_found"},
		{"no source named", map[string]any{"target": "claude:" + target, "task": "t"}, http.StatusBadRequest, "no_source"},
	} {
		var e struct{ Error struct{ Code string } }
		status, err := api.post("/api/v1/handoff", tc.body, &e)
		if err != nil || status != tc.code || e.Error.Code != tc.want {
			t.Errorf("%s: %d %q (%v), want %d %s", tc.name, status, e.Error.Code, err, tc.code, tc.want)
		}
	}
	// From the phone: the source's page has a Hand off sheet listing the
	// running sessions; the task written there arrives in the target.
	chrome := chromiumPath(t)
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	base := strings.SplitN(srv.PairLink, "/pair", 2)[0]
	ph.step("the source's page", chromedp.Navigate(base+"/s/claude/"+source))
	ph.poll("the sheet offers the target", `[...document.querySelectorAll('[data-testid="handoff-target"] option')].some(o => o.value === "claude:`+target+`")`)
	ph.step("open the sheet", chromedp.Click(`[data-testid="handoff"] summary`))
	ph.step("choose the target", chromedp.SetValue(`[data-testid="handoff-target"]`, "claude:"+target))
	ph.step("write the task", chromedp.SendKeys(`[data-testid="handoff-task"]`, "Write the kiwi release notes"))
	ph.checkPhone("handoff")
	ph.step("hand off", chromedp.Click(`[data-testid="handoff-send"]`))
	ph.pollFor("handed off", `document.querySelector('[data-testid="handoff-result"] [data-testid="result-ok"]')?.textContent.startsWith("Handed off to claude:`+target+`")`, 60*time.Second)
	until(t, 60*time.Second, "the phone's hand-off in the target's history", func() (bool, string) {
		msgs := messagesOf(t, api, target)
		return strings.Contains(msgs, "**Task:** Write the kiwi release notes"), msgs
	})
	// The source's page says where its work went (kept in the audit log).
	ph.step("the source's page again", chromedp.Reload())
	ph.poll("handed off", `document.querySelector('[data-testid="handed-off"]')?.textContent.startsWith("Handed off to claude:`+target+`")`)
	// And so does its card on the board.
	ph.step("the board", chromedp.Navigate(base+"/"))
	ph.poll("the card marked", `document.querySelector('[data-key="claude:`+source+`"] [data-testid="card-handed-off"]')?.textContent === "handed off to Claude"`)

	// Found by what it said: the query's top hit is the source.
	var byQuery struct{ Source string }
	until(t, 30*time.Second, "the source found by a query", func() (bool, string) {
		status, err := api.post("/api/v1/handoff", map[string]any{"query": "kiwi upgrade", "target": "claude:" + target, "task": "Check it again"}, &byQuery)
		return err == nil && status == http.StatusOK && byQuery.Source == "claude:"+source, fmt.Sprint(status, err, byQuery)
	})

	// From the command line: create a session, then hand it the work and
	// wait for its reply.
	home := filepath.Dir(agent.Cwd)
	code, said, errs := paddockCLI(t, home, srv.DataDir, nil, "sessions", "create", "--runtime", "claude", "--workdir", agent.Cwd, "hello", "paddock", "one")
	created, ok := strings.CutPrefix(strings.Fields(said + " x x")[1], "claude:")
	if code != 0 || !ok || !strings.Contains(said, "the prompt was delivered") {
		t.Fatalf("sessions create: %d %q %q", code, said, errs)
	}
	until(t, 90*time.Second, "the first reply of the session the CLI created", func() (bool, string) {
		msgs := messagesOf(t, api, created)
		return strings.Contains(msgs, mockmodel.PlainReply(1)), msgs
	})
	code, said, errs = paddockCLI(t, home, srv.DataDir, nil, "sessions", "handoff", "--from", "claude:"+source, "--to", "claude:"+created,
		"--task", "Ship the kiwi fix", "--wait", "--timeout", "90")
	if code != 0 || !strings.HasPrefix(said, "handed off claude:"+source+" → claude:"+created) || !strings.Contains(said, "the hand-off was delivered") ||
		!strings.Contains(said, "its reply:\n"+mockmodel.PlainReply(2)) {
		t.Errorf("sessions handoff: %d %q %q", code, said, errs)
	}
}

// messagesOf is a session's conversation through the API, as "role: text"
// lines.
func messagesOf(t *testing.T, api *apiClient, id string) string {
	var page struct{ Messages []struct{ Role, Text string } }
	if err := api.get("/api/v1/sessions/claude/"+id+"/messages", &page); err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, m := range page.Messages {
		b.WriteString(m.Role + ": " + m.Text + "\n")
	}
	return b.String()
}

// hostingServeTwo is hostingServe with two agents configured in one HOME
// (as on a developer's machine): serve's environment holds both, and
// both have paddock's hooks.
func hostingServeTwo(t *testing.T, ctx context.Context, a, b agenttest.CLI) (map[agenttest.CLI]*agenttest.Agent, *servetest.Server, *apiClient) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("E2E_REQUIRED") != "" {
			t.Fatal("tmux not installed (E2E_REQUIRED is set)")
		}
		t.Skip("tmux not installed: hosted sessions need it")
	}
	mock, err := mockmodel.Start(ctx, mockmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	home := t.TempDir()
	agents := map[agenttest.CLI]*agenttest.Agent{}
	var env []string
	have := map[string]bool{}
	for _, cli := range []agenttest.CLI{a, b} {
		switch cli {
		case agenttest.Claude:
			_ = os.MkdirAll(filepath.Join(home, ".claude"), 0o755)
		case agenttest.Pi:
			_ = os.MkdirAll(filepath.Join(home, ".pi", "agent"), 0o755)
		}
		setup, err := agentenv.New(cli, agentenv.Config{Home: home, Cwd: filepath.Join(home, string(cli)), ModelURL: mock.URL(), Bin: agenttest.Bin(t, cli)})
		if err != nil {
			t.Fatal(err)
		}
		agents[cli] = agenttest.FromSetup(setup)
		for _, kv := range setup.Env {
			k, _, _ := strings.Cut(kv, "=")
			if !have[k] && k != "PATH" {
				have[k] = true
				env = append(env, kv)
			}
		}
	}
	env = append(env, "PATH="+filepath.Dir(agents[a].Argv[0])+string(os.PathListSeparator)+filepath.Dir(agents[b].Argv[0])+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := servetest.StartEnv(t, home, env)
	t.Cleanup(func() { killHostedTmux(t, srv.DataDir) })
	install := exec.Command(servetest.Binary(t), "hooks", "install", "--runtime", string(a)+","+string(b), "--data-dir", srv.DataDir)
	install.Env = append(slices.Clone(env), "HOME="+home)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("paddock hooks install: %v\n%s", err, out)
	}
	return agents, srv, newAPIClient(t, srv)
}

// TestHandoffAcrossAgents hands a real Claude Code session's work to a
// real Codex session paddock hosts: the template arrives in Codex's own
// history (its rollout), and Codex answers it.
func TestHandoffAcrossAgents(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	agents, _, api := hostingServeTwo(t, ctx, agenttest.Claude, agenttest.Codex)
	source := createHosted(t, api, agenttest.Claude, agents[agenttest.Claude].Cwd, "the kiwi build is broken since the upgrade").ID
	until(t, 90*time.Second, "Claude's first reply", func() (bool, string) {
		msgs := messagesOf(t, api, source)
		return strings.Contains(msgs, mockmodel.PlainReply(1)), msgs
	})
	createHosted(t, api, agenttest.Codex, agents[agenttest.Codex].Cwd, "hello paddock one")
	var target string
	until(t, 60*time.Second, "Codex's session named and answered", func() (bool, string) {
		s, ok := api.liveSession("codex")
		if !ok || strings.HasPrefix(s.ID, "pending-") || s.State != "waiting" {
			return false, fmt.Sprintf("%+v", s)
		}
		target = s.ID
		return true, ""
	})
	var out struct {
		Delivered bool
		Reply     string
	}
	status, err := api.post("/api/v1/handoff", map[string]any{"source": "claude:" + source, "target": "codex:" + target,
		"task": "Fix the kiwi build", "wait": true, "timeout_seconds": 90}, &out)
	if err != nil || status != http.StatusOK || !out.Delivered {
		t.Fatalf("handoff to Codex: %d %v %+v", status, err, out)
	}
	if out.Reply != mockmodel.PlainReply(2) {
		t.Errorf("Codex's reply %q, want %q", out.Reply, mockmodel.PlainReply(2))
	}
	until(t, 30*time.Second, "the hand-off in Codex's own history", func() (bool, string) {
		var page struct{ Messages []struct{ Role, Text string } }
		if err := api.get("/api/v1/sessions/codex/"+target+"/messages", &page); err != nil {
			return false, err.Error()
		}
		for _, m := range page.Messages {
			if m.Role == "user" && strings.HasPrefix(m.Text, "## Session handoff") && strings.Contains(m.Text, "`claude:"+source+"`") &&
				strings.Contains(m.Text, "the kiwi build is broken since the upgrade") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", page)
	})

	// No running target: the hand-off starts one (here Codex's work to
	// a new Claude Code session), its first prompt the template.
	var started struct {
		Target             string
		Started, Delivered bool
	}
	status, err = api.post("/api/v1/handoff", map[string]any{"source": "codex:" + target, "task": "Review the kiwi fix",
		"start": map[string]any{"runtime": "claude", "workdir": agents[agenttest.Claude].Cwd}}, &started)
	id, ok := strings.CutPrefix(started.Target, "claude:")
	if err != nil || status != http.StatusOK || !started.Started || !started.Delivered || !ok || id == source {
		t.Fatalf("handoff starting Claude Code: %d %v %+v", status, err, started)
	}
	until(t, 90*time.Second, "the hand-off as the new session's first prompt, answered", func() (bool, string) {
		msgs := messagesOf(t, api, id)
		return strings.HasPrefix(msgs, "user: ## Session handoff") && strings.Contains(msgs, "**From session:** `codex:"+target+"`") &&
			strings.Contains(msgs, "**Task:** Review the kiwi fix") && strings.Contains(msgs, mockmodel.PlainReply(1)), msgs
	})
}
