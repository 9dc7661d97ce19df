package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"paddock/internal/testkit/servetest"
)

// cardTops is where each card on the board stands in the viewport, by
// session key.
const cardTops = `Object.fromEntries([...document.querySelectorAll('#board > [data-testid="card"]')].map(c => [c.dataset.key, Math.round(c.getBoundingClientRect().top)]))`

// TestBrowserBoardHoldsStill: live updates do not move what the user is
// reading. Scrolled into the board, a card changing state changes in
// place, and every other card on the screen stays where it was — also
// when the session moves to the top of the board, when an approval opens
// the "needs you" strip above them, and when it is answered elsewhere.
func TestBrowserBoardHoldsStill(t *testing.T) {
	chrome := chromiumPath(t)
	home := fixtureHome(t)
	// Enough sessions for a board longer than the screen, older than the
	// recorded ones.
	for i := range 12 {
		writeLongTranscript(t, filepath.Join(home, ".claude", "projects", "-tmp-fakehome1-proj"), fmt.Sprintf("5b2a4e6c-0000-4000-8000-%012d", i), 2)
	}
	srv := servetest.Start(t, home)
	ph := newPhone(t, chrome)
	ph.pair(srv.PairLink)
	ph.poll("the board", `document.querySelectorAll('#board > [data-testid="card"]').length > 1`)
	tops := func() map[string]int {
		m, err := chromedp.Run(ph.ctx, chromedp.Evaluate[map[string]int](cardTops))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	const id = "1e6fec4f-a6cb-42e2-ad9e-c92c9d1309d2"
	key := "claude:" + id
	// Read from the second card on: the first is out of view above.
	ph.step("scroll into the board", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.querySelectorAll('#board > [data-testid="card"]')[1].getBoundingClientRect().top + window.scrollY - 60)`))
	ph.poll("scrolled", `window.scrollY > 0`)
	before := tops()
	if len(before) < 3 {
		t.Fatalf("only %d cards on the board", len(before))
	}
	moved := func(when string) {
		t.Helper()
		var bad []string
		for k, y := range tops() {
			// The session that changed may move; what was on the screen may not.
			if was, ok := before[k]; ok && k != key && was > 0 && was < 844 && (y-was > 1 || was-y > 1) {
				bad = append(bad, fmt.Sprintf("%s %d→%d", k, was, y))
			}
		}
		if len(bad) > 0 {
			shot(t, ph.ctx, "moved-"+strings.ReplaceAll(when, " ", "-"))
			t.Errorf("%s: cards moved on the screen: %s", when, strings.Join(bad, ", "))
		}
	}
	hook := func(event, extra string) {
		relayHook(t, srv, event, `{"session_id":"`+id+`","hook_event_name":"`+event+`","cwd":"/tmp/fakehome1/proj"`+extra+`}`)
	}
	card := `document.querySelector('#board > [data-testid="card"][data-key="` + key + `"]')`
	hook("UserPromptSubmit", `,"prompt":"keep going"`)
	ph.poll("prompting", card+`?.dataset.state === "prompting"`)
	moved("a prompt")
	hook("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"make"}`)
	hook("PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"make"}`)
	hook("Stop", ``)
	ph.poll("your turn", card+`?.dataset.state === "waiting"`)
	moved("a turn ending")
	held := startRelayHook(t, srv, "PermissionRequest", `{"session_id":"`+id+`","hook_event_name":"PermissionRequest","cwd":"/tmp/fakehome1/proj","tool_name":"Bash","tool_input":{"command":"make release"}}`)
	ph.poll("needs you", `!!document.querySelector('[data-testid="needs-you"] [data-testid="approval"]') && `+card+`?.dataset.state === "approval"`)
	moved("an approval")
	// Answered at the desk (the tool ran): a tap here would scroll the
	// page to the strip itself.
	hook("PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"make release"}`)
	held()
	ph.poll("answered", `!document.querySelector('[data-testid="needs-you"] [data-testid="approval"]:not(.resolved)')`)
	moved("the answer")
}
