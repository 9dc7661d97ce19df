// Clipping shortens text for a session card on a phone: a title or a
// prompt preview must stay one line, and a pasted log must not make every
// list entry (and every list sent to a phone) huge.

package history

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ClipRunes cuts s to at most max runes, the last of them "…" when it cut;
// white space before the "…" is dropped. A max of 0 or less leaves s as
// it is.
func ClipRunes(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
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

// ClipLine folds every run of white space (newlines included) into one space,
// trims the ends, and cuts the result to max runes (Runes).
func ClipLine(s string, max int) string {
	return ClipRunes(strings.Join(strings.Fields(s), " "), max)
}

// MaxOutput bounds a tool result's text in a session's full record: a test
// log or a build's output can be megabytes, and the record is for reading.
const MaxOutput = 64 << 10

// ClipOutput cuts a tool's output to at most MaxOutput bytes, on a rune
// boundary, ending in "…" when it cut.
func ClipOutput(s string) string { return ClipBytes(s, MaxOutput) }

// ClipBytes cuts s to at most max bytes, on a rune boundary, ending in
// "…" when it cut.
func ClipBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ClipJSON is a ClipJSON value as compact text ("" when absent), with invalid
// UTF-8 replaced.
func ClipJSON(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		raw = b.Bytes()
	}
	return strings.ToValidUTF8(string(raw), "\uFFFD")
}
