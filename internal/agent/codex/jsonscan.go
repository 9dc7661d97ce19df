package codex

import (
	"strconv"

	"paddock/internal/history/jsonpeek"
)

// A rollout line is mostly text paddock never shows: Codex's instructions
// in session_meta, tool outputs, token counts, world state. Lines are
// walked, not decoded: the values not asked about are skipped at memchr
// speed, and only the few small values paddock uses are decoded.

// lineJSON is how strictly a rollout line is walked: leniently on purpose
// (nested brackets only counted, literals not checked, nothing after the
// object looked at), as Codex's reader always has; a line it can walk is
// good enough to read, one it cannot is a bad line.
func lineJSON() jsonpeek.Skim {
	return jsonpeek.Skim{Nested: jsonpeek.NestedCounted, Scalars: jsonpeek.ScalarsAny, Rest: true}
}

// members calls fn with the raw key (between its quotes, escapes left as
// they are) and the raw value of each member of the object in data, in
// order, until fn returns false.
func members(data []byte, fn func(key, val []byte) bool) error {
	s := lineJSON()
	return s.MembersUntil(data, fn)
}

// elements calls fn with each raw element of the array in data.
func elements(data []byte, fn func(val []byte)) error {
	s := lineJSON()
	return s.Elements(data, fn)
}

// str decodes a raw JSON string value; anything else (null, a number, an
// object) is "" (present but null). Invalid UTF-8 comes out
// repaired, as encoding/json repairs it.
func str(val []byte) string {
	s, _ := jsonpeek.SkimString(val)
	return s
}

// integer decodes a raw JSON integer; 0 for anything else.
func integer(val []byte) int {
	n, err := strconv.Atoi(string(val))
	if err != nil {
		return 0
	}
	return n
}

// isObject reports whether a raw value is an object.
func isObject(val []byte) bool { return len(val) > 0 && val[0] == '{' }
