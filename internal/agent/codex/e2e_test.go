package codex

import (
	"context"
	"log/slog"
	"os"
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

// TestRealCodex drives the real, pinned Codex CLI in tmux against the mock
// model and checks what the Scanner makes of it, with the process table
// walked for Codex's command lines (ownProcesses.Agents) for processes, as
// paddock serve reads them:
//
//  1. in-process mode (daemon_auto_start = false): the TUI's native binary
//     holds the thread's writer lock from the start and the rollout from
//     the first prompt. Before the prompt the session is listed live as a
//     new session; after it, live with its prompt, reply and generated
//     title; after /quit, not live.
//  2. `codex resume ID` with the managed app-server daemon (Codex's
//     default): the daemon, not the TUI, holds the rollout, and keeps it
//     after the TUI quits. The session is live by the id on the TUI's
//     command line while the TUI runs, and not live after /quit although
//     the daemon still holds the file.
//
// A missing CLI or tmux skips (fails under E2E_REQUIRED=1).
func TestRealCodex(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	mock, err := mockmodel.Start(ctx, mockmodel.Options{Logger: slog.New(slog.NewTextHandler(t.Output(), nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	a := agenttest.NewCodex(t, mock.URL())
	home := filepath.Join(a.Home, ".codex")
	config := filepath.Join(home, "config.toml")
	base, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, config, string(base)+"\n[features]\ndaemon_auto_start = false\n")
	s := New(Options{Dir: home, Processes: ownProcesses.Agents})

	// 1. In-process mode.
	term := a.Start(t)
	term.Expect(ctx, a.Ready)
	fresh := waitFor(t, ctx, s, "a live new session before the first prompt", func(i session.Info) bool {
		return i.Live && i.Title == newSessionTitle
	})
	if fresh.PID != term.PID() || fresh.Cwd != a.Cwd || fresh.Path != "" {
		t.Errorf("new session = %+v, want pid %d, cwd %s, no rollout yet", fresh, term.PID(), a.Cwd)
	}
	if msgs, err := s.Conversation(ctx, fresh.ID); err != nil || len(msgs) != 0 {
		t.Errorf("Conversation of the new session = %v, %v; want empty", msgs, err)
	}

	const prompt = "hello paddock one"
	term.Type(prompt)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(1))))
	got := waitFor(t, ctx, s, "the session titled by Codex after its first turn", func(i session.Info) bool {
		return i.ID == fresh.ID && i.Title == mockmodel.TitleReply(prompt)
	})
	if !got.Live || got.PID != term.PID() || got.FirstPrompt != prompt || got.PromptCount != 1 ||
		got.TitleSource != session.TitleAI || got.Cwd != a.Cwd || got.Path == "" || got.Model != "mock-model" {
		t.Errorf("after the first turn: %+v", got)
	}
	want := []session.Message{{Role: session.RoleUser, Text: prompt}, {Role: session.RoleAssistant, Text: mockmodel.PlainReply(1)}}
	checkConversation(t, ctx, s, got.ID, want)

	if _, err := a.Quit(ctx, term); err != nil {
		t.Fatal(err)
	}
	ended := waitFor(t, ctx, s, "the session not live after /quit", func(i session.Info) bool {
		return i.ID == fresh.ID && !i.Live
	})
	if ended.PID != 0 {
		t.Errorf("ended session keeps pid %d", ended.PID)
	}

	// 2. The managed daemon, resuming the session by id.
	writeFile(t, config, string(base))
	a.Argv = append(a.Argv, "resume", got.ID)
	term = a.Start(t)
	term.Expect(ctx, a.Ready)
	resumed := waitFor(t, ctx, s, "the resumed session live by its command line", func(i session.Info) bool {
		return i.ID == got.ID && i.Live
	})
	if resumed.PID != term.PID() {
		t.Errorf("resumed session pid %d, want the TUI's %d", resumed.PID, term.PID())
	}
	const second = "second turn please"
	term.Type(second)
	term.Expect(ctx, regexp.MustCompile(regexp.QuoteMeta(mockmodel.PlainReply(2))))
	waitFor(t, ctx, s, "the second prompt listed", func(i session.Info) bool {
		return i.ID == got.ID && i.LastPrompt == second && i.PromptCount == 2 && i.Live
	})
	checkConversation(t, ctx, s, got.ID, append(want,
		session.Message{Role: session.RoleUser, Text: second},
		session.Message{Role: session.RoleAssistant, Text: mockmodel.PlainReply(2)}))
	if !daemonHolds(t, ctx, got.ID) {
		t.Log("no managed daemon holds the rollout: this run did not exercise the daemon case")
	}
	if _, err := a.Quit(ctx, term); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, s, "the resumed session not live after /quit", func(i session.Info) bool {
		return i.ID == got.ID && !i.Live
	})
	if daemonHolds(t, ctx, got.ID) {
		t.Log("the daemon still holds the rollout after /quit, and the session is rightly not live")
	}
}

// waitFor scans until some listed session satisfies ok, and returns it.
func waitFor(t *testing.T, ctx context.Context, s *Scanner, what string, ok func(session.Info) bool) session.Info {
	t.Helper()
	var last []session.Info
	for ctx.Err() == nil {
		infos, err := s.Scan(ctx, 50, nil)
		if err != nil {
			t.Fatalf("Scan: %v", err)
		}
		if i := slices.IndexFunc(infos, ok); i >= 0 {
			// Session must agree with the listing.
			one, err := s.Session(ctx, infos[i].ID)
			if err != nil || one.ID != infos[i].ID || one.Live != infos[i].Live || one.PID != infos[i].PID {
				t.Errorf("Session(%s) = %+v, %v; listed %+v", infos[i].ID, one, err, infos[i])
			}
			return infos[i]
		}
		last = infos
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s; last scan: %+v", what, last)
	return session.Info{}
}

func checkConversation(t *testing.T, ctx context.Context, s *Scanner, id string, want []session.Message) {
	t.Helper()
	msgs, err := s.Conversation(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var got []session.Message
	for _, m := range msgs {
		if m.Time.IsZero() {
			t.Errorf("message without time: %+v", m)
		}
		got = append(got, session.Message{Role: m.Role, Text: m.Text})
	}
	if !slices.Equal(got, want) {
		t.Errorf("Conversation(%s) = %q, want %q", id, got, want)
	}
}

// daemonHolds reports whether a managed app-server daemon holds the
// thread's rollout open.
func daemonHolds(t *testing.T, ctx context.Context, id string) bool {
	procs, err := ownProcesses.Agents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		for _, pid := range append([]int{p.PID}, p.Inner...) {
			if !managedDaemon(procCmdline(pid)) {
				continue
			}
			files, _ := procscan.OpenFiles(pid)
			for _, f := range files {
				if got, kind := heldThread(f); got == id && kind == heldRollout {
					return true
				}
			}
		}
	}
	return false
}
