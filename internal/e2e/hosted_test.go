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

	"paddock/internal/testkit/agentenv"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
	"paddock/internal/testkit/servetest"
)

// TestHostedClaudeEndToEnd starts a real Claude Code session from paddock's
// API in paddock's own tmux, with a first prompt, and drives it like the
// phone would: the prompt is answered, a second message is delivered and
// answered, an approval dialog is dismissed with Escape, and Kill ends the
// session. Bad requests get clear errors and start nothing.
func TestHostedClaudeEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	agent, _, api := hostingServe(t, ctx)

	// Bad requests: a clear error, nothing started.
	for _, bad := range []struct {
		body map[string]any
		want int
		code string
	}{
		{map[string]any{"runtime": "claude", "workdir": "/nonexistent/dir"}, http.StatusBadRequest, "invalid"},
		{map[string]any{"runtime": "claude", "workdir": "relative/dir"}, http.StatusBadRequest, "invalid"},
		{map[string]any{"runtime": "emacs", "workdir": agent.Cwd}, http.StatusBadRequest, "invalid"},
		{map[string]any{"runtime": "claude", "workdir": agent.Cwd, "prompt": "hi\x1b[2J"}, http.StatusBadRequest, "invalid"},
		{map[string]any{"runtime": "claude", "workdir": agent.Cwd, "prompt": strings.Repeat("x", 100<<10)}, http.StatusRequestEntityTooLarge, ""},
		{map[string]any{"runtime": "claude", "workdir": agent.Cwd, "permission_mode": "yolo"}, http.StatusBadRequest, "invalid"},
		{map[string]any{"runtime": "claude", "workdir": agent.Cwd, "color": "red"}, http.StatusBadRequest, "bad_json"},
	} {
		var e struct {
			Error struct{ Code, Message string }
		}
		status, err := api.post("/api/v1/sessions", bad.body, &e)
		if err != nil || status != bad.want || bad.code != "" && e.Error.Code != bad.code {
			t.Errorf("create %v: %d %+v %v, want %d %s", bad.body["workdir"], status, e.Error, err, bad.want, bad.code)
		}
	}
	var listed struct{ Sessions []liveSession }
	if err := api.get("/api/v1/sessions?runtime=claude", &listed); err != nil || len(listed.Sessions) != 0 {
		t.Fatalf("bad requests left sessions behind: %+v %v", listed.Sessions, err)
	}

	// Create with a first prompt: delivered, answered.
	var created struct {
		Key, ID, URL string
		TerminalID   string `json:"terminal_id"`
		Prompt       struct {
			Delivered bool
			Attempts  int
			By        string
		}
	}
	started := time.Now()
	status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd,
		"prompt": "hello hosted paddock", "permission_mode": "default"}, &created)
	if err != nil || status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, err)
	}
	if !created.Prompt.Delivered {
		t.Fatalf("first prompt not delivered: %+v", created)
	}
	t.Logf("created %s, first prompt delivered by %s after %d attempt(s) in %v", created.ID, created.Prompt.By, created.Prompt.Attempts, time.Since(started).Round(time.Millisecond))
	base := "/api/v1/sessions/claude/" + created.ID
	screenShows := func(what, text string) {
		t.Helper()
		until(t, 20*time.Second, what, func() (bool, string) {
			var sc struct{ Screen string }
			if err := api.get(base+"/screen", &sc); err != nil {
				return false, err.Error()
			}
			return strings.Contains(sc.Screen, text), sc.Screen
		})
	}
	screenShows("first reply", mockmodel.PlainReply(1))
	until(t, 10*time.Second, "card with the chosen session id", func() (bool, string) {
		s, ok := api.liveSession("claude")
		return ok && s.ID == created.ID && s.Cwd == agent.Cwd && !s.External && s.State == "waiting", fmt.Sprintf("%+v", s)
	})

	// A second message: delivered and answered, in the same session.
	var d struct {
		Delivered bool
		By        string
	}
	if status, err := api.post(base+"/message", map[string]any{"text": "second hosted turn"}, &d); err != nil || status != http.StatusOK || !d.Delivered {
		t.Fatalf("message: %d %+v %v", status, d, err)
	}
	screenShows("second reply", mockmodel.PlainReply(2))
	var one struct {
		Health struct {
			Alive        bool
			AgentRunning bool   `json:"agent_running"`
			Transcript   bool   `json:"has_transcript"`
			Command      string `json:"pane_command"`
			Stalled      bool
		}
	}
	if err := api.get(base, &one); err != nil || !one.Health.Alive || !one.Health.AgentRunning || !one.Health.Transcript || one.Health.Stalled || one.Health.Command == "" {
		t.Fatalf("health %+v %v", one.Health, err)
	}

	// An approval dialog, dismissed with Escape from the phone.
	if status, err := api.post(base+"/message", map[string]any{"text": "please RUN the hosted check"}, &d); err != nil || status != http.StatusOK || !d.Delivered {
		t.Fatalf("RUN message: %d %+v %v", status, d, err)
	}
	screenShows("approval dialog", "Do you want to proceed?")
	if status, _ := api.post(base+"/escape", nil, nil); status != http.StatusOK {
		t.Fatalf("escape: %d", status)
	}
	until(t, 10*time.Second, "dialog dismissed", func() (bool, string) {
		var sc struct{ Screen string }
		_ = api.get(base+"/screen", &sc)
		return !strings.Contains(sc.Screen, "Do you want to proceed?"), sc.Screen
	})

	// Keys outside the key bar's allowlist are refused.
	if status, _ := api.post(base+"/keys", map[string]any{"keys": []string{"kill-server"}}, nil); status != http.StatusBadRequest {
		t.Fatalf("disallowed key: %d", status)
	}

	// Kill: the window goes, the card ends at once, the screen is gone.
	if status, _ := api.post(base+"/kill", nil, nil); status != http.StatusOK {
		t.Fatalf("kill: %d", status)
	}
	until(t, 5*time.Second, "ended after kill", func() (bool, string) {
		s, ok := api.liveSession("claude")
		return ok && s.State == "ended", fmt.Sprintf("%+v", s)
	})
	if status, _ := api.post(base+"/message", map[string]any{"text": "anyone there?"}, nil); status != http.StatusConflict && status != http.StatusGone {
		t.Fatalf("message after kill: %d, want 409 or 410", status)
	}

	// Resume: `claude --resume ID` in a new window; the same session id
	// goes on with its old conversation.
	var resumed struct {
		Key   string
		Fresh bool
	}
	if status, err := api.post(base+"/resume", nil, &resumed); err != nil || status != http.StatusOK || resumed.Fresh || resumed.Key != "claude:"+created.ID {
		t.Fatalf("resume: %d %+v %v", status, resumed, err)
	}
	until(t, 30*time.Second, "resumed and idle", func() (bool, string) {
		s, ok := api.liveSession("claude")
		return ok && s.ID == created.ID && s.State == "idle", fmt.Sprintf("%+v", s)
	})
	if status, err := api.post(base+"/message", map[string]any{"text": "after the resume"}, &d); err != nil || status != http.StatusOK || !d.Delivered {
		t.Fatalf("message after resume: %d %+v %v", status, d, err)
	}
	until(t, 20*time.Second, "conversation continued", func() (bool, string) {
		var page struct{ Messages []struct{ Role, Text string } }
		if err := api.get(base+"/messages", &page); err != nil {
			return false, err.Error()
		}
		n := len(page.Messages)
		return n >= 4 && page.Messages[0].Text == "hello hosted paddock" && page.Messages[n-2].Text == "after the resume" &&
			page.Messages[n-1].Role == "assistant", fmt.Sprintf("%+v", page.Messages)
	})
	// A running session is not resumed twice.
	if status, _ := api.post(base+"/resume", nil, nil); status != http.StatusBadRequest {
		t.Fatalf("resume of a running session: %d, want 400", status)
	}
}

