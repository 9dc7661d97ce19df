package codex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt, so a pasted log
	// cannot make every list entry sent to a phone huge.
	maxPromptRunes = 2000
	// maxIDLen bounds a session id taken from a file name or a URL.
	maxIDLen = 128
)

// newSessionTitle names a live session that has no first message yet
// (seed 002 §2.1: shown as "Codex new session" while its process lives).
const newSessionTitle = "New Codex session"

// singleLine collapses every run of white space (newlines included) into
// one space and cuts the result to limit runes.
func singleLine(s string, limit int) string {
	return truncate(strings.Join(strings.Fields(s), " "), limit)
}

// truncate cuts s to at most limit runes, the last of them an ellipsis.
func truncate(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == limit-1 {
			cut = i
			break
		}
		n++
	}
	return strings.TrimRightFunc(s[:cut], unicode.IsSpace) + "…"
}

// validID reports whether id can name a session: 1 to maxIDLen ASCII
// letters, digits, '-' or '_'. Ids arrive in URLs and are put into file
// patterns, so nothing that could reach another directory or act as a
// glob character gets through.
func validID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
		default:
			return false
		}
	}
	return true
}
