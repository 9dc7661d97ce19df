// Package screendialog reads an agent's approval or question dialog from a
// captured tmux screen (capture-pane -p -J: plain text, no colours) and
// says which keys answer it. It is paddock's fallback for hosted sessions
// with no hook channel: the caller captures the pane, checks with Matches
// that it still shows the dialog its pending item describes, and only then
// sends Keys.
//
// It recognises only the dialogs recorded from the pinned CLIs (Claude Code
// 2.1.328, Codex 0.169.0, OpenCode 1.18.33, Kimi Code 2.1.0; the screens
// are in testdata/ and ../shared/fixtures/real) and checks each one's whole
// layout, from its title to its footer at the bottom of the screen. Anything
// else — another dialog, a half-drawn one, a review page, a dialog left on
// the screen of a CLI that has exited — is "no dialog": pressing keys into
// the wrong prompt costs far more than a dialog left for the desk.
//
// It is pure: it never captures, never sends keys, and keeps no state.
package screendialog

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// Kind says what a dialog asks for.
type Kind string

const (
	Approval Kind = "approval"
	Question Kind = "question"
)

// Dialog is what an agent's screen asks.
type Dialog struct {
	Runtime  string // "claude", "codex", "opencode", "kimi"
	Kind     Kind
	Tool     string   // e.g. "Bash" when the screen says so; "" when unknown
	Command  string   // the command or path the dialog shows, whitespace-normalised; "" when none
	Question string   // Kind Question: the question text
	Options  []string // the choices as the screen lists them, in order (approval: "Yes", "Yes, and always …", "No …"; question: the option labels)
	// Fingerprint identifies this dialog instance for Matches: the normalised command/question plus options.
	Fingerprint string
}

// Runtimes whose dialogs Detect knows.
const (
	Claude   = "claude"
	Codex    = "codex"
	OpenCode = "opencode"
	Kimi     = "kimi"
)

// Verbs Keys understands.
const (
	VerbAllow  = "allow"
	VerbDeny   = "deny"
	VerbAlways = "always"
	VerbAnswer = "answer"
)

// Detect reads screen for runtime's dialog; ok is false when the screen shows none (or a runtime it does not know).
func Detect(runtime, screen string) (Dialog, bool) {
	var parsers []func([]string) (Dialog, bool)
	switch runtime {
	case Claude:
		parsers = []func([]string) (Dialog, bool){claudeApproval, claudeQuestion}
	case Codex:
		parsers = []func([]string) (Dialog, bool){codexApproval, codexQuestion}
	case OpenCode:
		parsers = []func([]string) (Dialog, bool){openCodeApproval, openCodeQuestion}
	case Kimi:
		parsers = []func([]string) (Dialog, bool){kimiApproval, kimiQuestion}
	default:
		return Dialog{}, false
	}
	ls := screenLines(screen)
	for _, parse := range parsers {
		if d, ok := parse(ls); ok {
			d.Runtime = runtime
			if !plausible(d) {
				return Dialog{}, false
			}
			d.Fingerprint = fingerprint(d)
			return d, true
		}
	}
	return Dialog{}, false
}

