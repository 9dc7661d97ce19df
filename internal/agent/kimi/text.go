package kimi

import (
	"encoding/json"
	"math"
	"time"

	"paddock/internal/history"
	"paddock/internal/history/jsonpeek"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt so a pasted log does
	// not make every list entry huge.
	maxPromptRunes = 2000
)

// validID reports whether id may name a session directory or file. Ids
// arrive from URLs: only letters, digits, '-' and '_' are accepted, so no
// id can climb out of the sessions tree or act as a glob.
func validID(id string) bool { return history.SafeName(id, 160) }

// The helpers below read one JSON value of an expected type. A value of any
// other type — null included — reads as absent, never as "null" or a zero
// that looks real (a key can exist and hold null).

func jsonStr(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	if w := word(raw); w != "" {
		return w
	}
	s, _ := jsonpeek.String(raw)
	return s
}

// words are the values readers compare on every record: roles, event and
// part types, origin kinds.
var words = [...]string{
	"user", "assistant", "tool", "system", "text", "think",
	"step.begin", "step.end", "content.part", "tool.call", "tool.result",
	"interrupted", "error", "skill_activation", "plugin_command", "user-slash",
}

// word returns the string raw holds when it is one of words, without
// copying it; else "".
func word(raw json.RawMessage) string {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return ""
	}
	body := raw[1 : len(raw)-1]
	for _, w := range words {
		if string(body) == w {
			return w
		}
	}
	return ""
}

// jsonStrIs reports whether jsonStr(raw) == s, without copying raw.
func jsonStrIs(raw json.RawMessage, s string) bool {
	if s == "" {
		return jsonStr(raw) == ""
	}
	return len(raw) > 0 && raw[0] == '"' && jsonpeek.Is(raw, s)
}

func jsonBool(raw json.RawMessage) bool {
	return string(raw) == "true"
}

func jsonNum(raw json.RawMessage) (float64, bool) {
	f, ok := jsonpeek.Number(raw)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// msTime converts epoch milliseconds; nonsense (≤ 0, past year 9999) is
// zero.
func msTime(ms float64) time.Time {
	if ms <= 0 || ms > 253402300799999 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms))
}

// jsonTime reads a timestamp that may be epoch milliseconds or an ISO 8601
// string (kimi-code's state.json holds either, older files the string).
func jsonTime(raw json.RawMessage) time.Time {
	if f, ok := jsonNum(raw); ok {
		return msTime(f)
	}
	if s := jsonStr(raw); s != "" {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// object splits a JSON object into its members (a repeated name keeps its
// last value); anything else is nil.
func object(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	m := map[string]json.RawMessage{}
	if !jsonpeek.Object(raw, func(k, v []byte) {
		name, _ := jsonpeek.String(k)
		m[name] = v
	}) {
		return nil
	}
	return m
}

// array splits a JSON array into its elements; anything else is nil.
func array(raw json.RawMessage) []json.RawMessage {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	a := []json.RawMessage{}
	if !jsonpeek.Array(raw, func(v []byte) { a = append(a, v) }) {
		return nil
	}
	return a
}
