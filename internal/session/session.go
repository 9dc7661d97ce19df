// Package session holds the domain types every runtime scanner produces and
// every view consumes: a session's list entry (Info) and its conversation
// (Message). It has no I/O and imports nothing from HTTP, SQL or any agent.
package session

import (
	"cmp"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"
)

// ErrNotFound is returned when a runtime has no session with the given id.
var ErrNotFound = errors.New("session not found")

// ErrLive is returned when an operation (delete) needs the session's agent
// to have stopped.
var ErrLive = errors.New("session is live")

// Key identifies a session across runtimes: "runtime:nativeID".
type Key struct {
	Runtime string
	ID      string
}

func (k Key) String() string { return k.Runtime + ":" + k.ID }

// Compare orders keys by runtime, then id (for stable listings).
func (k Key) Compare(o Key) int {
	return cmp.Or(cmp.Compare(k.Runtime, o.Runtime), cmp.Compare(k.ID, o.ID))
}

// Where a session's effective time came from (see EffectiveTime).
const (
	TimeFromFile  = "file_mtime"
	TimeFromEvent = "event_time_stale_mtime"
)

// Where a session's title came from, best first.
const (
	TitleCustom  = "custom"
	TitleAI      = "ai"
	TitleSummary = "summary"
	TitlePrompt  = "prompt"
)

// Info is one session's list entry. Scanners fill it from the agent's own
// files (read-only) and process table; zero values mean "unknown".
type Info struct {
	Runtime     string
	ID          string
	Cwd         string
	Project     string // short form of Cwd for display (last path element, ~ for home)
	Title       string
	TitleSource string
	FirstPrompt string
	LastPrompt  string
	PromptCount int // real human prompts seen while listing (head and tail only)
	Created     time.Time
	Updated     time.Time // effective session time
	TimeSource  string
	Model       string
	Live        bool   // a local process of the agent holds this session now
	PID         int    // that process, when Live
	Tmux        string // "session:@window.%pane" where the agent reported it
	State       string // coarse state from the agent's own files: "idle", "busy", "waiting", or ""
	WaitingFor  string // what the agent waits for when State is "waiting"
	ParentKey   string // "runtime:id" of a parent session (subagents, teams)
	Path        string // the history file this entry was read from
	// Error says why part or all of the session's history could not be
	// read ("3 lines could not be read", "the file cannot be read:
	// permission denied"); "" when it was read whole. It is written for
	// the user: a few words, never the file's content or a Go error's
	// text (which names paths and internals).
	Error string
}

// SourceProblem is a part of an agent's history that could not be read
// or watched: a directory that cannot be listed, a database that cannot
// be copied or opened, a directory the file watcher cannot watch. The
// sessions in it may be missing from the list, or stale.
type SourceProblem struct {
	Runtime string // the agent; set by the catalog
	// Source is the directory or file at fault; "" for the agent's
	// history as a whole.
	Source string
	// Reason completes a sentence about Source ("cannot be read:
	// permission denied"), in the same safe words as Info.Error.
	Reason string
}

// Key returns the session's cross-runtime key.
func (i Info) Key() Key { return Key{Runtime: i.Runtime, ID: i.ID} }

// Roles a Message may have. Nothing else is ever shown as conversation.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message is one turn of a conversation: real human input or a readable
// assistant answer. Time may be zero when the history has none.
type Message struct {
	Role string
	Text string
	Time time.Time
}

// EffectiveTime: a file touched more than an hour
// after its last real event is dated by that event, not by its mtime.
func EffectiveTime(fileMtime, lastEvent time.Time) (time.Time, string) {
	if !lastEvent.IsZero() && fileMtime.Sub(lastEvent) > time.Hour {
		return lastEvent, TimeFromEvent
	}
	return fileMtime, TimeFromFile
}

// Change tells a subscriber which sessions to re-read. Full means "re-read
// everything": sent after the first scan, and in place of the changes a
// subscriber was too slow to take.
type Change struct {
	Updated []Key // added or changed
	Removed []Key
	Full    bool
}

// ShortProject is the display form of a working directory: "~" for the
// home directory itself, otherwise its last element. Both separators count,
// since transcripts copied from Windows carry "e:\\src\\app".
func ShortProject(cwd, home string) string {
	if cwd == "" {
		return ""
	}
	if home != "" && filepath.Clean(cwd) == filepath.Clean(home) {
		return "~"
	}
	trimmed := strings.TrimRight(cwd, `/\`)
	if trimmed == "" {
		return cwd[:1]
	}
	if i := strings.LastIndexAny(trimmed, `/\`); i >= 0 {
		return trimmed[i+1:]
	}
	return trimmed
}

// Event kinds: a session's full record, for export and hand-off (design:
// messages plus thinking, tool calls and results).
const (
	EventMessage    = "message"     // Role and Text, as Message
	EventThinking   = "thinking"    // the model's visible reasoning
	EventToolCall   = "tool_call"   // Tool, ToolID and Input
	EventToolResult = "tool_result" // ToolID, Text (the output, clipped) and IsError
	EventImage      = "image"       // MediaType, Data and Size: attached by Role, or returned by the tool call ToolID
)

// Event is one entry of a session's full record, oldest first. Only
// what the agent's own history holds: nothing is inferred.
type Event struct {
	Kind    string
	Role    string // EventMessage: RoleUser or RoleAssistant
	Text    string
	Tool    string // EventToolCall: the tool's name
	ToolID  string // pairs a call with its result, when the history gives one
	Input   string // EventToolCall: the input as JSON text
	IsError bool   // EventToolResult
	Time    time.Time
	// EventImage: the type the history declares, the decoded bytes (nil
	// when over MaxImageBytes) and their size.
	MediaType string
	Data      string
	Size      int
}

// ToolSubject is the one line that says what a tool call does, from its
// JSON input: the command (a string or an argv list), file, path, URL,
// pattern, query or description, whichever comes first; "" when the input
// is not a JSON object or has none of them.
func ToolSubject(input []byte) string {
	var m map[string]any
	if json.Unmarshal(input, &m) != nil {
		return ""
	}
	for _, k := range []string{"command", "cmd", "file_path", "filePath", "path", "url", "pattern", "query", "description"} {
		switch v := m[k].(type) {
		case string:
			if v != "" {
				return v
			}
		case []any:
			var parts []string
			for _, p := range v {
				if s, ok := p.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				return strings.Join(parts, " ")
			}
		}
	}
	return ""
}
