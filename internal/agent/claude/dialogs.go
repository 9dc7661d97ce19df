package claude

import (
	"strings"

	"paddock/internal/screendialog"
)

// dialogs are the dialogs recorded from Claude Code 2.1.328 (the screens
// are in internal/screendialog/testdata/claude-2.1.328): its Bash command
// approval and its single-question picker.
func dialogs() screendialog.Reader {
	return screendialog.Reader{
		Parsers:  []screendialog.Parser{claudeApproval, claudeQuestion},
		Keys:     dialogKeys,
		FreeText: []string{"Type something.", "Chat about this"},
	}
}

// dialogKeys: an approval's line is picked by its digit; a question is
// answered by its option's digit, or declined with Escape ("Esc to
// cancel").
func dialogKeys(d screendialog.Dialog, verb string, choice int) ([]string, bool) {
	switch d.Kind {
	case screendialog.Approval:
		return claudeApprovalKeys(d, verb)
	case screendialog.Question:
		return screendialog.QuestionKeys(d, verb, choice)
	}
	return nil, false
}

// The Bash command approval (claude-approval-1.txt):
//
//	──────────────────────────────
//	 Bash command
//	 Tip: auto mode handles these prompts for you — …
//	 Append a line to mock_out.txt
//	╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
//	 echo hello-from-mock-1 >> mock_out.txt && cat mock_out.txt
//	╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
//	 Do you want to proceed?
//	 ❯ 1. Yes
//	   2. Yes, and always allow access to /tmp/…/proj from this project
//	   3. Yes, and switch to auto mode · auto mode handles these prompts for you
//	   4. No
//
//	 Esc to cancel · Tab to amend
//
// A digit picks and confirms its line whatever is selected (verified: 1
// ran the command, 2 allowed it and added the rule, 4 refused it). Only
// the Bash dialog is recognised: edits, writes, web fetches and MCP tools
// were not recorded.
const (
	claudeProceed    = "Do you want to proceed?"
	claudeBashTitle  = "Bash command"
	claudeQuestionFt = "Enter to select · ↑/↓ to navigate · Esc to cancel"
)

func claudeApproval(ls []string) (screendialog.Dialog, bool) {
	end := len(ls) - 1
	// The footer is the last line: "Esc to cancel", with " · Tab to
	// amend" while the first line is selected.
	if end < 0 || !strings.HasPrefix(strings.TrimSpace(ls[end]), "Esc to cancel") {
		return screendialog.Dialog{}, false
	}
	ask := screendialog.LastIndex(ls, end, screendialog.TrimmedIs(claudeProceed))
	if ask < 0 {
		return screendialog.Dialog{}, false
	}
	options, ok := screendialog.ParseOptions(ls[ask+1:end], true, nil)
	if !ok {
		return screendialog.Dialog{}, false
	}
	// The command sits between two dashed rules right above the question.
	if ask < 1 || !screendialog.IsRule(ls[ask-1], '╌') {
		return screendialog.Dialog{}, false
	}
	open := screendialog.LastIndex(ls, ask-1, func(l string) bool { return screendialog.IsRule(l, '╌') })
	if open < 0 || open+1 >= ask-1 {
		return screendialog.Dialog{}, false
	}
	cmd := screendialog.JoinTrimmed(ls[open+1 : ask-1])
	// Above: the title, an optional tip and the agent's description, under
	// the dialog's top rule.
	top := screendialog.LastIndex(ls, open, func(l string) bool { return screendialog.IsRule(l, '─') })
	if top < 0 || top+1 >= open || strings.TrimSpace(ls[top+1]) != claudeBashTitle {
		return screendialog.Dialog{}, false
	}
	for _, l := range ls[top+1 : open] {
		if screendialog.IsRule(l, '╌') {
			return screendialog.Dialog{}, false
		}
	}
	d := screendialog.Dialog{Kind: screendialog.Approval, Tool: "Bash", Command: cmd, Options: screendialog.NormAll(options)}
	if screendialog.IndexOf(d.Options, isClaudeYes) != 0 || screendialog.IndexOf(d.Options, isClaudeNo) < 0 {
		return screendialog.Dialog{}, false
	}
	return d, true
}

func isClaudeYes(o string) bool { return o == "Yes" }

func isClaudeNo(o string) bool { return o == "No" || strings.HasPrefix(o, "No,") }

func isClaudeAlways(o string) bool {
	return strings.HasPrefix(o, "Yes, and always allow") || strings.HasPrefix(o, "Yes, and don't ask again")
}

func claudeApprovalKeys(d screendialog.Dialog, verb string) ([]string, bool) {
	var match func(string) bool
	switch verb {
	case screendialog.VerbAllow:
		match = isClaudeYes
	case screendialog.VerbAlways:
		match = isClaudeAlways
	case screendialog.VerbDeny:
		match = isClaudeNo
	default:
		return nil, false
	}
	k, ok := screendialog.Digit(screendialog.IndexOf(d.Options, match))
	if !ok {
		return nil, false
	}
	return []string{k}, true
}

// The question picker (AskUserQuestion), claude-question.txt:
//
//	──────────────────────────────
//	 ☐ Color
//
//	Which color do you prefer?
//
//	❯ 1. Red
//	     warm
//	  2. Blue
//	     cool
//	  3. Type something.
//	──────────────────────────────
//	  4. Chat about this
//
//	Enter to select · ↑/↓ to navigate · Esc to cancel
//
// A digit answers at once (verified: 2 answered "Blue"). Only a single
// question is recognised: with several, a digit moves on to the next tab
// and a Submit page follows (not recorded). Multi-select pickers (a
// checkbox per option) are not recognised either.
func claudeQuestion(ls []string) (screendialog.Dialog, bool) {
	end := len(ls) - 1
	if end < 0 || screendialog.Norm(ls[end]) != claudeQuestionFt {
		return screendialog.Dialog{}, false
	}
	tab := screendialog.LastIndex(ls, end, func(l string) bool {
		t := strings.TrimSpace(l)
		return strings.HasPrefix(t, "☐ ") || strings.HasPrefix(t, "✔ ") || strings.HasPrefix(t, "☒ ")
	})
	if tab < 1 || !screendialog.IsRule(ls[tab-1], '─') {
		return screendialog.Dialog{}, false
	}
	// One tab only: no second box, no Submit tab.
	header := strings.TrimSpace(ls[tab])
	if strings.ContainsAny(header[len("☐ "):], "☐✔☒") || strings.Contains(header, "Submit") {
		return screendialog.Dialog{}, false
	}
	first := -1
	for i := tab + 1; i < end; i++ {
		if _, ok := screendialog.ParseNumbered(ls[i]); ok {
			first = i
			break
		}
	}
	if first < 0 {
		return screendialog.Dialog{}, false
	}
	question := screendialog.JoinTrimmed(ls[tab+1 : first])
	options, ok := screendialog.ParseOptions(ls[first:end], false, func(l string) bool { return screendialog.IsRule(l, '─') })
	if !ok {
		return screendialog.Dialog{}, false
	}
	for _, o := range options {
		if strings.HasPrefix(o, "[") { // a multi-select checkbox
			return screendialog.Dialog{}, false
		}
	}
	return screendialog.Dialog{Kind: screendialog.Question, Question: question, Options: screendialog.NormAll(options)}, true
}
