package pi

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// A shallow JSON walker. A Pi session line can be megabytes (a tool result,
// a pasted file) while paddock needs a few short fields of it; decoding
// every line with encoding/json ran at ~80 MB/s and made a long session's
// preview take most of a second. Walking an object's members and jumping
// over values paddock does not want (strings with IndexByte) is several
// times faster and allocates nothing for what it skips.
//
// The walker checks the structure it passes (brackets match, strings end,
// members are "key": value pairs separated by commas), so a torn or broken
// line is still reported as broken. Values that are used are decoded with
// encoding/json where they need it (escapes, invalid UTF-8, numbers).

// Not shared with scan/claude's walker, which skims nested values and
// accepts looser literals: see the note there. This one checks every
// level, so a line Pi tore mid-write is always bad.

var errSyntax = errors.New("malformed JSON")

// maxDepth bounds nesting, so a hostile line cannot grow the walk without
// limit.
const maxDepth = 256

func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string opening at b[i].
func stringEnd(b []byte, i int) (int, error) {
	i++
	// Most keys and values are a few bytes long: look at those bytes one
	// by one rather than pay for an IndexByte call.
	head := b[i:min(i+16, len(b))]
	j := 0
	for ; j < len(head); j++ {
		switch head[j] {
		case '"':
			return i + j + 1, nil
		case '\\':
			j++ // the escaped byte
		}
	}
	i += j
	for {
		if i >= len(b) {
			return 0, errSyntax
		}
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errSyntax
		}
		i += j
		n := 0 // a quote after an odd number of backslashes is escaped
		for k := i - 1; b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// valueEnd returns the index just past the JSON value starting at b[i].
func valueEnd(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return stringEnd(b, i)
	case c == '{':
		return walkObject(b, i, depth+1, nil)
	case c == '[':
		return walkArray(b, i, depth+1, nil)
	case c == 't':
		return literalEnd(b, i, "true")
	case c == 'f':
		return literalEnd(b, i, "false")
	case c == 'n':
		return literalEnd(b, i, "null")
	case c == '-' || c >= '0' && c <= '9':
		j := i + 1
		for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == '.' || b[j] == 'e' || b[j] == 'E' || b[j] == '+' || b[j] == '-') {
			j++
		}
		return j, nil
	}
	return 0, errSyntax
}

func literalEnd(b []byte, i int, lit string) (int, error) {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return 0, errSyntax
	}
	return i + len(lit), nil
}

// objectEnd walks the object opening at b[i], calling member (when not
// nil) with each key's raw bytes (between the quotes) and value.
func objectEnd(b []byte, i, depth int, member func(key, val []byte)) (int, error) {
	return walkObject(b, i, depth, func(key []byte, at int) (int, error) {
		end, err := valueEnd(b, at, depth)
		if err == nil && member != nil {
			member(key, b[at:end])
		}
		return end, err
	})
}

// walkObject walks the object opening at b[i]. visit is called with each
// key's raw bytes and the index where its value starts, and returns the
// index just past the value, having walked it: with valueEnd, or with a
// walk of its own that reads the value as it checks it. A nil visit only
// checks the object (most of a line is skipped this way).
func walkObject(b []byte, i, depth int, visit func(key []byte, at int) (int, error)) (int, error) {
	if depth > maxDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return 0, errSyntax
		}
		kEnd, err := stringEnd(b, i)
		if err != nil {
			return 0, err
		}
		key := b[i+1 : kEnd-1]
		i = skipSpace(b, kEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, errSyntax
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return 0, errSyntax
		}
		var vEnd int
		if visit != nil {
			vEnd, err = visit(key, i)
		} else {
			vEnd, err = valueEnd(b, i, depth)
		}
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// arrayEnd walks the array opening at b[i], calling elem (when not nil)
// with each element.
func arrayEnd(b []byte, i, depth int, elem func(val []byte)) (int, error) {
	return walkArray(b, i, depth, func(at int) (int, error) {
		end, err := valueEnd(b, at, depth)
		if err == nil && elem != nil {
			elem(b[at:end])
		}
		return end, err
	})
}

// walkArray walks the array opening at b[i] as walkObject walks an
// object: visit (when not nil) walks each element from where it starts.
func walkArray(b []byte, i, depth int, visit func(at int) (int, error)) (int, error) {
	if depth > maxDepth {
		return 0, errSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		if i >= len(b) {
			return 0, errSyntax
		}
		var vEnd int
		var err error
		if visit != nil {
			vEnd, err = visit(i)
		} else {
			vEnd, err = valueEnd(b, i, depth)
		}
		if err != nil {
			return 0, err
		}
		i = skipSpace(b, vEnd)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// walkLine walks the JSON object that is all of b (white space around
// allowed) with walkObject's visitor. A value that is not an object is
// errNotObject.
func walkLine(b []byte, visit func(key []byte, at int) (int, error)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errNotObject
	}
	end, err := walkObject(b, i, 1, visit)
	if err != nil {
		return err
	}
	if skipSpace(b, end) != len(b) {
		return errSyntax // trailing garbage
	}
	return nil
}

// eachElement walks the elements of the array val; false when val is not
// an array.
func eachElement(val []byte, elem func(val []byte)) bool {
	if len(val) == 0 || val[0] != '[' {
		return false
	}
	_, err := arrayEnd(val, 0, 1, elem)
	return err == nil
}

// jsonString decodes val when it is a JSON string; "" and false for null,
// absent or any other type. Invalid UTF-8 comes back repaired (U+FFFD).
func jsonString(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' {
		return "", false
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(val, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonNumber decodes val when it is a finite JSON number: JSON's number
// grammar, then strconv (what encoding/json does, without its reflection).
func jsonNumber(val []byte) (float64, bool) {
	if !isNumber(val) {
		return 0, false
	}
	n, err := strconv.ParseFloat(string(val), 64)
	return n, err == nil
}

// isNumber reports whether b is exactly one JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumber(b []byte) bool {
	i := 0
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		digits()
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}
