package codex

import "paddock/internal/history"

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
// (shown as "Codex new session" while its process lives).
const newSessionTitle = "New Codex session"

// validID reports whether id can name a session (history.Valid). Ids
// arrive in URLs and are put into file patterns, so nothing that could
// reach another directory or act as a glob character gets through.
func validID(id string) bool { return history.SafeName(id, maxIDLen) }