// hostingServe is the harness of the hosted-session tests: the mock model,
// real Claude Code's throw-away HOME, and `paddock serve` with the agent on
// its PATH and the agent's environment (the mock's address and key), so
// the sessions it starts in its tmux reach the mock; Claude's hooks are
// installed with `paddock hooks install`. The tmux server is killed at the
// end (hosted sessions outlive paddock on purpose).
func hostingServe(t *testing.T, ctx context.Context) (*agenttest.Agent, *servetest.Server, *apiClient) {
	agent, srv, api, _ := hostingServeEnv(t, ctx)
	return agent, srv, api
}

// hostingServeEnv is hostingServe that also returns serve's environment,
// to start it again.
func hostingServeEnv(t *testing.T, ctx context.Context) (*agenttest.Agent, *servetest.Server, *apiClient, []string) {
	t.Helper()
	return hostingServeCLI(t, ctx, agenttest.Claude)
}

// hostingServeCLI is hostingServeEnv for any of the agents.
func hostingServeCLI(t *testing.T, ctx context.Context, cli agenttest.CLI) (*agenttest.Agent, *servetest.Server, *apiClient, []string) {
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
	agent := agenttest.New(t, cli, mock.URL())
	switch cli {
	case agenttest.Claude:
		_ = os.MkdirAll(filepath.Join(agent.Home, ".claude"), 0o755)
	case agenttest.Pi:
		_ = os.MkdirAll(filepath.Join(agent.Home, ".pi", "agent"), 0o755)
	}
	env := append(slices.Clone(agent.Env), "PATH="+filepath.Dir(agent.Argv[0])+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := servetest.StartEnv(t, agent.Home, env)
	t.Cleanup(func() { killHostedTmux(t, srv.DataDir) })
	install := exec.Command(servetest.Binary(t), "hooks", "install", "--runtime", string(cli), "--data-dir", srv.DataDir)
	install.Env = append(slices.Clone(env), "HOME="+agent.Home)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("paddock hooks install: %v\n%s", err, out)
	}
	return agent, srv, newAPIClient(t, srv), env
}

