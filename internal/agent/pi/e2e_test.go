package pi_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"paddock/internal/agent/pi"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestRealPi runs the pinned Pi twice in one fake HOME and project, against
// the mock model, and reads what it wrote through the Scanner with the
// real process table:
//
//   - a plain `pi`, typed into a terminal: listed with its prompt and
//     reply, but never live — Pi hides its arguments, holds no file open,
//     and its cwd is shared with the other session (no
//     guessing). paddock's Pi extension binds such a session elsewhere.
//   - a `pi --session FILE` started the way paddock can host it, with
//     PADDOCK_SESSION_ID=FILE in its environment: listed as live with that
//     process's pid while it runs, and not live once it has exited.
//
// A missing Pi or tmux skips (fails under E2E_REQUIRED=1).
func TestRealPi(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	start := time.Now()

	mock, err := mockmodel.Start(ctx, mockmodel.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })

	plain := agenttest.NewPi(t, mock.URL())
	agentDir := filepath.Join(plain.Home, ".pi", "agent")
	// Where Pi 0.73.1 files a session of this cwd, under a name paddock
	// chose: `pi --session FILE` creates the session there.
	folder := "--" + strings.ReplaceAll(strings.TrimPrefix(plain.Cwd, "/"), "/", "-") + "--"
	hostedFile := filepath.Join(agentDir, "sessions", folder, "paddock-hosted.jsonl")
	hosted := *plain
	hosted.Argv = append(slices.Clone(plain.Argv), "--session", hostedFile)
	hosted.Env = slices.Clone(plain.Env)
	hosted.Setenv("PADDOCK_TERMINAL_ID", "pdk-e2e")
	hosted.Setenv("PADDOCK_SESSION_ID", hostedFile)

	t1 := plain.Start(t)
	t2 := hosted.Start(t)
	const prompt1, prompt2 = "hello from a plain pi", "hello from a hosted pi"
	for _, run := range []struct {
		term   *agenttest.Term
		agent  *agenttest.Agent
		prompt string
	}{{t1, plain, prompt1}, {t2, &hosted, prompt2}} {
		run.term.Expect(ctx, run.agent.Ready)
		run.term.Type(run.prompt)
		run.term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
	}
	t.Logf("both answered after %s", time.Since(start).Round(100*time.Millisecond))

	// What the process table shows of the hosted Pi: its own title over
	// its arguments, so the --session on its command line cannot be read.
	procs, err := procscan.NewMatcher(pi.Agent().Process).Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(procs, func(p procscan.AgentProcess) bool { return p.PID == t2.PID() })
	if i < 0 {
		t.Errorf("procscan does not see the hosted Pi (pid %d) among %+v", t2.PID(), procs)
	} else if p := procs[i]; p.Runtime != "pi" || !p.ArgsHidden || p.ArgSessionID != "" || p.SessionID != hostedFile {
		t.Errorf("procscan sees the hosted Pi as %+v", p)
	}

	s := pi.New(pi.Options{Dir: agentDir, Processes: procscan.NewMatcher(pi.Agent().Process).Agents})
	byPrompt := waitListed(ctx, t, s, prompt1, prompt2)
	p1, p2 := byPrompt[prompt1], byPrompt[prompt2]

	if p2.Path != hostedFile || !p2.Live || p2.PID != t2.PID() {
		t.Errorf("hosted session %+v: want live with pid %d, file %s", p2, t2.PID(), hostedFile)
	}
	if p1.Live || p1.PID != 0 {
		t.Errorf("plain session %+v is live: nothing binds a plain pi", p1)
	}
	for _, info := range []session.Info{p1, p2} {
		if info.Cwd != plain.Cwd || info.Model != "mock-model" || info.PromptCount != 1 || info.Title != info.FirstPrompt {
			t.Errorf("info %+v", info)
		}
		if id, err := pi.IDOf(info.Path); err != nil || id != info.ID {
			t.Errorf("IDOf(%s) = %q, %v; want %s", info.Path, id, err, info.ID)
		}
		msgs, err := s.Conversation(ctx, info.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := []session.Message{
			{Role: session.RoleUser, Text: info.FirstPrompt},
			{Role: session.RoleAssistant, Text: mockmodel.PlainReply(1)},
		}
		if len(msgs) != 2 || msgs[0].Role != want[0].Role || msgs[0].Text != want[0].Text ||
			msgs[1].Role != want[1].Role || msgs[1].Text != want[1].Text {
			t.Errorf("conversation of %s: %+v, want %+v", info.ID, msgs, want)
		}
	}
	if f, err := s.FileOf(ctx, p2.ID); err != nil || f != hostedFile {
		t.Errorf("FileOf(%s) = %q, %v", p2.ID, f, err)
	}

	if _, err := hosted.Quit(ctx, t2); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Session(ctx, p2.ID); err != nil || got.Live {
		t.Errorf("after Pi exited: %+v, %v", got, err)
	}
	infos, err := s.Scan(ctx, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.Live {
			t.Errorf("after Pi exited, Scan still has %s live (pid %d)", in.ID, in.PID)
		}
	}
	if _, err := plain.Quit(ctx, t1); err != nil {
		t.Fatal(err)
	}
	t.Logf("done in %s", time.Since(start).Round(100*time.Millisecond))
}

// waitListed scans until a session with each prompt is listed: Pi writes
// its file right after the first answer, which the screen may show first.
func waitListed(ctx context.Context, t *testing.T, s *pi.Scanner, prompts ...string) map[string]session.Info {
	t.Helper()
	for {
		infos, err := s.Scan(ctx, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]session.Info{}
		for _, in := range infos {
			out[in.FirstPrompt] = in
		}
		all := true
		for _, p := range prompts {
			_, ok := out[p]
			all = all && ok
		}
		if all {
			return out
		}
		select {
		case <-ctx.Done():
			t.Fatalf("sessions %q not listed; listed %+v", prompts, infos)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
