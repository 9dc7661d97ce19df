package board

import (
	"slices"
	"testing"
	"time"

	"paddock/internal/hookstate"
	"paddock/internal/live"
	"paddock/internal/session"
)

// TestInCategory: each category keeps exactly the sessions its rule
// says, in the board's order.
func TestInCategory(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	e := func(id string, days int, f func(*Entry)) Entry {
		en := Entry{Info: session.Info{Runtime: "claude", ID: id, Title: "plain work", TitleSource: session.TitleAI, FirstPrompt: "do it",
			Updated: now.Add(-time.Duration(days) * 24 * time.Hour)}}
		if f != nil {
			f(&en)
		}
		return en
	}
	entries := []Entry{
		e("lead", 1, nil),
		e("member", 2, func(en *Entry) { en.Info.ParentKey = "claude:lead" }),
		e("pr", 3, func(en *Entry) { en.Info.Title = "Review PR #305" }),
		e("gh", 10, func(en *Entry) { en.Info.FirstPrompt = "clone https://github.com/x/y and build it" }),
		e("hosted", 4, func(en *Entry) { en.Card = &live.Card{TerminalID: "t1", State: hookstate.StateWorking} }),
		e("live", 5, func(en *Entry) { en.Info.Live = true }),
		e("untitled", 20, func(en *Entry) { en.Info.Title, en.Info.TitleSource = "fix the login", session.TitlePrompt }),
		e("empty", 30, func(en *Entry) { en.Info.Title, en.Info.FirstPrompt, en.Info.TitleSource = "", "", "" }),
		e("prefix", 6, func(en *Entry) { en.Info.Title = "GHOST issues-free title" }), // no number: not GitHub work
		e("issue", 7, func(en *Entry) { en.Info.FirstPrompt = "look at issue 12 please" }),
	}
	for _, tc := range []struct {
		cat  string
		want []string
	}{
		{"subagent", []string{"lead", "member"}},
		{"github", []string{"pr", "gh", "issue"}},
		{"hosted", []string{"hosted"}},
		{"live", []string{"hosted", "live"}},
		{"background", []string{"hosted", "live"}},
		{"untitled", []string{"untitled"}},
		{"recent", []string{"lead", "member", "pr", "hosted", "live", "prefix", "issue"}},
		{"all", []string{"lead", "member", "pr", "gh", "hosted", "live", "untitled", "empty", "prefix", "issue"}},
	} {
		got, err := InCategory(entries, tc.cat, now)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, en := range got {
			ids = append(ids, en.Info.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("%s: %q, want %q", tc.cat, ids, tc.want)
		}
	}
	if _, err := InCategory(entries, "gateway", now); err == nil {
		t.Error("an unknown category was accepted")
	}
}
