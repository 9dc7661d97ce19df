package claude

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"paddock/internal/history/jsonpeek"
)

// A Claude history line can be hundreds of kilobytes (system prompts, tool
// results, base64 images) while the facts paddock needs from it are a
// handful of small fields, so lines are walked, not decoded: the values
// not wanted are skipped without a copy, and those used are decoded below.

// maxDepth bounds how deep a value may nest below the line's object, so a
// hostile line cannot grow the walk without limit.
const maxDepth = 512

// lineJSON is how strictly a line is walked: its object fully, nested
// values only skimmed (brackets pair, strings close, maxDepth levels),
// and a literal may be any run of number characters. That is what
// Claude's reader has always accepted; checking more would count lines
// it always read as bad.
func lineJSON() jsonpeek.Skim {
	return jsonpeek.Skim{Nested: jsonpeek.NestedPaired, Scalars: jsonpeek.ScalarsDelimited, MaxDepth: maxDepth + 1}
}

// eachMember calls fn with the raw key (without quotes, escapes left as they
// are) and the raw value of every member of the object v. v may carry
// surrounding white space but nothing else. fn may run for leading members
// of an object that later turns out to be malformed; callers discard what
// they gathered when an error comes back.
func eachMember(v []byte, fn func(key, val []byte)) error {
	s := lineJSON()
	return s.Members(v, fn)
}

// eachElement calls fn with the raw value of every element of the array v.
func eachElement(v []byte, fn func(val []byte)) error {
	s := lineJSON()
	return s.Elements(v, fn)
}

// jsonString decodes a raw JSON string value. Anything else — null, a
// number, an object, a malformed string — yields ok == false, so a field of
// the wrong type reads as absent rather than as "null" or "None". Invalid
// UTF-8 is replaced, never passed on: a run of it by one U+FFFD.
func jsonString(raw []byte) (s string, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		if utf8.Valid(body) {
			return string(body), true
		}
		return strings.ToValidUTF8(string(body), "\uFFFD"), true
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, true
}

// jsonTrue reports whether raw is the literal true; every other value
// (false, null, "true", 1) counts as false.
func jsonTrue(raw []byte) bool {
	return string(raw) == "true"
}
