package opencode

import (
	"regexp"
	"strings"

	"paddock/internal/screendialog"
)

// dialogs are the dialogs recorded from OpenCode 1.18.33 (some of the
// screens are in internal/screendialog/testdata/opencode-1.18.33): its
// shell permission and its question tool.
func dialogs() screendialog.Reader {
	return screendialog.Reader{
		Parsers:  []screendialog.Parser{openCodeApproval, openCodeQuestion},
		Keys:     dialogKeys,
		FreeText: []string{"Type your own answer"},
	}
}

// dialogKeys: see each dialog. A question is declined with Escape ("esc
// dismiss").
func dialogKeys(d screendialog.Dialog, verb string, choice int) ([]string, bool) {
	switch d.Kind {
	case screendialog.Approval:
		return openCodeApprovalKeys(d, verb)
	case screendialog.Question:
		return screendialog.QuestionKeys(d, verb, choice)
	}
	return nil, false
}

// OpenCode draws its dialogs inside the prompt's ┃ bar, with the sidebar
// (context, LSP, ~/proj:master, version) on the right of the same rows
// when the pane is wide. The shell permission, as recorded:
//
//	┃  △ Permission required
//	┃    # Shell command
//	┃
//	┃  $ echo hello-from-mock-2 >> mock_out.txt && cat mock_out.txt
//	┃
//	┃                                                          ~/proj:master
//	┃   Allow once   Allow always   Reject       ctrl+f fullscreen  ⇆ select  enter confirm
//	┃                                                          • OpenCode 1.18.33
//
// The selected button is shown by colour only. Its keys (from the TUI's
// own bindings): ←/→ (h/l) move and wrap around, Enter confirms the
// selected button, Esc rejects. The dialog opens on "Allow once", so
// allow is Enter: correct unless someone at the desk moved the selection,
// which plain text cannot show. Always is → Enter (the "Always allow …
// Confirm" page opens on Confirm) Enter, verified as one burst
// (opencode-after-always-*.txt). Only the shell dialog is recognised:
// edits, external directories and other permissions were not recorded.
const (
	ocPermTitle = "△ Permission required"
	ocShell     = "# Shell command"
	ocButtons   = "Allow once Allow always Reject"
	ocConfirm   = "enter confirm"
	ocAskFooter = "↑↓ select enter submit esc dismiss"
)

// ocBar is a row of the prompt bar: up to four columns of margin, ┃, and
// the row's content.
var ocBar = regexp.MustCompile(`^ {0,4}┃(.*)$`)

// ocSidebar is where the sidebar starts on a row: a wide gap after the
// dialog's text. Dialog text never holds five spaces in a row here (a
// command that did would be cut short, and so mismatch its pending item).
var ocSidebar = regexp.MustCompile(`\S( {5,})\S`)

// ocRow is one screen row split for OpenCode: whether it is in the bar,
// and its content with the sidebar cut off.
type ocRow struct {
	bar     bool
	content string
	raw     string
}

func openCodeRows(ls []string) []ocRow {
	rows := make([]ocRow, len(ls))
	for i, l := range ls {
		rows[i].raw = l
		m := ocBar.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		c := m[1]
		// A row holding only sidebar text: a long run of spaces first.
		if screendialog.Indent(c) >= 20 {
			c = ""
		}
		if loc := ocSidebar.FindStringSubmatchIndex(c); loc != nil {
			c = c[:loc[2]]
		}
		rows[i] = ocRow{bar: true, content: strings.TrimRight(c, " "), raw: l}
	}
	return rows
}

