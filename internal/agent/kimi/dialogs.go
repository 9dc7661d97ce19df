package kimi

import (
	"fmt"
	"regexp"
	"strings"

	"paddock/internal/screendialog"
)

// dialogs are the dialogs recorded from Kimi Code 2.1.0: its command
// approval and its single-question picker.
func dialogs() screendialog.Reader {
	return screendialog.Reader{
		Parsers:  []screendialog.Parser{kimiApproval, kimiQuestion},
		Keys:     dialogKeys,
		FreeText: []string{"Other"},
	}
}

// dialogKeys: an approval's line is picked by its digit; a question is
// answered by its option's digit and then 1, Submit on the review page
// that the choice opens, or declined with Escape ("esc cancel").
func dialogKeys(d screendialog.Dialog, verb string, choice int) ([]string, bool) {
	switch d.Kind {
	case screendialog.Approval:
		return kimiApprovalKeys(d, verb)
	case screendialog.Question:
		return screendialog.QuestionKeys(d, verb, choice, "1")
	}
	return nil, false
}

// Kimi Code draws its dialogs between two rules above the status line.
// The command approval, as recorded:
//
//	──────────────────────────────
//	  ▶ Run this command?
//	  cwd: /tmp/fakehome-kimi/proj
//	  $ echo hello-from-mock-3 >> mock_out.txt && cat mock_out.txt
//	    Append a line to mock_out.txt
//	  ▶ 1. Approve once
//	    2. Approve for this session
//	    3. Reject
//	    4. Reject with feedback
//	  ↑/↓ select · 1/2/3/4 choose · ↵ confirm
//	──────────────────────────────
//	mock-model  ~/proj                          ctrl+o expand | …
//	                                            context: 1% (132/125k)
//
// Digits choose, verified on the real CLI: 1 approves once, 2 for this
// session, 3 rejects (internal/testkit/agentenv answers with 1 and 3). The
// command is the "$ " line alone: a wrapped command cannot be told from
// the description below it, and a cut command mismatches its pending
// item.
var (
	kimiApprovalFooter = regexp.MustCompile(`^↑/↓ select · [1-9](?:/[1-9])* choose · ↵ confirm$`)
	kimiQuestionFooter = regexp.MustCompile(`^↑↓ select 1-[1-9] / ↵ choose ←/→/tab switch esc cancel$`)
	kimiContext        = regexp.MustCompile(`context: \d+% \(\S+\)$`)
	kimiChoice         = regexp.MustCompile(`^( *)(?:→ +)?\[([1-9])\] +(\S.*)$`)
	kimiTabGap         = regexp.MustCompile(` {2,}`)
)

const kimiRunAsk = "▶ Run this command?"

// kimiBottom finds the dialog's footer: the line matching footer, followed
// only by the closing rule, at most one status line, and the context line
// at the very bottom. Anything else below (a shell prompt after the CLI
// was killed) means the dialog is not live.
func kimiBottom(ls []string, footer *regexp.Regexp) int {
	end := len(ls) - 1
	if end < 2 || !kimiContext.MatchString(ls[end]) {
		return -1
	}
	for i := end - 1; i >= 0 && i >= end-3; i-- {
		if !screendialog.IsRule(ls[i], '─') {
			continue
		}
		if i >= 1 && footer.MatchString(screendialog.Norm(ls[i-1])) {
			return i - 1
		}
		return -1
	}
	return -1
}

func kimiApproval(ls []string) (screendialog.Dialog, bool) {
	foot := kimiBottom(ls, kimiApprovalFooter)
	if foot < 0 {
		return screendialog.Dialog{}, false
	}
	ask := screendialog.LastIndex(ls, foot, screendialog.TrimmedIs(kimiRunAsk))
	if ask < 0 {
		return screendialog.Dialog{}, false
	}
	if rule := screendialog.PrevNonBlank(ls, ask); rule < 0 || !screendialog.IsRule(ls[rule], '─') {
		return screendialog.Dialog{}, false
	}
	first, dollar := -1, -1
	for i := ask + 1; i < foot; i++ {
		if _, ok := screendialog.ParseNumbered(ls[i]); ok {
			first = i
			break
		}
		if dollar < 0 && strings.HasPrefix(strings.TrimSpace(ls[i]), "$ ") {
			dollar = i
		}
	}
	if first < 0 || dollar < 0 {
		return screendialog.Dialog{}, false
	}
	options, ok := screendialog.ParseOptions(ls[first:foot], true, nil)
	// The footer's "1/2/3/4" counts the options.
	if !ok || !strings.Contains(screendialog.Norm(ls[foot]), " "+countTo(len(options), "/")+" choose ") {
		return screendialog.Dialog{}, false
	}
	d := screendialog.Dialog{Kind: screendialog.Approval, Command: screendialog.Norm(strings.TrimPrefix(strings.TrimSpace(ls[dollar]), "$")), Options: screendialog.NormAll(options)}
	if screendialog.IndexOf(d.Options, isKimi("Approve once")) != 0 || screendialog.IndexOf(d.Options, isKimi("Reject")) < 0 {
		return screendialog.Dialog{}, false
	}
	return d, true
}

