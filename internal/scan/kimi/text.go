package kimi

import (
	"encoding/json"
	"math"
	"time"

	"paddock/internal/scan/safename"
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
func validID(id string) bool { return safename.Valid(id, 160) }

// The helpers below read one JSON value of an expected type. A value of any
// other type — null included — reads as absent, never as "null" or a zero
// that looks real (seed 002 §6: a key can exist and hold null).

func jsonStr(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func jsonBool(raw json.RawMessage) bool {
	return string(raw) == "true"
}

func jsonNum(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
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

// object splits a JSON object into its members; anything else is nil.
func object(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// array splits a JSON array into its elements; anything else is nil.
func array(raw json.RawMessage) []json.RawMessage {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var a []json.RawMessage
	if json.Unmarshal(raw, &a) != nil {
		return nil
	}
	return a
}