// killHostedTmux ends paddock's tmux server under dataDir and the agents
// that ran in it, so they write nothing into a HOME the test is about to
// remove.
func killHostedTmux(t *testing.T, dataDir string) {
	if err := agentenv.KillHosted(dataDir); err != nil {
		t.Error(err)
	}
}

// TestHostedSurvivesRestart: a session paddock started keeps running when
// paddock stops, and the restarted paddock drives it again (the
// reconcile after a restart: recovered), while a session killed behind its back meanwhile
// ends (orphaned).
func TestHostedSurvivesRestart(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	agent, srv, api, env := hostingServeEnv(t, ctx)
	create := func(prompt string) string {
		var created struct {
			ID     string
			Prompt struct{ Delivered bool }
		}
		status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd, "prompt": prompt, "permission_mode": "default"}, &created)
		if err != nil || status != http.StatusCreated || !created.Prompt.Delivered {
			t.Fatalf("create: %d %+v %v", status, created, err)
		}
		return created.ID
	}
	keep, lose := create("one that stays"), create("one that goes")

	srv.Stop(t)
	// While paddock is down, the second agent's window is killed.
	socks, _ := filepath.Glob(filepath.Join(srv.DataDir, "tmux", "*"))
	if len(socks) != 1 {
		t.Fatalf("tmux sockets %v", socks)
	}
	out, err := exec.Command("tmux", "-S", socks[0], "list-panes", "-a", "-F", "#{session_name} #{pane_start_command}").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if name, cmd, _ := strings.Cut(line, " "); strings.Contains(cmd, lose) {
			if err := exec.Command("tmux", "-S", socks[0], "kill-session", "-t", "="+name).Run(); err != nil {
				t.Fatal(err)
			}
		}
	}

	srv2 := servetest.StartAt(t, agent.Home, srv.DataDir, env)
	api2 := newAPIClient(t, srv2)
	// The re-attach runs in the background after start: until it has, the
	// session is not hosted yet (409), and nothing is typed.
	until(t, 30*time.Second, "message after restart", func() (bool, string) {
		var d struct{ Delivered bool }
		status, err := api2.post("/api/v1/sessions/claude/"+keep+"/message", map[string]any{"text": "still there after the restart?"}, &d)
		if err == nil && status == http.StatusConflict {
			return false, "not re-attached yet"
		}
		if err != nil || status != http.StatusOK || !d.Delivered {
			t.Fatalf("message after restart: %d %+v %v", status, d, err)
		}
		return true, ""
	})
	until(t, 10*time.Second, "the killed one ended", func() (bool, string) {
		var one struct{ Session liveSession }
		if err := api2.get("/api/v1/sessions/claude/"+lose, &one); err != nil {
			return false, err.Error()
		}
		return one.Session.State == "ended", fmt.Sprintf("%+v", one.Session)
	})
	if !strings.Contains(srv2.Stderr(), "recovered=1 orphaned=1") {
		t.Errorf("serve did not report recovered=1 orphaned=1:\n%s", lastLines(srv2.Stderr(), 10))
	}
}

