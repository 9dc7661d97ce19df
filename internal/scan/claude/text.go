package claude

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt: a pasted log must
	// not make every list entry (and every list sent to a phone) huge.
	maxPromptRunes = 2000
)

// oneLine collapses all white space (newlines included) into single spaces,
// trims, and caps the result at max runes with an ellipsis.
func oneLine(s string, max int) string {
	return capRunes(strings.Join(strings.Fields(s), " "), max)
}

// capRunes cuts s to at most max runes, marking the cut with "…".
func capRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRightFunc(s[:i], unicode.IsSpace) + "…"
		}
		n++
	}
	return s
}

// isKebab reports whether s looks like a generated slug ("fix-auth-bug")
// rather than a readable title. Claude 2.1+ writes such slugs as session
// display names and sometimes as AI titles.
func isKebab(s string) bool {
	if !strings.Contains(s, "-") || strings.HasPrefix(s, "-") || strings.HasSuffix(s, "-") || strings.Contains(s, "--") {
		return false
	}
	for _, c := range s {
		if c != '-' && !unicode.IsLower(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// validID reports whether id can name a session file. Ids come from URLs,
// so nothing that could reach outside projects/*/ — separators, dots,
// glob characters — is accepted before a path is built from it. Old-style
// "agent-*" files are subagent transcripts, never sessions.
func validID(id string) bool {
	return !strings.HasPrefix(id, "agent-") && safeName(id, 128)
}

// safeName: 1 to max letters, digits, '-' or '_' — nothing a path could
// be steered with.
func safeName(id string, max int) bool {
	if id == "" || len(id) > max {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