// Keys are the tmux key names (as `tmux send-keys` takes them, e.g. "Enter", "Escape", "Down", "1") that answer d with verb:
// "allow" (once), "deny", "always" (where the dialog offers it), or for a question "answer" with the chosen option's index (0-based) in choice.
// ok is false when the dialog cannot be answered that way (no such option).
//
// "deny" on a question dismisses it with Escape (Claude: "Esc to cancel",
// OpenCode: "esc dismiss", Kimi: "esc cancel"; Codex: "esc to interrupt"
// ends the turn). Free-text options ("Type something.", "Chat about this",
// "Type your own answer", "None of the above", "Other") cannot be chosen:
// they open an editor the keys would type into.
func Keys(d Dialog, verb string, choice int) (keys []string, ok bool) {
	if !plausible(d) {
		return nil, false
	}
	switch d.Runtime + "/" + string(d.Kind) {
	case Claude + "/" + string(Approval):
		keys, ok = claudeApprovalKeys(d, verb)
	case Codex + "/" + string(Approval):
		keys, ok = codexApprovalKeys(d, verb)
	case OpenCode + "/" + string(Approval):
		keys, ok = openCodeApprovalKeys(d, verb)
	case Kimi + "/" + string(Approval):
		keys, ok = kimiApprovalKeys(d, verb)
	case Claude + "/" + string(Question), Codex + "/" + string(Question), OpenCode + "/" + string(Question):
		keys, ok = questionKeys(d, verb, choice, nil)
	case Kimi + "/" + string(Question):
		// Choosing opens a review page whose [1] is Submit.
		keys, ok = questionKeys(d, verb, choice, []string{"1"})
	}
	if !ok || len(keys) == 0 {
		return nil, false
	}
	for _, k := range keys {
		if !allowedKey(k) {
			return nil, false
		}
	}
	return keys, true
}

// Matches reports whether screen still shows the very dialog d (same runtime, kind, command/question and options): the check made right before sending keys.
func Matches(d Dialog, screen string) bool {
	if !plausible(d) {
		return false
	}
	want := fingerprint(d)
	if d.Fingerprint != "" && d.Fingerprint != want {
		return false
	}
	got, ok := Detect(d.Runtime, screen)
	return ok && got.Fingerprint == want
}

// fingerprint is the normalised identity of d: runtime, kind, tool,
// command or question, and the options in order. Parts are joined by a
// newline, which no normalised part contains.
func fingerprint(d Dialog) string {
	parts := []string{d.Runtime, string(d.Kind), norm(d.Tool), norm(d.Command), norm(d.Question)}
	for _, o := range d.Options {
		parts = append(parts, norm(o))
	}
	return strings.Join(parts, "\n")
}

// plausible rejects a Dialog no parser could have produced: an approval
// without a command, a question without its text, fewer than two options
// or more than nine (digits answer them).
func plausible(d Dialog) bool {
	switch d.Runtime {
	case Claude, Codex, OpenCode, Kimi:
	default:
		return false
	}
	if len(d.Options) < 2 || len(d.Options) > 9 {
		return false
	}
	for _, o := range d.Options {
		if norm(o) == "" {
			return false
		}
	}
	switch d.Kind {
	case Approval:
		return norm(d.Command) != ""
	case Question:
		return norm(d.Question) != ""
	}
	return false
}

// allowedKey is the set of key names paddock's tmux layer accepts that
// this package may return.
func allowedKey(k string) bool {
	switch k {
	case "Enter", "Escape", "Tab", "Up", "Down", "Left", "Right",
		"1", "2", "3", "4", "5", "6", "7", "8", "9", "y", "n":
		return true
	}
	return false
}

// digit is the key that picks the index-th (0-based) numbered option.
func digit(index int) (string, bool) {
	if index < 0 || index > 8 {
		return "", false
	}
	return strconv.Itoa(index + 1), true
}

// freeText are the recorded option labels that open an editor (or a chat)
// instead of answering.
var freeText = map[string]bool{
	"Type something.":      true, // Claude
	"Chat about this":      true, // Claude
	"Type your own answer": true, // OpenCode
	"None of the above":    true, // Codex (asks for notes)
	"Other":                true, // Kimi
}

// questionKeys answers a question with the chosen option's digit (every
// recorded question picker takes 1–9 as "choose this one"), followed by
// the keys in then; deny dismisses it with Escape.
func questionKeys(d Dialog, verb string, choice int, then []string) ([]string, bool) {
	switch verb {
	case VerbDeny:
		return []string{"Escape"}, true
	case VerbAnswer:
		if choice < 0 || choice >= len(d.Options) || freeText[norm(d.Options[choice])] {
			return nil, false
		}
		k, ok := digit(choice)
		if !ok {
			return nil, false
		}
		return append([]string{k}, then...), true
	}
	return nil, false
}

