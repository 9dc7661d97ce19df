// Package handoff builds the message that hands one session's work to
// another: the source, the task and the context, in a fixed template the
// receiving agent can act on without asking for anything again.
package handoff

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"paddock/internal/session"
)

// MaxContext is the most context a hand-off carries, in characters; the
// rest is cut at a message boundary.
const MaxContext = 12000

// DefaultHistory is how many of the source's messages the context takes
// when the request says nothing.
const DefaultHistory = 20

// Errors a request is refused with.
var (
	ErrNoTask       = errors.New("handoff: no task: say what the other session should do")
	ErrEmptyContext = errors.New("handoff: the source has nothing to hand off (no message matches, or none at all)")
)

// Request is what to hand off.
type Request struct {
	Source      session.Key
	SourceTitle string
	Task        string
	// Context, when set, is the context as the user wrote it: the
	// source's history is not read.
	Context string
	// Query keeps only the messages naming its words, and adds the
	// matching lines as excerpts.
	Query string
	// History is how many of the source's newest messages are read
	// (DefaultHistory when 0).
	History int
}

// Build is the hand-off message for r from the source's conversation
// msgs (oldest first).
func Build(msgs []session.Message, r Request) (string, error) {
	task := strings.TrimSpace(r.Task)
	if task == "" {
		return "", ErrNoTask
	}
	ctx := strings.TrimSpace(r.Context)
	if ctx == "" {
		var err error
		if ctx, err = fromHistory(msgs, r); err != nil {
			return "", err
		}
	} else if len([]rune(ctx)) > MaxContext {
		ctx = string([]rune(ctx)[:MaxContext]) + "\n[…cut]"
	}
	from := "`" + r.Source.String() + "`"
	if t := strings.TrimSpace(r.SourceTitle); t != "" {
		from += " (" + oneLine(t) + ")"
	}
	var b strings.Builder
	b.WriteString("## Session handoff\n\n")
	fmt.Fprintf(&b, "**From session:** %s\n", from)
	fmt.Fprintf(&b, "**Task:** %s\n\n", task)
	b.WriteString("### Context\n\n")
	b.WriteString(ctx)
	b.WriteString("\n\n---\nContinue this work in the current session. Do not ask the user to re-paste this handoff.\n")
	return b.String(), nil
}

// fromHistory is the context read from the source's newest messages:
// those naming the query's words when there is one, with the matching
// lines as excerpts; newest kept whole first, cut at a message boundary.
func fromHistory(msgs []session.Message, r Request) (string, error) {
	n := r.History
	if n <= 0 {
		n = DefaultHistory
	}
	words := queryWords(r.Query)
	var keep []session.Message
	for _, m := range msgs[max(0, len(msgs)-n):] {
		if m.Role != session.RoleUser && m.Role != session.RoleAssistant || strings.TrimSpace(m.Text) == "" {
			continue
		}
		if len(words) > 0 && !mentions(m.Text, words) {
			continue
		}
		keep = append(keep, m)
	}
	if len(keep) == 0 {
		return "", ErrEmptyContext
	}
	var excerpts []string
	if len(words) > 0 {
		for _, m := range keep {
			for _, l := range strings.Split(m.Text, "\n") {
				if l = strings.TrimSpace(l); l != "" && mentions(l, words) {
					excerpts = append(excerpts, "> "+l)
				}
			}
		}
	}
	// The newest messages matter most: they are taken first, from the
	// end, while they fit; what does not fit is left out whole.
	budget := MaxContext
	if len(excerpts) > 0 {
		ex := "#### Matching excerpts\n\n" + strings.Join(excerpts, "\n")
		if len([]rune(ex)) > MaxContext/3 {
			ex = string([]rune(ex)[:MaxContext/3]) + "\n[…cut]"
		}
		excerpts = []string{ex}
		budget -= len([]rune(ex)) + 2
	}
	var parts []string
	left := 0
	for i := len(keep) - 1; i >= 0; i-- {
		p := "**" + roleName(keep[i].Role) + ":** " + strings.TrimSpace(keep[i].Text)
		if len([]rune(p))+2 > budget {
			left = i + 1
			break
		}
		budget -= len([]rune(p)) + 2
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		// Even the newest message alone is too long: its end is kept.
		p := []rune("**" + roleName(keep[len(keep)-1].Role) + ":** " + strings.TrimSpace(keep[len(keep)-1].Text))
		parts = append(parts, "[…cut] "+string(p[len(p)-max(budget-8, 0):]))
		left = len(keep) - 1
	}
	slices.Reverse(parts)
	if left > 0 {
		parts = append([]string{fmt.Sprintf("[%d earlier messages left out]", left)}, parts...)
	}
	return strings.Join(append(excerpts, parts...), "\n\n"), nil
}

func roleName(role string) string {
	if role == session.RoleAssistant {
		return "Assistant"
	}
	return "User"
}

// queryWords are the query's words, lower-cased.
func queryWords(q string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		out = append(out, w)
	}
	return out
}

// mentions says whether text names every word.
func mentions(text string, words []string) bool {
	t := strings.ToLower(text)
	for _, w := range words {
		if !strings.Contains(t, w) {
			return false
		}
	}
	return true
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
