package handoff

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"paddock/internal/session"
)

func conv(texts ...string) []session.Message {
	var out []session.Message
	for i, t := range texts {
		role := session.RoleUser
		if i%2 == 1 {
			role = session.RoleAssistant
		}
		out = append(out, session.Message{Role: role, Text: t})
	}
	return out
}

var src = session.Key{Runtime: "claude", ID: "abc"}

// TestBuild: the template, with the context from the recent history, a
// query's matching messages and excerpts, or the user's own words.
func TestBuild(t *testing.T) {
	msgs := conv("fix the login bug", "The session cookie lacks Secure; fixed in auth.go", "now the kiwi tests", "kiwi tests pass\nexcept TestKiwiRace")
	got, err := Build(msgs, Request{Source: src, SourceTitle: "Fix\nlogin", Task: "Finish the kiwi race"})
	if err != nil {
		t.Fatal(err)
	}
	want := "## Session handoff\n\n**From session:** `claude:abc` (Fix login)\n**Task:** Finish the kiwi race\n\n### Context\n\n" +
		"**User:** fix the login bug\n\n**Assistant:** The session cookie lacks Secure; fixed in auth.go\n\n**User:** now the kiwi tests\n\n" +
		"**Assistant:** kiwi tests pass\nexcept TestKiwiRace\n\n---\nContinue this work in the current session. Do not ask the user to re-paste this handoff.\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got, err = Build(msgs, Request{Source: src, Task: "t", Query: "KIWI"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "#### Matching excerpts\n\n> now the kiwi tests\n> kiwi tests pass") || strings.Contains(got, "login") {
		t.Errorf("with a query:\n%s", got)
	}
	got, err = Build(msgs, Request{Source: src, Task: "t", History: 1})
	if err != nil || strings.Contains(got, "now the kiwi tests") || !strings.Contains(got, "TestKiwiRace") {
		t.Errorf("history 1: %v\n%s", err, got)
	}
	got, err = Build(msgs, Request{Source: src, Task: "t", Context: "  just this  "})
	if err != nil || !strings.Contains(got, "### Context\n\njust this\n\n---") {
		t.Errorf("explicit context: %v\n%s", err, got)
	}
}

// TestBuildCuts: the context fits MaxContext, cut at a message boundary,
// the newest kept, and says what was left out.
func TestBuildCuts(t *testing.T) {
	var texts []string
	for i := range 40 {
		texts = append(texts, fmt.Sprintf("message %02d %s", i, strings.Repeat("x", 900)))
	}
	got, err := Build(conv(texts...), Request{Source: src, Task: "t", History: 40})
	if err != nil {
		t.Fatal(err)
	}
	ctx := got[strings.Index(got, "### Context\n\n")+len("### Context\n\n") : strings.Index(got, "\n\n---\n")]
	if n := len([]rune(ctx)); n > MaxContext {
		t.Errorf("context of %d characters, want ≤ %d", n, MaxContext)
	}
	if !strings.Contains(ctx, "message 39") || strings.Contains(ctx, "message 00") || !strings.HasPrefix(ctx, "[") ||
		!strings.Contains(ctx, "earlier messages left out]") {
		t.Errorf("cut context starts %q", ctx[:80])
	}
	for _, p := range strings.Split(ctx, "\n\n")[1:] {
		if !strings.HasPrefix(p, "**User:** message") && !strings.HasPrefix(p, "**Assistant:** message") || !strings.HasSuffix(p, "xxx") {
			t.Errorf("a message was cut inside: %q…", p[:40])
		}
	}
	long := strings.Repeat("é", MaxContext+50)
	if got, err := Build(nil, Request{Source: src, Task: "t", Context: long}); err != nil || !strings.Contains(got, "[…cut]") {
		t.Errorf("a long explicit context: %v", err)
	}
}

// TestBuildRefuses: no task, or nothing to hand off, is a clear error.
func TestBuildRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []session.Message
		r    Request
		want error
	}{
		{"no task", conv("a", "b"), Request{Source: src, Task: "  "}, ErrNoTask},
		{"an empty source", nil, Request{Source: src, Task: "t"}, ErrEmptyContext},
		{"no message names the query", conv("a", "b"), Request{Source: src, Task: "t", Query: "zebra"}, ErrEmptyContext},
	} {
		if _, err := Build(tc.msgs, tc.r); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