// indexOf is the index of the first option for which match holds, or -1.
func indexOf(options []string, match func(string) bool) int {
	for i, o := range options {
		if match(norm(o)) {
			return i
		}
	}
	return -1
}

// screenLines splits a captured screen into lines with trailing blanks
// (and any carriage return) trimmed, and the trailing empty lines dropped.
func screenLines(screen string) []string {
	ls := strings.Split(screen, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	end := len(ls)
	for end > 0 && ls[end-1] == "" {
		end--
	}
	return ls[:end]
}

// norm collapses every run of white space to one space and trims the ends.
func norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// isRule reports whether l (trimmed) is a horizontal rule drawn with r,
// at least 10 wide.
func isRule(l string, r rune) bool {
	l = strings.TrimSpace(l)
	if len([]rune(l)) < 10 {
		return false
	}
	for _, c := range l {
		if c != r {
			return false
		}
	}
	return true
}

// indent is the number of leading spaces of l.
func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// numbered is one option line: an optional selection marker, "N. ",
// and the label. Claude marks the selected line with ❯, Codex with ›,
// Kimi with ▶.
var numbered = regexp.MustCompile(`^( *)(?:[❯›▶] +)?([1-9])\. +(\S.*)$`)

// option is a parsed option line: its number, its label, and the column
// where the label starts (continuation lines are indented at least that
// far).
type option struct {
	n     int
	label string
	col   int
}

func parseNumbered(l string) (option, bool) {
	m := numbered.FindStringSubmatchIndex(l)
	if m == nil {
		return option{}, false
	}
	n, _ := strconv.Atoi(l[m[4]:m[5]])
	return option{n: n, label: l[m[6]:m[7]], col: len([]rune(l[:m[6]]))}, true
}

// parseOptions reads numbered options from ls. Each may be followed by
// continuation lines indented at least as far as its label: join says
// whether they belong to the label (wrapped by the TUI) or are a
// description (dropped). Blank lines, and lines for which skip holds, are
// passed over. ok is false on any other line, and unless the options are
// numbered 1, 2, 3… in order. Labels are returned trimmed, not normalised.
func parseOptions(ls []string, join bool, skip func(string) bool) ([]string, bool) {
	var labels []string
	var cur option
	for _, l := range ls {
		if o, ok := parseNumbered(l); ok {
			if o.n != len(labels)+1 {
				return nil, false
			}
			labels = append(labels, strings.TrimSpace(o.label))
			cur = o
			continue
		}
		switch {
		case strings.TrimSpace(l) == "":
		case skip != nil && skip(l):
		case len(labels) > 0 && indent(l) >= cur.col:
			if join {
				labels[len(labels)-1] += " " + strings.TrimSpace(l)
			}
		default:
			return nil, false
		}
	}
	return labels, len(labels) > 0
}

// lastIndex is the index of the last line in ls[:end] for which match
// holds, or -1.
func lastIndex(ls []string, end int, match func(string) bool) int {
	for i := min(end, len(ls)) - 1; i >= 0; i-- {
		if match(ls[i]) {
			return i
		}
	}
	return -1
}

// prevNonBlank is the index of the last non-blank line before i, or -1.
func prevNonBlank(ls []string, i int) int {
	for i--; i >= 0; i-- {
		if strings.TrimSpace(ls[i]) != "" {
			return i
		}
	}
	return -1
}

// trimmedIs matches a line whose trimmed text is s.
func trimmedIs(s string) func(string) bool {
	return func(l string) bool { return strings.TrimSpace(l) == s }
}

// joinTrimmed joins the trimmed lines with single spaces, normalised.
func joinTrimmed(ls []string) string { return norm(strings.Join(ls, " ")) }
