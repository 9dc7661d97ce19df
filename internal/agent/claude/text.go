package claude

import (
	"strings"
	"unicode"

	"paddock/internal/history"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt: a pasted log must
	// not make every list entry (and every list sent to a phone) huge.
	maxPromptRunes = 2000
)

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
	return !strings.HasPrefix(id, "agent-") && history.SafeName(id, 128)
}
