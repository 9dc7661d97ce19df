package screendialog

import (
	"regexp"
	"strconv"
	"strings"
)

// What the agents' parsers and Keys share: the ways their recorded
// dialogs draw lines, rules and numbered options, and pick them.

// Norm collapses every run of white space to one space and trims the ends.
func Norm(s string) string { return strings.Join(strings.Fields(s), " ") }

// NormAll normalises every string of ss.
func NormAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Norm(s)
	}
	return out
}

// JoinTrimmed joins the trimmed lines with single spaces, normalised.
func JoinTrimmed(ls []string) string { return Norm(strings.Join(ls, " ")) }

// IsRule reports whether l (trimmed) is a horizontal rule drawn with r,
// at least 10 wide.
func IsRule(l string, r rune) bool {
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

// Indent is the number of leading spaces of l.
func Indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// LastIndex is the index of the last line in ls[:end] for which match
// holds, or -1.
func LastIndex(ls []string, end int, match func(string) bool) int {
	for i := min(end, len(ls)) - 1; i >= 0; i-- {
		if match(ls[i]) {
			return i
		}
	}
	return -1
}

// PrevNonBlank is the index of the last non-blank line before i, or -1.
func PrevNonBlank(ls []string, i int) int {
	for i--; i >= 0; i-- {
		if strings.TrimSpace(ls[i]) != "" {
			return i
		}
	}
	return -1
}

// TrimmedIs matches a line whose trimmed text is s.
func TrimmedIs(s string) func(string) bool {
	return func(l string) bool { return strings.TrimSpace(l) == s }
}

// numbered is one option line: an optional selection marker, "N. ",
// and the label. The recorded pickers mark the selected line with ❯, ›
// or ▶.
var numbered = regexp.MustCompile(`^( *)(?:[❯›▶] +)?([1-9])\. +(\S.*)$`)

// NumberedOption is a parsed option line: its number, its label, and the
// column where the label starts (continuation lines are indented at least
// that far).
type NumberedOption struct {
	N     int
	Label string
	Col   int
}

// ParseNumbered reads l as an option line: optionally a selection marker
// (❯, › or ▶), then "N. " with N from 1 to 9, then the label.
func ParseNumbered(l string) (NumberedOption, bool) {
	m := numbered.FindStringSubmatchIndex(l)
	if m == nil {
		return NumberedOption{}, false
	}
	n, _ := strconv.Atoi(l[m[4]:m[5]])
	return NumberedOption{N: n, Label: l[m[6]:m[7]], Col: len([]rune(l[:m[6]]))}, true
}

// ParseOptions reads numbered options from ls. Each may be followed by
// continuation lines indented at least as far as its label: join says
// whether they belong to the label (wrapped by the TUI) or are a
// description (dropped). Blank lines, and lines for which skip holds, are
// passed over. ok is false on any other line, and unless the options are
// numbered 1, 2, 3… in order. Labels are returned trimmed, not normalised.
func ParseOptions(ls []string, join bool, skip func(string) bool) ([]string, bool) {
	var labels []string
	var cur NumberedOption
	for _, l := range ls {
		if o, ok := ParseNumbered(l); ok {
			if o.N != len(labels)+1 {
				return nil, false
			}
			labels = append(labels, strings.TrimSpace(o.Label))
			cur = o
			continue
		}
		switch {
		case strings.TrimSpace(l) == "":
		case skip != nil && skip(l):
		case len(labels) > 0 && Indent(l) >= cur.Col:
			if join {
				labels[len(labels)-1] += " " + strings.TrimSpace(l)
			}
		default:
			return nil, false
		}
	}
	return labels, len(labels) > 0
}

// IndexOf is the index of the first option for which match holds, or -1.
// match is given the option normalised.
func IndexOf(options []string, match func(string) bool) int {
	for i, o := range options {
		if match(Norm(o)) {
			return i
		}
	}
	return -1
}

// Digit is the key that picks the index-th (0-based) numbered option.
func Digit(index int) (string, bool) {
	if index < 0 || index > 8 {
		return "", false
	}
	return strconv.Itoa(index + 1), true
}

// QuestionKeys answer a question picker that takes the digits 1–9 as
// "choose this option" (every recorded one does): the chosen option's
// digit, followed by then (the keys of whatever page the choice opens);
// deny dismisses the picker with Escape.
func QuestionKeys(d Dialog, verb string, choice int, then ...string) ([]string, bool) {
	switch verb {
	case VerbDeny:
		return []string{"Escape"}, true
	case VerbAnswer:
		if choice < 0 || choice >= len(d.Options) {
			return nil, false
		}
		k, ok := Digit(choice)
		if !ok {
			return nil, false
		}
		return append([]string{k}, then...), true
	}
	return nil, false
}
