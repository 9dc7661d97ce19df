package cursor

import (
	"regexp"
	"strings"

	"paddock/internal/history"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt: a pasted log must
	// not make every list entry sent to a phone huge.
	maxPromptRunes = 2000
	// defaultChatName is the name Cursor gives a chat until it has a title
	// (meta.json "title", store.db meta "name"); it is no title.
	defaultChatName = "New Agent"
)

// clean repairs invalid UTF-8 (history written by a crashed process, a
// binary paste) and trims the text.
func clean(s string) string {
	return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
}

var (
	// userQuery is what the person typed: Cursor wraps it in <user_query>
	// beside the context it adds to the same user message.
	userQuery = regexp.MustCompile(`(?s)<user_query>(.*?)</user_query>`)
	// contextBlock matches one block of the context Cursor puts into a
	// user message (third-party readers list these tags).
	// Go's regexp has no back-references, so the closing tag is checked in
	// stripContext.
	contextBlock = regexp.MustCompile(`(?s)<([a-z][a-z0-9_-]*)(?:\s[^>]*)?>.*?</([a-z][a-z0-9_-]*)>`)
)

// contextTags are the tags of the context blocks Cursor injects into a user
// turn: never what the person typed.
var contextTags = map[string]bool{
	"user_info": true, "workspace": true, "timestamp": true, "context": true,
	"project_layout": true, "rules": true, "user_rules": true,
	"always_applied_workspace_rules": true, "agent_requestable_workspace_rules": true,
	"cursor_rules_context": true, "agent_skills": true, "available_skills": true,
	"open_and_recently_viewed_files": true, "attached_files": true, "git_status": true,
	"system_reminder": true, "system-reminder": true, "system_notification": true,
	"instructions_update": true, "mcp_instructions": true, "mcp_file_system": true,
	"mcp_file_system_servers": true, "agent_transcripts": true,
	"task_notification": true, "agent_notification": true, "additional_data": true,
}

// typedText returns what a person typed in a Cursor user turn: the text of
// its <user_query> blocks when it has any, else the text left once the
// known context blocks are removed. A turn that is only context (or starts
// with markup nobody types) is no human input and gives "".
func typedText(s string) string {
	s = clean(s)
	if s == "" {
		return ""
	}
	if qs := userQuery.FindAllStringSubmatch(s, -1); len(qs) > 0 {
		parts := make([]string, 0, len(qs))
		for _, q := range qs {
			if t := strings.TrimSpace(q[1]); t != "" {
				parts = append(parts, t)
			}
		}
		return strings.Join(parts, "\n")
	}
	rest := strings.TrimSpace(stripContext(s))
	if strings.HasPrefix(rest, "<") {
		return ""
	}
	return rest
}

// stripContext removes the known context blocks from s.
func stripContext(s string) string {
	return contextBlock.ReplaceAllStringFunc(s, func(block string) string {
		m := contextBlock.FindStringSubmatch(block)
		if m[1] == m[2] && contextTags[m[1]] {
			return ""
		}
		return block
	})
}

// validID reports whether id can name a chat: chat ids come from URLs and
// command lines, so nothing that could reach outside chats/<ws>/ —
// separators, dots, glob characters — is accepted before a path is built.
func validID(id string) bool { return history.SafeName(id, 128) }

// absPath reports whether p is an absolute path on Unix or Windows (a
// chat recorded on another machine may carry "C:\\src\\app").
func absPath(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}