// TestHostedOtherAgents runs the create → answered → kill → resume →
// message cycle with the real Codex, OpenCode, Pi and Kimi in paddock's
// tmux.
// Codex runs its hooks only once they are trusted, which a hosted start
// does not bypass: its delivery is judged by its screen.
func TestHostedOtherAgents(t *testing.T) {
	for _, cli := range []agenttest.CLI{agenttest.Codex, agenttest.OpenCode, agenttest.Pi, agenttest.Kimi} {
		t.Run(string(cli), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
			defer cancel()
			agent, _, api, _ := hostingServeCLI(t, ctx, cli)
			created := createHosted(t, api, cli, agent.Cwd, "hello hosted agent")
			t.Logf("%s: first prompt delivered by %s", cli, created.Prompt.By)
			// The card's key may change once the agent names its session.
			var key string
			until(t, 30*time.Second, "card with a session id", func() (bool, string) {
				s, ok := api.liveSession(string(cli))
				key = s.ID
				return ok && !strings.HasPrefix(s.ID, "pending-") && !s.External, fmt.Sprintf("%+v", s)
			})
			base := "/api/v1/sessions/" + string(cli) + "/" + key
			until(t, 30*time.Second, "first reply", func() (bool, string) {
				var sc struct{ Screen string }
				_ = api.get(base+"/screen", &sc)
				return strings.Contains(sc.Screen, mockmodel.PlainReply(1)), sc.Screen
			})
			// The turn has ended (and the agent has written it) before the
			// kill: Kimi, killed mid-write, loses its last turn.
			until(t, 30*time.Second, "the turn ended", func() (bool, string) {
				s, ok := api.liveSession(string(cli))
				return ok && s.State == "waiting", fmt.Sprintf("%+v", s)
			})
			// ... and its history holds the reply: Kimi reports the turn's
			// end a moment before it writes the turn to its files.
			until(t, 30*time.Second, "the reply in the history", func() (bool, string) {
				var page struct{ Messages []struct{ Text string } }
				_ = api.get(base+"/messages", &page)
				for _, m := range page.Messages {
					if strings.Contains(m.Text, mockmodel.PlainReply(1)) {
						return true, ""
					}
				}
				return false, fmt.Sprintf("%+v", page)
			})
			if status, _ := api.post(base+"/kill", nil, nil); status != http.StatusOK {
				t.Fatalf("kill: %d", status)
			}
			var resumed struct {
				Key   string
				Fresh bool
			}
			if status, err := api.post(base+"/resume", nil, &resumed); err != nil || status != http.StatusOK || resumed.Fresh {
				t.Fatalf("resume: %d %+v %v", status, resumed, err)
			}
			rbase := "/api/v1/sessions/" + strings.Replace(resumed.Key, ":", "/", 1)
			until(t, 30*time.Second, "resumed agent shows the old conversation", func() (bool, string) {
				var sc struct{ Screen string }
				_ = api.get(rbase+"/screen", &sc)
				return strings.Contains(sc.Screen, "hello hosted agent"), sc.Screen
			})
			var d struct{ Delivered bool }
			if status, err := api.post(rbase+"/message", map[string]any{"text": "after the resume"}, &d); err != nil || status != http.StatusOK || !d.Delivered {
				t.Fatalf("message after resume: %d %+v %v", status, d, err)
			}
			if status, _ := api.post(rbase+"/kill", nil, nil); status != http.StatusOK {
				t.Fatalf("kill after resume: %d", status)
			}
		})
	}
}

