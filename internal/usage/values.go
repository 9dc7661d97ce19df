package usage

import (
	"math"
	"time"

	"paddock/internal/history/jsonpeek"
)

// The agents' readers take their values through these, so that every
// agent reads a count, a cost and a time alike: what is not a number
// counts nothing, and what is out of range stays out of range (the store
// refuses it) rather than being clipped into a plausible figure.

// Count reads a JSON number of tokens; 0 for anything else (absent,
// null, a string).
func Count(raw []byte) int64 {
	f, ok := jsonpeek.Number(raw)
	if !ok || f != f {
		return 0
	}
	if f > MaxTokens*10 || f < -MaxTokens*10 {
		return int64(math.Copysign(MaxTokens*10, f))
	}
	return int64(math.Round(f))
}

// Dollars reads a JSON number of US dollars and whether it is one.
func Dollars(raw []byte) (float64, bool) {
	f, ok := jsonpeek.Number(raw)
	if !ok || f != f || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// Text reads a JSON string; "" for anything else.
func Text(raw []byte) string {
	s, _ := jsonpeek.String(raw)
	return s
}

// When reads a time written as an RFC 3339 string or as Unix
// milliseconds (seconds when the number is too small to be
// milliseconds); zero for anything else.
func When(raw []byte) time.Time {
	if s, ok := jsonpeek.String(raw); ok {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}
		}
		return t
	}
	f, ok := jsonpeek.Number(raw)
	if !ok || f <= 0 || f > 1e15 {
		return time.Time{}
	}
	if f < 1e11 { // seconds: 1e11 s is the year 5138
		return time.UnixMilli(int64(f * 1000))
	}
	return time.UnixMilli(int64(f))
}