func openCodeApproval(ls []string) (screendialog.Dialog, bool) {
	rows := openCodeRows(ls)
	btn := -1
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].bar && screendialog.Norm(rows[i].content) == ocButtons {
			btn = i
			break
		}
	}
	if btn < 0 {
		return screendialog.Dialog{}, false
	}
	// Below the buttons: the key hints (on the buttons' row when wide, on
	// a row of their own when narrow), else only empty bar rows.
	hint := strings.Contains(rows[btn].raw, ocConfirm)
	for _, r := range rows[btn+1:] {
		switch {
		case !r.bar:
			return screendialog.Dialog{}, false
		case strings.Contains(r.content, ocConfirm) && !hint:
			hint = true
		case strings.TrimSpace(r.content) != "":
			return screendialog.Dialog{}, false
		}
	}
	if !hint {
		return screendialog.Dialog{}, false
	}
	// Above, in the same bar: title, "# Shell command", the command
	// (possibly wrapped), then empty rows down to the buttons.
	title := -1
	for i := btn - 1; i >= 0 && rows[i].bar; i-- {
		if strings.TrimSpace(rows[i].content) == ocPermTitle {
			title = i
			break
		}
	}
	if title < 0 {
		return screendialog.Dialog{}, false
	}
	body := nonEmpty(rows[title+1 : btn])
	if len(body) < 2 || body[0] != ocShell || !strings.HasPrefix(body[1], "$ ") {
		return screendialog.Dialog{}, false
	}
	// The command runs from "$ " to the next empty row; nothing may follow.
	start := -1
	for i := title + 1; i < btn; i++ {
		if strings.HasPrefix(strings.TrimSpace(rows[i].content), "$ ") {
			start = i
			break
		}
	}
	var cmd []string
	i := start
	for ; i < btn && strings.TrimSpace(rows[i].content) != ""; i++ {
		cmd = append(cmd, rows[i].content)
	}
	for ; i < btn; i++ {
		if strings.TrimSpace(rows[i].content) != "" {
			return screendialog.Dialog{}, false
		}
	}
	command := screendialog.Norm(strings.TrimPrefix(screendialog.JoinTrimmed(cmd), "$"))
	return screendialog.Dialog{Kind: screendialog.Approval, Tool: "Shell", Command: command,
		Options: []string{"Allow once", "Allow always", "Reject"}}, true
}

// nonEmpty are the trimmed, non-empty contents of rows.
func nonEmpty(rows []ocRow) []string {
	var out []string
	for _, r := range rows {
		if t := strings.TrimSpace(r.content); t != "" {
			out = append(out, t)
		}
	}
	return out
}

func openCodeApprovalKeys(d screendialog.Dialog, verb string) ([]string, bool) {
	if strings.Join(screendialog.NormAll(d.Options), " ") != ocButtons {
		return nil, false
	}
	switch verb {
	case screendialog.VerbAllow:
		return []string{"Enter"}, true
	case screendialog.VerbAlways:
		return []string{"Right", "Enter", "Enter"}, true
	case screendialog.VerbDeny:
		return []string{"Escape"}, true
	}
	return nil, false
}

// The question tool, as recorded:
//
//	┃  Which color do you prefer?
//	┃
//	┃  1. Red
//	┃     warm
//	┃  2. Blue
//	┃     cool
//	┃  3. Type your own answer
//	┃                                                          ~/proj:master
//	┃  ↑↓ select  enter submit  esc dismiss
//
// Digits 1–n pick and submit (the TUI's bindings; verified: 2 answered
// "Blue", opencode-after-question-2.txt). Only a lone question with this
// footer is recognised.
func openCodeQuestion(ls []string) (screendialog.Dialog, bool) {
	rows := openCodeRows(ls)
	foot := -1
	for i := len(rows) - 1; i >= 0; i-- {
		if !rows[i].bar {
			return screendialog.Dialog{}, false
		}
		t := screendialog.Norm(rows[i].content)
		if t == ocAskFooter {
			foot = i
			break
		}
		if t != "" {
			return screendialog.Dialog{}, false
		}
	}
	if foot < 0 {
		return screendialog.Dialog{}, false
	}
	top := foot
	for top > 0 && rows[top-1].bar {
		top--
	}
	first := -1
	for i := top; i < foot; i++ {
		if _, ok := screendialog.ParseNumbered(rows[i].content); ok {
			first = i
			break
		}
	}
	if first < 0 {
		return screendialog.Dialog{}, false
	}
	// The question: one paragraph between the bar's top and option 1.
	var para []string
	gaps := 0
	for _, r := range rows[top:first] {
		if strings.TrimSpace(r.content) == "" {
			if len(para) > 0 {
				gaps++
			}
			continue
		}
		if gaps > 0 {
			return screendialog.Dialog{}, false
		}
		para = append(para, r.content)
	}
	contents := make([]string, 0, foot-first)
	for _, r := range rows[first:foot] {
		contents = append(contents, r.content)
	}
	options, ok := screendialog.ParseOptions(contents, false, nil)
	if !ok {
		return screendialog.Dialog{}, false
	}
	return screendialog.Dialog{Kind: screendialog.Question, Question: screendialog.JoinTrimmed(para), Options: screendialog.NormAll(options)}, true
}
