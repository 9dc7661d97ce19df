package pi

import (
	"errors"

	"paddock/internal/history/jsonpeek"
)

// A Pi session line can be megabytes (a tool result, a pasted file) while
// paddock needs a few short fields of it, so lines are walked, not
// decoded: the values not wanted are jumped over, and those used are
// decoded where they need it.

// maxDepth bounds nesting, the line's object included, so a hostile line
// cannot grow the walk without limit.
const maxDepth = 256

// lineJSON is how strictly a line is walked: every level (brackets match,
// strings end, members are "key": value pairs separated by commas), so a
// line Pi tore mid-write is always bad; literals must begin as spelled
// and numbers are runs of number characters, as Pi's reader always had it.
func lineJSON() jsonpeek.Skim {
	return jsonpeek.Skim{Nested: jsonpeek.NestedWalked, Scalars: jsonpeek.ScalarsSpelled, MaxDepth: maxDepth}
}

func skipSpace(b []byte, i int) int { return jsonpeek.SkipSpace(b, i) }

// valueEnd returns the index just past the JSON value starting at b[i],
// depth containers being open around it.
func valueEnd(b []byte, i, depth int) (int, error) {
	sk := lineJSON()
	return sk.ValueEnd(b, i, depth)
}

// objectEnd walks the object opening at b[i], calling member (when not
// nil) with each key's raw bytes (between the quotes) and value.
func objectEnd(b []byte, i, depth int, member func(key, val []byte)) (int, error) {
	sk := lineJSON()
	return sk.ObjectEnd(b, i, depth, member)
}

// walkLine walks the JSON object that is all of b (white space around
// allowed) by sk (lineJSON's) with a visitor as WalkObject's. A value that is
// not an object is errNotObject.
func walkLine(sk *jsonpeek.Skim, b []byte, visit func(key []byte, at int) (int, error)) error {
	err := sk.WalkMembers(b, visit)
	if errors.Is(err, jsonpeek.ErrNotObject) {
		return errNotObject
	}
	return err
}

// eachElement walks the elements of the array val; false when val is not
// an array.
func eachElement(val []byte, elem func(val []byte)) bool {
	if len(val) == 0 || val[0] != '[' {
		return false
	}
	sk := lineJSON()
	_, err := sk.ArrayEnd(val, 0, 1, elem)
	return err == nil
}

// jsonString decodes val when it is a JSON string; "" and false for null,
// absent or any other type. Invalid UTF-8 comes back repaired (U+FFFD).
func jsonString(val []byte) (string, bool) { return jsonpeek.SkimString(val) }

// jsonNumber decodes val when it is exactly one finite JSON number, as
// encoding/json would (jsonpeek.Number, which also lets white space
// follow: a value the walk hands back has none, and none is taken).
func jsonNumber(val []byte) (float64, bool) {
	if n := len(val); n > 0 && val[n-1] <= ' ' {
		return 0, false
	}
	return jsonpeek.Number(val)
}
