package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// This file is a shallow JSON scanner. A Claude history line can be hundreds
// of kilobytes (system prompts, tool results, base64 images) while the facts
// paddock needs from it are a handful of small fields. Decoding every line
// with encoding/json runs at ~200 MB/s and made listing cost grow with the
// size of the newest transcripts; walking an object's members and skipping
// the values we do not want (strings are skipped with IndexByte) is several
// times faster and allocates nothing for skipped values.
//
// The scanner checks the structure it walks (brackets match, strings close,
// members are "key": value pairs separated by commas) so a broken line is
// still reported as broken. It does not decode what it skips; values that
// are used are decoded with encoding/json or strconv-like helpers below.

// Why this walker is not shared with scan/pi's and scan/codex's (which
// look alike): they check different amounts of a line, so the same
// broken line would be bad for one and read by another. This one checks
// the top-level object fully but skims nested values (brackets pair,
// strings close; 512 levels), accepts any run of number characters as a
// literal, and repairs a run of invalid UTF-8 as one U+FFFD. pi's checks
// every level (255 deep) and repairs byte by byte; codex's stops early and
// checks least. Merging them would change which Claude lines count as bad.

var errSyntax = errors.New("malformed JSON")

// maxDepth bounds nesting so a hostile line cannot grow the bracket stack
// without limit.
const maxDepth = 512

func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string that opens at b[i].
func stringEnd(b []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errSyntax
		}
		i += j
		// A quote preceded by an odd number of backslashes is escaped.
		n := 0
		for k := i - 1; b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// valueEnd returns the index just past the JSON value that starts at b[i].
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		return compositeEnd(b, i)
	}
	j := i
	for j < len(b) && !isDelim(b[j]) {
		j++
	}
	if !isLiteral(b[i:j]) {
		return 0, errSyntax
	}
	return j, nil
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

// isLiteral accepts true, false, null and anything made of number characters.
func isLiteral(v []byte) bool {
	switch string(v) {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	for _, c := range v {
		if (c < '0' || c > '9') && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E' {
			return false
		}
	}
	return true
}

// compositeEnd skips an object or array starting at b[i], checking only that
// brackets pair up and strings close.
func compositeEnd(b []byte, i int) (int, error) {
	var small [16]byte
	stack := small[:0]
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, err := stringEnd(b, i)
			if err != nil {
				return 0, err
			}
			i = end
			continue
		case '{', '[':
			if len(stack) == maxDepth {
				return 0, errSyntax
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			stack = append(stack, closer)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, errSyntax
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return 0, errSyntax
}

// eachMember calls fn with the raw key (without quotes, escapes left as they
// are) and the raw value of every member of the object v. v may carry
// surrounding white space but nothing else. fn may run for leading members
// of an object that later turns out to be malformed; callers discard what
// they gathered when an error comes back.
func eachMember(v []byte, fn func(key, val []byte)) error {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '{' {
		return errSyntax
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return onlySpace(v, i+1)
	}
	for {
		if i >= len(v) || v[i] != '"' {
			return errSyntax
		}
		keyEnd, err := stringEnd(v, i)
		if err != nil {
			return err
		}
		key := v[i+1 : keyEnd-1]
		i = skipSpace(v, keyEnd)
		if i >= len(v) || v[i] != ':' {
			return errSyntax
		}
		i = skipSpace(v, i+1)
		end, err := valueEnd(v, i)
		if err != nil {
			return err
		}
		fn(key, v[i:end])
		i = skipSpace(v, end)
		if i >= len(v) {
			return errSyntax
		}
		switch v[i] {
		case '}':
			return onlySpace(v, i+1)
		case ',':
			i = skipSpace(v, i+1)
		default:
			return errSyntax
		}
	}
}

// eachElement calls fn with the raw value of every element of the array v.
func eachElement(v []byte, fn func(val []byte)) error {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != '[' {
		return errSyntax
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == ']' {
		return onlySpace(v, i+1)
	}
	for {
		end, err := valueEnd(v, i)
		if err != nil {
			return err
		}
		fn(v[i:end])
		i = skipSpace(v, end)
		if i >= len(v) {
			return errSyntax
		}
		switch v[i] {
		case ']':
			return onlySpace(v, i+1)
		case ',':
			i = skipSpace(v, i+1)
		default:
			return errSyntax
		}
	}
}

func onlySpace(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errSyntax
	}
	return nil
}

// jsonString decodes a raw JSON string value. Anything else — null, a
// number, an object, a malformed string — yields ok == false, so a field of
// the wrong type reads as absent rather than as "null" or "None". Invalid
// UTF-8 is replaced, never passed on.
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
