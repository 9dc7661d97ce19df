package board

import (
	"fmt"
	"regexp"
	"time"

	"paddock/internal/session"
)

// Categories are the kinds of session a task search asks for, each
// decided from what the board knows of a session:
//
//	subagent    in a team: a member (its history names a parent) or a lead with members
//	github      its title or first prompt speaks of GitHub work: github.com, a pull
//	            request ("PR", "pull request"), a number ("#" and digits, or the
//	            word issue and digits), the gh command, a merge conflict or a rebase
//	hosted      it runs, or ran, in paddock's own terminal
//	live        an agent process or a hook says it runs now ("background" is the same)
//	untitled    it has a prompt but no title of its own (no custom, AI or summary
//	            title: the board names it by its first prompt)
//	recent      active in the last 7 days
//	all         every session
var Categories = []string{"subagent", "github", "hosted", "live", "untitled", "recent", "all"}

// githubWork is what marks a title or first prompt as GitHub work.
var githubWork = regexp.MustCompile(`(?i)github\.com|\bpull requests?\b|\bPRs?\b|(?:^|\s)#\d+\b|\bissues?\s*#?\d+|\bgh (?:pr|issue|run|repo)\b|\bmerge conflicts?\b|\brebase\b`)

// recentFor is how far back "recent" reaches.
const recentFor = 7 * 24 * time.Hour

// InCategory keeps the entries of category cat, in their order; an
// unknown category is an error naming the known ones.
func InCategory(entries []Entry, cat string, now time.Time) ([]Entry, error) {
	if cat == "background" {
		cat = "live"
	}
	var keep func(Entry) bool
	switch cat {
	case "all":
		return entries, nil
	case "subagent":
		leads := map[string]bool{}
		for _, e := range entries {
			if e.Info.ParentKey != "" {
				leads[e.Info.ParentKey] = true
			}
		}
		keep = func(e Entry) bool { return e.Info.ParentKey != "" || leads[e.Key().String()] }
	case "github":
		keep = func(e Entry) bool {
			return githubWork.MatchString(e.Info.Title) || githubWork.MatchString(e.Info.FirstPrompt)
		}
	case "hosted":
		keep = func(e Entry) bool { return e.Card != nil && e.Card.TerminalID != "" }
	case "live":
		keep = func(e Entry) bool { return !e.Over() }
	case "untitled":
		keep = func(e Entry) bool {
			return (e.Info.Title == "" || e.Info.TitleSource == session.TitlePrompt) && (e.Info.FirstPrompt != "" || e.Info.PromptCount > 0)
		}
	case "recent":
		keep = func(e Entry) bool { return now.Sub(e.SortTime()) <= recentFor }
	default:
		return nil, fmt.Errorf("no category %q (%v, or background)", cat, Categories)
	}
	var out []Entry
	for _, e := range entries {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Keys are the entries' keys.
func Keys(entries []Entry) []session.Key {
	out := make([]session.Key, len(entries))
	for i, e := range entries {
		out[i] = e.Key()
	}
	return out
}
