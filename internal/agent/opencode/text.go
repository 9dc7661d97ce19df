package opencode

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt: a pasted log must
	// not make every list entry (and every list sent to a phone) huge.
	maxPromptRunes = 2000
)

// defaultTitle is OpenCode's placeholder title until one is generated
// (the same pattern OpenCode 1.18.33 tests with): such a session is titled
// by its first prompt instead.
var defaultTitle = regexp.MustCompile(`^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

func isDefaultTitle(t string) bool {
	return defaultTitle.MatchString(t) || t == "Untitled"
}

// clean repairs invalid UTF-8 (a database may hold anything) and drops NULs.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "")
}

// parseTime reads a time column. OpenCode stores Unix milliseconds;
// older or foreign databases hold seconds, or ISO 8601 text.
func parseTime(v any) time.Time {
	switch v := v.(type) {
	case int64:
		return fromUnix(float64(v))
	case float64:
		return fromUnix(v)
	case []byte:
		return parseTime(string(v))
	case string:
		v = strings.TrimSpace(v)
		if f, err := strconv.ParseFloat(v, 64); err == nil {
			return fromUnix(f)
		}
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t
		}
	}
	return time.Time{}
}

// fromUnix takes n as milliseconds, or as seconds when it is too small to
// be milliseconds after 1973. A value no clock wrote (NaN, 1e400 read as
// infinity, past the year 9999, which JSON cannot hold) is no time.
func fromUnix(n float64) time.Time {
	const maxMs = 253402300799999 // 9999-12-31T23:59:59.999Z
	switch {
	case math.IsNaN(n) || n <= 0 || n > maxMs:
		return time.Time{}
	case n < 1e11:
		return time.UnixMilli(int64(n * 1000))
	default:
		return time.UnixMilli(int64(n))
	}
}
