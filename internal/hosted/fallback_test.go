package hosted

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"paddock/internal/decisions"
	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// TestScreenFallback: a hosted agent with no hook channel shows a real
// recorded Claude approval dialog; the fallback offers it on the phone,
// and the approval is typed as the dialog's key ("1") into that pane. When
// the screen moves on to another dialog, the first is released as
// answered at the desk and the new one is offered.
func TestScreenFallback(t *testing.T) {
	ctx := t.Context()
	dir, _ := filepath.Abs(filepath.Join("..", "screendialog", "testdata", "claude-2.1.328"))
	script := `cat ` + filepath.Join(dir, "claude-approval-1.txt") + `; stty raw -echo; k=$(dd bs=1 count=1 2>/dev/null); stty sane; ` +
		`clear; cat ` + filepath.Join(dir, "claude-approval-2.txt") + `; sleep 2; clear; echo "GOT:$k"; exec sleep 600`
	m, terms, _, wd := standIn(t, script)
	items := decisions.New(decisions.Options{})
	go items.Run(ctx)
	go m.WatchScreens(ctx, items, 50*time.Millisecond)

	c, err := m.Create(ctx, Request{Runtime: "claude", Workdir: wd})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string, ok func([]decisions.Item) bool) []decisions.Item {
		t.Helper()
		var got []decisions.Item
		for range 300 {
			if got = items.List(decisions.Filter{}); ok(got) {
				return got
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: %+v", what, got)
		return nil
	}
	first := wait("the dialog offered", func(its []decisions.Item) bool { return len(its) == 1 })[0]
	if first.Tool != "Bash" || !strings.Contains(string(first.Input), "mock_out.txt") || first.Key.Runtime != "claude" {
		t.Fatalf("item %+v (%s)", first, first.Input)
	}
	if _, err := items.Decide(ctx, first.ID, decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}); err != nil {
		t.Fatal(err)
	}
	// The key reached the pane, which then shows another dialog: offered
	// in turn; and when that one goes away unanswered, it is the desk's.
	second := wait("the next dialog offered", func(its []decisions.Item) bool {
		return len(its) == 2 && its[0].ID != first.ID && its[0].Resolution == decisions.Pending
	})[0]
	wait("the vanished dialog released", func(its []decisions.Item) bool {
		for _, it := range its {
			if it.ID == second.ID {
				return it.Resolution == decisions.Desk
			}
		}
		return false
	})
	if _, err := items.Decide(ctx, second.ID, decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}); !errors.As(err, new(*decisions.ResolvedError)) {
		t.Fatalf("deciding a dialog answered at the desk: %v", err)
	}
	for range 200 {
		infos, _ := terms.List(ctx)
		if len(infos) == 1 {
			if s, _ := m.Screen(ctx, mustCard(t, m, c.TerminalID), 0); strings.Contains(s, "GOT:1") {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s, _ := m.Screen(ctx, mustCard(t, m, c.TerminalID), 0)
	t.Fatalf("the key typed was not the dialog's \"1\":\n%s", s)
}

func mustCard(t *testing.T, m *Manager, terminalID string) live.Card {
	t.Helper()
	c, ok := m.opts.Live.ByTerminal(terminalID)
	if !ok {
		t.Fatalf("no card for %s", terminalID)
	}
	return c
}

// TestScreenFallbackRefusesAChangedScreen: the phone approves a dialog
// that, meanwhile, gave way to another one on the screen: no key is sent.
func TestScreenFallbackRefusesAChangedScreen(t *testing.T) {
	ctx := t.Context()
	dir, _ := filepath.Abs(filepath.Join("..", "screendialog", "testdata", "claude-2.1.328"))
	marker := filepath.Join(t.TempDir(), "go")
	script := `cat ` + filepath.Join(dir, "claude-approval-1.txt") + `; while [ ! -e ` + marker + ` ]; do sleep 0.05; done; clear; cat ` +
		filepath.Join(dir, "claude-approval-2.txt") + `; stty raw -echo; k=$(timeout 2 dd bs=1 count=1 2>/dev/null); stty sane; clear; echo "KEY:[$k]"; exec sleep 600`
	m, _, _, wd := standIn(t, script)
	items := decisions.New(decisions.Options{})
	go items.Run(ctx)
	c, err := m.Create(ctx, Request{Runtime: "claude", Workdir: wd})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	var first decisions.Item
	for range 300 {
		m.screensOnce(ctx, items, &wg)
		if its := items.List(decisions.Filter{}); len(its) == 1 {
			first = its[0]
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if first.ID == "" {
		t.Fatal("the first dialog was never offered")
	}
	// The screen moves on to another dialog before the phone answers.
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	card := mustCard(t, m, c.TerminalID)
	for range 300 {
		if s, _ := m.Screen(ctx, card, 0); strings.Contains(s, "hello-from-mock-2") || !strings.Contains(s, "hello-from-mock-1") {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := items.Decide(ctx, first.ID, decisions.Decision{Verb: decisions.VerbAllow, By: "device:1"}); err != nil {
		t.Fatal(err)
	}
	for range 300 {
		if s, _ := m.Screen(ctx, card, 0); strings.Contains(s, "KEY:[") {
			if !strings.Contains(s, "KEY:[]") {
				t.Fatalf("a key was sent into the changed dialog:\n%s", s)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the stand-in never finished waiting for a key")
}

// TestScreenFallbackAfterTheHoldEnds: a hooked session's permission prompt
// that paddock held until its hold ran out (or never held: no phone was
// watching) goes to the terminal; while it shows there the phone can
// still answer it, by keys. While the hook's own item is pending, the
// screen offers nothing more.
func TestScreenFallbackAfterTheHoldEnds(t *testing.T) {
	ctx := t.Context()
	dir, _ := filepath.Abs(filepath.Join("..", "screendialog", "testdata", "claude-2.1.328"))
	m, _, states, wd := standIn(t, `cat `+filepath.Join(dir, "claude-approval-1.txt")+`; exec sleep 600`)
	items := decisions.New(decisions.Options{})
	go items.Run(ctx)
	c, err := m.Create(ctx, Request{Runtime: "claude", Workdir: wd})
	if err != nil {
		t.Fatal(err)
	}
	card := mustCard(t, m, c.TerminalID)
	// The agent's hooks report: a prompt, then the permission request,
	// which paddock holds for the phone.
	relay := hookstate.RelayInfo{TerminalID: c.TerminalID, PID: 4242, TTY: "/dev/pts/9"}
	states.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: "s-hooked", Name: "UserPromptSubmit", Kind: hookstate.KindPrompt, Cwd: wd, Relay: relay})
	states.HookEvent(ctx, hookstate.Event{Runtime: "claude", SessionID: "s-hooked", Name: "PermissionRequest", Kind: hookstate.KindPermission,
		ToolName: "Bash", ToolUseID: "t1", Cwd: wd, Relay: relay})
	key := session.Key{Runtime: "claude", ID: "s-hooked"}
	for range 250 {
		if cc, ok := states.Card(key); ok && cc.State == hookstate.StateApproval {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	held, _, err := items.Open(ctx, decisions.Item{Kind: decisions.KindApproval, Key: key, Tool: "Bash", ToolUseID: "t1", Cwd: wd,
		Can: []string{decisions.VerbAllow, decisions.VerbDeny}})
	if err != nil {
		t.Fatal(err)
	}
	go m.WatchScreens(ctx, items, 50*time.Millisecond)
	time.Sleep(300 * time.Millisecond) // six looks at the screen
	if its := items.List(decisions.Filter{PendingOnly: true}); len(its) != 1 || its[0].ID != held.ID {
		t.Fatalf("while the hook's item waits, the screen offered more: %+v", its)
	}
	if _, ok := items.Release(ctx, held.ID, decisions.Expired, "paddock"); !ok {
		t.Fatal("the held item was not released")
	}
	for range 250 {
		if its := items.List(decisions.Filter{PendingOnly: true}); len(its) == 1 {
			if its[0].ID == held.ID || !strings.HasPrefix(its[0].ToolUseID, "screen:") || its[0].Key != key {
				t.Fatalf("offered %+v", its[0])
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the dialog left on %v's screen was never offered again", card.Key)
}