// countTo is "1/2/…/n" with sep between the numbers.
func countTo(n int, sep string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(sep)
		}
		fmt.Fprint(&b, i)
	}
	return b.String()
}

func isKimi(label string) func(string) bool { return func(o string) bool { return o == label } }

func kimiApprovalKeys(d screendialog.Dialog, verb string) ([]string, bool) {
	var label string
	switch verb {
	case screendialog.VerbAllow:
		label = "Approve once"
	case screendialog.VerbAlways:
		label = "Approve for this session"
	case screendialog.VerbDeny:
		label = "Reject"
	default:
		return nil, false
	}
	k, ok := screendialog.Digit(screendialog.IndexOf(d.Options, isKimi(label)))
	if !ok {
		return nil, false
	}
	return []string{k}, true
}

// The question picker, as recorded:
//
//	──────────────────────────────
//	 question
//	  Color    Submit
//	 ? Which color do you prefer?
//	  → [1] Red
//	        warm
//	    [2] Blue
//	        cool
//	    [3] Other
//	  ↑↓ select  1-3 / ↵ choose  ←/→/tab switch  esc cancel
//	──────────────────────────────
//
// A digit chooses; a review page follows ("Ready to submit your answers?
// → [1] Submit [2] Cancel"), answered with 1
// (as internal/testkit/agentenv answers: 1, 1). Only a single question (one tab
// besides Submit) is recognised: with several, the second digit would
// answer the next question.
func kimiQuestion(ls []string) (screendialog.Dialog, bool) {
	foot := kimiBottom(ls, kimiQuestionFooter)
	if foot < 0 {
		return screendialog.Dialog{}, false
	}
	ask := screendialog.LastIndex(ls, foot, func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "? ") })
	if ask < 0 {
		return screendialog.Dialog{}, false
	}
	tab := screendialog.PrevNonBlank(ls, ask)
	title := screendialog.PrevNonBlank(ls, tab)
	rule := screendialog.PrevNonBlank(ls, title)
	if rule < 0 || strings.TrimSpace(ls[title]) != "question" || !screendialog.IsRule(ls[rule], '─') {
		return screendialog.Dialog{}, false
	}
	tabs := kimiTabGap.Split(strings.TrimSpace(ls[tab]), -1)
	if len(tabs) != 2 || tabs[1] != "Submit" || strings.HasPrefix(tabs[0], "(") {
		return screendialog.Dialog{}, false
	}
	var question []string
	question = append(question, strings.TrimPrefix(strings.TrimSpace(ls[ask]), "?"))
	var options []string
	col := -1
	for _, l := range ls[ask+1 : foot] {
		if m := kimiChoice.FindStringSubmatch(l); m != nil {
			if m[2] != string(rune('1'+len(options))) {
				return screendialog.Dialog{}, false
			}
			options = append(options, m[3])
			col = len([]rune(l)) - len([]rune(m[3]))
			continue
		}
		switch {
		case strings.TrimSpace(l) == "":
		case len(options) == 0:
			question = append(question, l) // the question, wrapped
		case screendialog.Indent(l) >= col:
			// an option's description
		default:
			return screendialog.Dialog{}, false
		}
	}
	// The footer's "1-N" counts the options.
	if len(options) == 0 || !strings.Contains(screendialog.Norm(ls[foot]), fmt.Sprintf(" 1-%d ", len(options))) {
		return screendialog.Dialog{}, false
	}
	return screendialog.Dialog{Kind: screendialog.Question, Question: screendialog.JoinTrimmed(question), Options: screendialog.NormAll(options)}, true
}
