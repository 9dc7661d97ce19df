package codex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"
)

// A rollout line is mostly text paddock never shows: Codex's instructions
// in session_meta, tool outputs, token counts, world state. Decoding all
// of it with encoding/json made listing cost a full parse of every line.
// This scanner walks a JSON object's members and skips the values it is
// not asked about at memchr speed; only the few small values paddock uses
// are decoded. It checks structure only as far as it walks: a line it can
// walk is good enough to read, one it cannot is a bad line.

// Not shared with scan/claude's and scan/pi's walkers: this one is lenient
// on purpose (brackets are only counted, literals not checked, nothing
// after the object looked at) and lets the caller stop early, so what
// counts as a bad rollout line would change if it were swapped for theirs.

var errSyntax = errors.New("malformed JSON")

// members calls fn with the raw key (between its quotes, escapes left as
// they are) and the raw value of each member of the object in data, in
// order, until fn returns false.
func members(data []byte, fn func(key, val []byte) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errSyntax
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return errSyntax
		}
		end, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : end-1]
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return errSyntax
		}
		i = skipSpace(data, i+1)
		end, err = skipValue(data, i)
		if err != nil {
			return err
		}
		if !fn(key, data[i:end]) {
			return nil
		}
		i = skipSpace(data, end)
		if i >= len(data) {
			return errSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return errSyntax
		}
	}
}

// elements calls fn with each raw element of the array in data.
func elements(data []byte, fn func(val []byte)) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return errSyntax
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return nil
	}
	for {
		end, err := skipValue(data, i)
		if err != nil {
			return err
		}
		fn(data[i:end])
		i = skipSpace(data, end)
		if i >= len(data) {
			return errSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return nil
		default:
			return errSyntax
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index just past the string starting at b[i].
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return 0, errSyntax
		}
		i += q
		// An odd run of backslashes before the quote escapes it.
		n := 0
		for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
			n++
		}
		i++
		if n%2 == 0 {
			return i, nil
		}
	}
}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				end, err := skipString(b, i)
				if err != nil {
					return 0, err
				}
				i = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errSyntax
	default: // a number, true, false or null
		start := i
		for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
			i++
		}
		if i == start {
			return 0, errSyntax
		}
		return i, nil
	}
}

// str decodes a raw JSON string value; anything else (null, a number, an
// object) is "" (seed 002 §6: present but null). Invalid UTF-8 comes out
// repaired, as encoding/json repairs it.
func str(val []byte) string {
	if len(val) < 2 || val[0] != '"' {
		return ""
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if json.Unmarshal(val, &s) != nil {
		return ""
	}
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
