package hosted

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"paddock/internal/live"
	"paddock/internal/pending"
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
	items := pending.New(pending.Options{})
	go items.Run(ctx)
	go m.WatchScreens(ctx, items, 50*time.Millisecond)

	c, err := m.Create(ctx, Request{Runtime: "claude", Workdir: wd})
	if err != nil {
		t.Fatal(err)
	}
	wait := func(what string, ok func([]pending.Item) bool) []pending.Item {
		t.Helper()
		var got []pending.Item
		for range 300 {
			if got = items.List(pending.Filter{}); ok(got) {
				return got
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("%s: %+v", what, got)
		return nil
	}
	first := wait("the dialog offered", func(its []pending.Item) bool { return len(its) == 1 })[0]
	if first.Tool != "Bash" || !strings.Contains(string(first.Input), "mock_out.txt") || first.Key.Runtime != "claude" {
		t.Fatalf("item %+v (%s)", first, first.Input)
	}
	if _, err := items.Decide(ctx, first.ID, pending.Decision{Verb: pending.VerbAllow, By: "device:1"}); err != nil {
		t.Fatal(err)
	}
	// The key reached the pane, which then shows another dialog: offered
	// in turn; and when that one goes away unanswered, it is the desk's.
	second := wait("the next dialog offered", func(its []pending.Item) bool {
		return len(its) == 2 && its[0].ID != first.ID && its[0].Resolution == pending.Pending
	})[0]
	wait("the vanished dialog released", func(its []pending.Item) bool {
		for _, it := range its {
			if it.ID == second.ID {
				return it.Resolution == pending.Desk
			}
		}
		return false
	})
	if _, err := items.Decide(ctx, second.ID, pending.Decision{Verb: pending.VerbAllow, By: "device:1"}); !errors.As(err, new(*pending.ResolvedError)) {
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