// TestHostedRestartReuseSleep drives the rest of a hosted session's life
// with the real Claude Code: a named session with an effort level is
// restarted (the card never shows ended, the conversation and the options
// carry on), a second API client asking for a session in the same
// directory is given the idle one, Sleep closes its terminal and marks the
// card asleep, and Reconnect brings it back with the same options.
func TestHostedRestartReuseSleep(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	agent, _, api := hostingServe(t, ctx)
	var created struct {
		ID     string
		Prompt struct{ Delivered bool }
	}
	status, err := api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd, "prompt": "hello before restart",
		"permission_mode": "default", "effort": "high", "name": "paddock-restart-e2e"}, &created)
	if err != nil || status != http.StatusCreated || !created.Prompt.Delivered {
		t.Fatalf("create: %d %+v %v", status, created, err)
	}
	base := "/api/v1/sessions/claude/" + created.ID
	type one struct {
		Session struct {
			liveSession
			Name       string
			TerminalID string `json:"terminal_id"`
			Freed      uint64 `json:"freed_bytes"`
			Launch     struct{ Effort, Name, PermissionMode string }
		}
		Health *struct{ Alive bool }
	}
	get := func() one {
		var o one
		if err := api.get(base, &o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	screen := func(what, text string) {
		t.Helper()
		until(t, 30*time.Second, what, func() (bool, string) {
			var sc struct{ Screen string }
			_ = api.get(base+"/screen", &sc)
			return strings.Contains(sc.Screen, text), sc.Screen
		})
	}
	until(t, 20*time.Second, "first turn answered", func() (bool, string) {
		o := get()
		return o.Session.State == "waiting", fmt.Sprintf("%+v", o.Session)
	})
	screen("the name in Claude's prompt box", "paddock-restart-e2e")
	if o := get(); o.Session.Name != "paddock-restart-e2e" || o.Session.Launch.Effort != "high" {
		t.Fatalf("session %+v", o.Session)
	}

	// Restart: the same card and id, connecting then idle, never ended.
	var restarted struct {
		Key        string
		TerminalID string `json:"terminal_id"`
	}
	if status, err := api.post(base+"/restart", nil, &restarted); err != nil || status != http.StatusOK || restarted.Key != "claude:"+created.ID {
		t.Fatalf("restart: %d %+v %v", status, restarted, err)
	}
	until(t, 30*time.Second, "restarted and idle", func() (bool, string) {
		o := get()
		return o.Session.State == "idle" && o.Session.TerminalID == restarted.TerminalID, fmt.Sprintf("%+v", o.Session)
	})
	if h := get().Session.history(); slices.Contains(h, "ended") {
		t.Fatalf("the restart went through ended: %v", h)
	}
	screen("the name after the restart", "paddock-restart-e2e")
	var d struct{ Delivered bool }
	if status, err := api.post(base+"/message", map[string]any{"text": "after the restart"}, &d); err != nil || status != http.StatusOK || !d.Delivered {
		t.Fatalf("message after restart: %d %+v %v", status, d, err)
	}
	until(t, 20*time.Second, "conversation carried on", func() (bool, string) {
		var page struct{ Messages []struct{ Role, Text string } }
		if err := api.get(base+"/messages", &page); err != nil {
			return false, err.Error()
		}
		n := len(page.Messages)
		return n >= 4 && page.Messages[0].Text == "hello before restart" && page.Messages[n-2].Text == "after the restart" &&
			page.Messages[n-1].Role == "assistant", fmt.Sprintf("%+v", page.Messages)
	})
	until(t, 20*time.Second, "turn done", func() (bool, string) { o := get(); return o.Session.State == "waiting", o.Session.State })

	// Reuse: another request for the same directory gets this session.
	var reused struct {
		Key    string
		Reused bool
		Prompt struct{ Delivered bool }
	}
	status, err = api.post("/api/v1/sessions", map[string]any{"runtime": "claude", "workdir": agent.Cwd, "prompt": "reused prompt", "reuse": true}, &reused)
	if err != nil || status != http.StatusOK || !reused.Reused || reused.Key != "claude:"+created.ID || !reused.Prompt.Delivered {
		t.Fatalf("reuse: %d %+v %v", status, reused, err)
	}
	until(t, 20*time.Second, "reused turn done", func() (bool, string) { o := get(); return o.Session.State == "waiting", o.Session.State })

	// Sleep: the terminal closes, the card stays asleep.
	if status, _ := api.post(base+"/sleep", nil, nil); status != http.StatusOK {
		t.Fatalf("sleep: %d", status)
	}
	if o := get(); o.Session.State != "asleep" || o.Health != nil {
		t.Fatalf("after sleep: %+v health %+v", o.Session, o.Health)
	}
	if status, _ := api.post(base+"/message", map[string]any{"text": "asleep?"}, nil); status != http.StatusConflict {
		t.Fatalf("message to an asleep session: %d, want 409", status)
	}

	// Reconnect: the saved launch again, on the same card.
	var back struct{ Key string }
	if status, err := api.post(base+"/reconnect", nil, &back); err != nil || status != http.StatusOK || back.Key != "claude:"+created.ID {
		t.Fatalf("reconnect: %d %+v %v", status, back, err)
	}
	until(t, 30*time.Second, "reconnected", func() (bool, string) {
		o := get()
		return o.Session.State == "idle" && o.Health != nil && o.Health.Alive, fmt.Sprintf("%+v", o.Session)
	})
	screen("the name after reconnecting", "paddock-restart-e2e")
}

// hostedCreated is POST /api/v1/sessions' answer.
type hostedCreated struct {
	Key, ID string
	Prompt  struct {
		Delivered  bool
		By, Reason string
		Screen     string `json:"screen_tail"`
	}
}

// createHosted starts cli in paddock's terminal with its first prompt.
// Codex asks once whether to trust the hooks paddock installed: that is
// answered as the user would, from the key bar, and the prompt sent then.
func createHosted(t *testing.T, api *apiClient, cli agenttest.CLI, workdir, prompt string) hostedCreated {
	t.Helper()
	var created hostedCreated
	status, err := api.post("/api/v1/sessions", map[string]any{"runtime": string(cli), "workdir": workdir, "prompt": prompt}, &created)
	if cli == agenttest.Codex && err == nil && status == http.StatusCreated && created.Prompt.Delivered {
		// A slow start can show Codex's input before its one-time
		// "Hooks need review" question: the prompt went in, then
		// the question comes up. The user answers it (key bar).
		var sc struct{ Screen string }
		for range 50 {
			if _ = api.get("/api/v1/sessions/codex/"+created.ID+"/screen", &sc); strings.Contains(sc.Screen, "Hooks need review") {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if strings.Contains(sc.Screen, "Hooks need review") {
			if status, _ := api.post("/api/v1/sessions/codex/"+created.ID+"/keys", map[string]any{"keys": []string{"Down", "Enter"}}, nil); status != http.StatusOK {
				t.Fatalf("keys: %d", status)
			}
		}
	}
	if cli == agenttest.Codex && err == nil && status == http.StatusCreated && !created.Prompt.Delivered {
		// Codex asks once whether to trust the new hooks: paddock
		// typed nothing into that question and said so; the user
		// answers it from the key bar ("2. Trust all and continue").
		if !strings.Contains(created.Prompt.Reason, "trust the hooks") {
			t.Fatalf("codex first prompt: %+v, want the hook-trust question named", created.Prompt)
		}
		if status, _ := api.post("/api/v1/sessions/codex/"+created.ID+"/keys", map[string]any{"keys": []string{"Down", "Enter"}}, nil); status != http.StatusOK {
			t.Fatalf("keys: %d", status)
		}
		var d struct{ Delivered bool }
		until(t, 30*time.Second, "first prompt after trusting", func() (bool, string) {
			status, err := api.post("/api/v1/sessions/codex/"+created.ID+"/message", map[string]any{"text": prompt}, &d)
			return err == nil && status == http.StatusOK && d.Delivered, fmt.Sprint(status, d, err)
		})
		created.Prompt.Delivered, created.Prompt.By = true, "a message once its hooks were trusted"
	}
	if err != nil || status != http.StatusCreated || !created.Prompt.Delivered {
		t.Fatalf("create: %d %+v %v", status, created, err)
	}
	return created
}
