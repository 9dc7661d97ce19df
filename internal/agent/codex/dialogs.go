package codex

import (
	"regexp"
	"strings"

	"paddock/internal/screendialog"
)

// dialogs are the dialogs recorded from Codex 0.169.0 (some of the
// screens are in internal/screendialog/testdata/codex-0.169.0): its
// command approval and its one-question request_user_input.
func dialogs() screendialog.Reader {
	return screendialog.Reader{
		Parsers:  []screendialog.Parser{codexApproval, codexQuestion},
		Keys:     dialogKeys,
		FreeText: []string{"None of the above"}, // asks for notes
	}
}

// dialogKeys: see each dialog. Escape declines a question, as it refuses
// an approval: Codex's "esc to interrupt" ends the turn.
func dialogKeys(d screendialog.Dialog, verb string, choice int) ([]string, bool) {
	switch d.Kind {
	case screendialog.Approval:
		return codexApprovalKeys(d, verb)
	case screendialog.Question:
		return screendialog.QuestionKeys(d, verb, choice)
	}
	return nil, false
}

// The command approval, as recorded:
//
//	  Would you like to run the following command?
//	  Environment: local
//	  Reason: Mock wants to append to mock_out.txt
//	  $ echo hello-from-mock-3 >> mock_out.txt && cat mock_out.txt
//	› 1. Yes, proceed (y)
//	  2. Yes, and don't ask again for commands that start with `echo …` (p)
//	  3. No, and tell Codex what to do differently (esc)
//	  Press enter to confirm or esc to cancel
//
// Keys, each verified on the real CLI: y approves once, Esc refuses and
// interrupts the turn, 2 picks "don't ask again" at once
// (codex-after-digit2.txt; its own key p is not in paddock's key list).
// Only the command dialog is recognised: patch and network approvals were
// not recorded.
const (
	codexRunAsk  = "Would you like to run the following command?"
	codexFooter  = "Press enter to confirm or esc to cancel"
	codexAskFoot = "enter to submit answer"
)

func codexApproval(ls []string) (screendialog.Dialog, bool) {
	end := len(ls) - 1
	if end < 0 || strings.TrimSpace(ls[end]) != codexFooter {
		return screendialog.Dialog{}, false
	}
	ask := screendialog.LastIndex(ls, end, screendialog.TrimmedIs(codexRunAsk))
	if ask < 0 {
		return screendialog.Dialog{}, false
	}
	// "$ command" (possibly wrapped onto indented lines) comes after the
	// environment and reason lines and right before option 1.
	dollar, first := -1, -1
	for i := ask + 1; i < end; i++ {
		if o, ok := screendialog.ParseNumbered(ls[i]); ok && o.N == 1 {
			first = i
			break
		}
		if dollar < 0 && strings.HasPrefix(strings.TrimSpace(ls[i]), "$ ") {
			dollar = i
		}
	}
	if dollar < 0 || first < 0 {
		return screendialog.Dialog{}, false
	}
	cmd := screendialog.JoinTrimmed(ls[dollar:first])
	cmd = screendialog.Norm(strings.TrimPrefix(cmd, "$"))
	options, ok := screendialog.ParseOptions(ls[first:end], true, nil)
	if !ok {
		return screendialog.Dialog{}, false
	}
	d := screendialog.Dialog{Kind: screendialog.Approval, Command: cmd, Options: screendialog.NormAll(options)}
	if screendialog.IndexOf(d.Options, codexShortcut("y")) != 0 || screendialog.IndexOf(d.Options, codexShortcut("esc")) < 0 {
		return screendialog.Dialog{}, false
	}
	return d, true
}

// codexShortcut matches an option offering key k: "Yes, proceed (y)".
func codexShortcut(k string) func(string) bool {
	return func(o string) bool { return strings.HasSuffix(o, "("+k+")") }
}

func codexApprovalKeys(d screendialog.Dialog, verb string) ([]string, bool) {
	switch verb {
	case screendialog.VerbAllow:
		if i := screendialog.IndexOf(d.Options, codexShortcut("y")); i == 0 && strings.HasPrefix(screendialog.Norm(d.Options[i]), "Yes") {
			return []string{"y"}, true
		}
	case screendialog.VerbDeny:
		if screendialog.IndexOf(d.Options, codexShortcut("esc")) >= 0 {
			return []string{"Escape"}, true
		}
	case screendialog.VerbAlways:
		i := screendialog.IndexOf(d.Options, codexShortcut("p"))
		if i < 0 || !strings.HasPrefix(screendialog.Norm(d.Options[i]), "Yes, and don't ask again") {
			return nil, false
		}
		if k, ok := screendialog.Digit(i); ok {
			return []string{k}, true
		}
	}
	return nil, false
}

// The request_user_input question (Plan mode), codex-question.txt:
//
//	Question 1/1 (1 unanswered)
//	Which color do you prefer?
//	› 1. Red                warm
//	  2. Blue               cool
//	  3. None of the above  Optionally, add details in notes (tab)
//	tab to add notes | enter to submit answer | esc to interrupt
//
// A digit answers at once (verified: 2 answered "Blue",
// codex-question-after-digit2.txt). Only "Question 1/1" is recognised.
var codexQuestionHead = regexp.MustCompile(`^Question 1/1\b`)

func codexQuestion(ls []string) (screendialog.Dialog, bool) {
	end := len(ls) - 1
	if end < 0 || !strings.Contains(ls[end], codexAskFoot) {
		return screendialog.Dialog{}, false
	}
	head := screendialog.LastIndex(ls, end, func(l string) bool { return codexQuestionHead.MatchString(strings.TrimSpace(l)) })
	if head < 0 {
		return screendialog.Dialog{}, false
	}
	first := -1
	for i := head + 1; i < end; i++ {
		if _, ok := screendialog.ParseNumbered(ls[i]); ok {
			first = i
			break
		}
	}
	if first < 0 {
		return screendialog.Dialog{}, false
	}
	question := screendialog.JoinTrimmed(ls[head+1 : first])
	options, ok := screendialog.ParseOptions(ls[first:end], false, nil)
	if !ok {
		return screendialog.Dialog{}, false
	}
	// Label and description share the line, two or more spaces apart.
	for i, o := range options {
		label, _, _ := strings.Cut(o, "  ")
		options[i] = label
	}
	return screendialog.Dialog{Kind: screendialog.Question, Question: question, Options: screendialog.NormAll(options)}, true
}
