package opencode_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"paddock/internal/agent/opencode"
	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestRealOpenCode runs the pinned OpenCode TUI against the mock model in
// tmux and reads what it wrote while it runs and after it quits: the
// session is listed as live with the TUI's pid (bound by rule 4: created
// after the TUI started), its prompt is the first prompt, the reply is in
// the conversation (still in the -wal while OpenCode runs); after /exit
// it is no longer live; reopened with --continue it is live again with
// the new pid (rule 3). A missing CLI skips (fails under E2E_REQUIRED=1).
func TestRealOpenCode(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	mock, err := mockmodel.Start(ctx, mockmodel.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })

	start := time.Now()
	step := func(what string) { t.Logf("%s after %s", what, time.Since(start).Round(100*time.Millisecond)) }
	a := agenttest.NewOpenCode(t, mock.URL())
	term := a.Start(t)
	term.Expect(ctx, a.Ready)

	s := opencode.New(opencode.Options{
		DataDir:   filepath.Join(a.Home, ".local", "share", "opencode"),
		Processes: procscan.NewMatcher(opencode.Agent().Process).Agents,
	})
	if got, err := s.Scan(ctx, 50, nil); err != nil || len(got) != 0 {
		t.Fatalf("before the first prompt: Scan = %+v, %v; want no session", got, err)
	}

	prompt := "hello paddock one"
	term.Type(prompt)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))

	// The reply is on screen; its row may land a moment later.
	var info session.Info
	var msgs []session.Message
	want := []string{"user: " + prompt, "assistant: " + mockmodel.PlainReply(1)}
	for {
		infos, err := s.Scan(ctx, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) == 1 {
			info = infos[0]
			if msgs, err = s.Conversation(ctx, info.ID); err != nil {
				t.Fatal(err)
			}
			if info.Live && slices.Equal(convText(msgs), want) {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("never listed live with the reply: %+v, conversation %q", infos, convText(msgs))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if info.PID != term.PID() || info.FirstPrompt != prompt || info.Cwd != a.Cwd || info.PromptCount != 1 ||
		info.Path != filepath.Join(a.Home, ".local", "share", "opencode", "opencode.db") {
		t.Errorf("live session = %+v; want pid %d, prompt %q, cwd %s", info, term.PID(), prompt, a.Cwd)
	}
	if got, err := s.Session(ctx, info.ID); err != nil || !got.Live || got.PID != term.PID() {
		t.Errorf("Session = %+v, %v", got, err)
	}

	step("live with the reply")
	if _, err := a.Quit(ctx, term); err != nil {
		t.Fatal(err)
	}
	step("quit")
	infos, err := s.Scan(ctx, 50, nil)
	if err != nil || len(infos) != 1 || infos[0].ID != info.ID || infos[0].Live || infos[0].PID != 0 {
		t.Fatalf("after /exit: Scan = %+v, %v; want %s not live", infos, err, info.ID)
	}
	if msgs, err := s.Conversation(ctx, info.ID); err != nil || !slices.Equal(convText(msgs), want) {
		t.Errorf("after /exit: Conversation = %q, %v", convText(msgs), err)
	}

	// Reopened with --continue (rule 3): live again, with the new pid,
	// before anything is typed.
	a.Argv = append([]string{a.Argv[0], "--continue"}, a.Argv[1:]...)
	term = a.Start(t)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
	step("continued")
	for {
		infos, err = s.Scan(ctx, 50, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) == 1 && infos[0].Live {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("--continue: never live: %+v", infos)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if infos[0].ID != info.ID || infos[0].PID != term.PID() {
		t.Errorf("--continue: %+v; want %s live with pid %d", infos[0], info.ID, term.PID())
	}
	step("live again")
	if _, err := a.Quit(ctx, term); err != nil {
		t.Fatal(err)
	}
	step("quit again")
}

func convText(msgs []session.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}
