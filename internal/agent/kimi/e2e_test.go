package kimi

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"paddock/internal/procscan"
	"paddock/internal/session"
	"paddock/internal/testkit/agenttest"
	"paddock/internal/testkit/mockmodel"
)

// TestE2ERealKimi drives the real, pinned Kimi Code (its own Node 22, from
// the agents dir) in tmux against the mock model: while the TUI runs, the
// scanner — pointed at the fake HOME and at the real process table — lists
// its session as live with the TUI's pid, the typed prompt as first prompt
// and the mock's reply in the conversation; once the TUI has exited the
// session is no longer live. Kimi is optional in .ci/install-agents:
// without it the test skips, or fails under E2E_REQUIRED=1.
func TestE2ERealKimi(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	start := time.Now()

	mock, err := mockmodel.Start(ctx, mockmodel.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })

	a := agenttest.New(t, agenttest.Kimi, mock.URL())
	term := a.Start(t)
	term.Expect(ctx, a.Ready)

	s := New(Options{
		Home:       filepath.Join(a.Home, ".kimi-code"),
		LegacyHome: filepath.Join(a.Home, ".kimi"),
		Processes:  procscan.NewMatcher(process()).Agents,
	})
	const prompt = "hello paddock one"
	term.Type(prompt)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))

	// The TUI's own process, as the process table shows it.
	var pid int
	procs, err := procscan.NewMatcher(process()).Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.Runtime == runtimeName && p.Cwd == a.Cwd {
			pid = p.PID
			if !p.Interactive {
				t.Errorf("kimi process %d not interactive: %+v", p.PID, p)
			}
		}
	}
	if pid == 0 {
		t.Fatalf("no kimi process in %s among %+v", a.Cwd, procs)
	}

	info := waitFor(t, ctx, s, "live, with the prompt and the reply", func(info session.Info, msgs []session.Message) bool {
		return info.Live && info.FirstPrompt == prompt &&
			slices.Contains(texts(msgs), "assistant: "+mockmodel.PlainReply(1))
	})
	if info.PID != pid || info.Cwd != a.Cwd || info.Title != prompt || info.Model == "" {
		t.Errorf("live entry %+v; want pid %d, cwd %s", info, pid, a.Cwd)
	}
	if got := texts(conversation(t, s, info.ID)); !slices.Equal(got, []string{"user: " + prompt, "assistant: " + mockmodel.PlainReply(1)}) {
		t.Errorf("conversation %q", got)
	}
	if one, err := s.Session(ctx, info.ID); err != nil || !one.Live || one.PID != pid {
		t.Errorf("Session = live %v pid %d, %v", one.Live, one.PID, err)
	}
	t.Logf("kimi pid %d (pane %d), session %s live after %s", pid, term.PID(), info.ID, since(start))

	status, err := a.Quit(ctx, term)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, s, "not live after exit", func(i session.Info, _ []session.Message) bool {
		return i.ID == info.ID && !i.Live
	})
	t.Logf("kimi exited (%s); not live after %s", status, since(start))
}

func since(t time.Time) string { return time.Since(t).Round(100 * time.Millisecond).String() }

// waitFor rescans until the one listed session satisfies ok.
func waitFor(t *testing.T, ctx context.Context, s *Scanner, what string, ok func(session.Info, []session.Message) bool) session.Info {
	t.Helper()
	var last []session.Info
	for {
		infos, err := s.Scan(ctx, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		last = infos
		if len(infos) == 1 {
			msgs, _ := s.Conversation(ctx, infos[0].ID)
			if ok(infos[0], msgs) {
				return infos[0]
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("never %s; last scan %+v", what, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
