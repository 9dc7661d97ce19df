// Package jsonpeek reads chosen parts of a JSON document without decoding
// the rest: the members of an object, the elements of an array, one string
// or number. It walks the bytes once and allocates nothing for what it
// passes over, so reading a few small fields of a big record costs a
// fraction of json.Unmarshal, which checks the whole document with a
// per-byte state machine and then walks it a second time to decode it.
//
// Its functions accept exactly what encoding/json accepts — the same
// grammar, the same white space, the same nesting limit, invalid UTF-8
// inside strings — and decode names, strings and numbers to the same
// values, so a reader that moves off json.Unmarshal keeps the same idea
// of a broken line and the same results. That is the contract its tests
// hold them to. A Skim is the exception, and says so in its name: a
// looser walk, for readers whose idea of a broken line has always been
// looser than encoding/json's and must stay what it is (skim.go).
//
// It only reads: it never changes or keeps the bytes it is given.
package jsonpeek

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// maxDepth is encoding/json's nesting limit: a document with more
// containers open at once is invalid.
const maxDepth = 10000

// Valid reports whether data is one JSON value, surrounding white space
// allowed, as json.Valid does.
func Valid(data []byte) bool {
	end, ok := value(data, skipSpace(data, 0), 0)
	return ok && skipSpace(data, end) == len(data)
}

// Null reports whether data is the literal null, surrounding white space
// allowed.
func Null(data []byte) bool {
	i := skipSpace(data, 0)
	return bytes.HasPrefix(data[i:], []byte("null")) && skipSpace(data, i+4) == len(data)
}

// Object calls fn with every member of the object data holds, in order:
// key is the member's name as written (a JSON string, quotes included,
// escapes not decoded: see Is and KeyFolds), val its value as written.
// It reports whether data is one valid JSON object, surrounding white
// space allowed. fn may already have run for the leading members of a
// document found broken later on; a caller drops what it gathered when ok
// is false.
func Object(data []byte, fn func(key, val []byte)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	end, ok := object(data, i, 1, fn, nil)
	return ok && skipSpace(data, end) == len(data)
}

// Array calls fn with every element of the array data holds, in order. It
// reports whether data is one valid JSON array, surrounding white space
// allowed; as with Object, fn may have run before a later error.
func Array(data []byte, fn func(val []byte)) bool {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return false
	}
	end, ok := array(data, i, 1, fn)
	return ok && skipSpace(data, end) == len(data)
}

// Member returns the value of the member of object data named exactly
// name — the last one when the name repeats, as decoding into a map keeps
// it. found is false when there is none or data is not a valid object.
func Member(data []byte, name string) (val []byte, found bool) {
	ok := Object(data, func(k, v []byte) {
		if Is(k, name) {
			val, found = v, true
		}
	})
	if !ok {
		return nil, false
	}
	return val, found
}

// Fields reads data as json.Unmarshal reads it into a struct whose fields
// are all json.RawMessage, named names: fn runs for every member whose
// name matches names[i] the way encoding/json matches a field (exactly,
// else ignoring case: KeyFolds), with i and the member's value, so the
// last call for an i is what the struct would hold. ok is false where
// json.Unmarshal fails: data is not valid JSON, or is neither an object
// nor null (null has no members).
func Fields(data []byte, names []string, fn func(i int, val []byte)) bool {
	i := skipSpace(data, 0)
	if i < len(data) && data[i] == 'n' {
		return Null(data)
	}
	ascii := allASCII(names)
	return Object(data, func(k, v []byte) {
		if n := field(k, names, ascii); n >= 0 {
			fn(n, v)
		}
	})
}

// FieldValues is Fields handing fn each matched member's value unread, so
// that fn may walk into it (Value.Fields) in the same pass instead of
// walking it a second time.
func FieldValues(data []byte, names []string, fn func(i int, v *Value)) bool {
	i := skipSpace(data, 0)
	if i < len(data) && data[i] == 'n' {
		return Null(data)
	}
	if i >= len(data) || data[i] != '{' {
		return false
	}
	ascii := allASCII(names)
	end, ok := object(data, i, 1, nil, func(k []byte, v *Value) {
		if n := field(k, names, ascii); n >= 0 {
			fn(n, v)
		}
	})
	return ok && skipSpace(data, end) == len(data)
}

// allASCII reports whether every name is ASCII (field's fast path).
func allASCII(names []string) bool {
	for _, name := range names {
		if !asciiString(name) {
			return false
		}
	}
	return true
}

// A Value is a member's value met during a walk (FieldValues), unread
// until the walk's callback reads it with Raw or Fields; a value the
// callback leaves unread is checked and passed over after it returns. A
// Value is only good during that callback.
type Value struct {
	b          []byte
	start, end int
	depth      int // containers open around the value
	read, ok   bool
}

// Raw returns the value as written, or nil when it is broken (the walk
// then fails).
func (v *Value) Raw() []byte {
	if !v.read {
		v.read = true
		v.end, v.ok = value(v.b, v.start, v.depth)
	}
	if !v.ok {
		return nil
	}
	return v.b[v.start:v.end]
}

// Fields reads the value as the function Fields reads a document, in the
// walk's own pass. ok is false when the value is neither an object nor
// null, or is broken (the walk then fails).
func (v *Value) Fields(names []string, fn func(i int, val []byte)) bool {
	if v.read || v.start >= len(v.b) || v.b[v.start] != '{' {
		raw := v.Raw()
		return raw != nil && Fields(raw, names, fn)
	}
	v.read = true
	ascii := allASCII(names)
	v.end, v.ok = object(v.b, v.start, v.depth+1, func(k, val []byte) {
		if n := field(k, names, ascii); n >= 0 {
			fn(n, val)
		}
	}, nil)
	return v.ok
}

// Lookup reads the object data as decoding it into a
// map[string]json.RawMessage and looking names up in the map would: fn
// runs for every member named exactly names[i] (Is), with i and the
// member's value, so the last call for an i is what the map would hold.
// ok is false when data is not a valid object.
func Lookup(data []byte, names []string, fn func(i int, val []byte)) bool {
	return Object(data, func(k, v []byte) {
		body := k[1 : len(k)-1]
		plain := plainASCII(body)
		for n, name := range names {
			if plain && string(body) == name || !plain && Is(k, name) {
				fn(n, v)
				return
			}
		}
	})
}

// field returns the index of the name key matches as KeyFolds does, or -1;
// ascii says every name is ASCII.
func field(key []byte, names []string, ascii bool) int {
	body := key[1 : len(key)-1]
	if !ascii || !plainASCII(body) {
		for n, name := range names {
			if KeyFolds(key, name) {
				return n
			}
		}
		return -1
	}
	// ASCII against ASCII: an exact match wins over a folded one, and
	// either needs equal lengths.
	fold := -1
	for n, name := range names {
		if len(name) != len(body) {
			continue
		}
		if string(body) == name {
			return n
		}
		if fold < 0 && asciiFold(body, name) {
			fold = n
		}
	}
	return fold
}

// asciiFold reports whether a and b, of one length, are equal ignoring the
// case of ASCII letters; for ASCII strings that is bytes.EqualFold.
func asciiFold(a []byte, b string) bool {
	for i := range len(a) {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z' {
			return false
		}
	}
	return true
}

// Is reports whether raw is one JSON string that decodes to s (as String
// decodes it), without copying it when it has no escapes. Object's keys
// are such strings: Is(key, name) is the test a map lookup makes.
func Is(raw []byte, s string) bool {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if body := raw[1 : len(raw)-1]; plainText(body) {
			return string(body) == s
		}
	}
	got, ok := String(raw)
	return ok && got == s
}

// KeyFolds reports whether key, a member name as Object passes it, names
// the struct field name for encoding/json: it decodes to name, or to
// something equal to it under Unicode case folding (bytes.EqualFold, the
// rule encoding/json's foldName implements).
func KeyFolds(key []byte, name string) bool {
	if len(key) < 2 {
		return false
	}
	body := key[1 : len(key)-1]
	if plainASCII(body) {
		if string(body) == name {
			return true
		}
		// Two ASCII strings fold together only at equal lengths; a
		// non-ASCII name may still fold to an ASCII key (K, ſ).
		if len(body) != len(name) && asciiString(name) {
			return false
		}
		return bytes.EqualFold(body, []byte(name))
	}
	s, ok := String(key)
	return ok && (s == name || bytes.EqualFold([]byte(s), []byte(name)))
}

// String decodes raw, one JSON string, as json.Unmarshal does into a
// string (escapes resolved, invalid UTF-8 replaced by U+FFFD). ok is false
// when raw is anything else, null included.
func String(raw []byte) (string, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		if body := raw[1 : len(raw)-1]; plainText(body) {
			return string(body), true
		}
	}
	if i := skipSpace(raw, 0); i >= len(raw) || raw[i] != '"' {
		return "", false
	}
	// Escapes, invalid UTF-8 or surrounding space: rare enough to leave to
	// encoding/json, which then defines the result.
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// Number decodes raw, one JSON number (white space may follow it), as
// json.Unmarshal does into a float64. ok is false for anything else, null
// included, and for a number out of float64's range.
func Number(raw []byte) (float64, bool) {
	if len(raw) == 0 || !(raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9') {
		return 0, false
	}
	end, ok := number(raw, 0)
	if !ok || skipSpace(raw, end) != len(raw) {
		return 0, false
	}
	if end <= 15 && raw[0] != '-' && digits(raw, 0) == end {
		// A whole number below 10^15 (a time in milliseconds) is exact
		// in a float64: ParseFloat would return the same value.
		n := 0
		for _, c := range raw[:end] {
			n = n*10 + int(c-'0')
		}
		return float64(n), true
	}
	f, err := strconv.ParseFloat(string(raw[:end]), 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// plainASCII reports a string body that decodes to itself and holds only
// ASCII: no escape, no quote, no control byte.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// plainText reports a string body that decodes to itself: no escape, no
// quote, no control byte, valid UTF-8.
func plainText(b []byte) bool {
	ascii := true
	for _, c := range b {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(b)
}

func asciiString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first byte at or after b[i] that is
// not JSON white space (len(b) when there is none).
func SkipSpace(b []byte, i int) int { return skipSpace(b, i) }

func skipSpace(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i // the usual case: no space at all
	}
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// value returns the index just past the value that starts at b[i], depth
// containers being open around it.
func value(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; {
	case c == '"':
		return str(b, i)
	case c == '{':
		return object(b, i, depth+1, nil, nil)
	case c == '[':
		return array(b, i, depth+1, nil)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return number(b, i)
	}
	return i, false
}

// object walks the object that opens at b[i], the depth-th container open.
// fn, when not nil, is called with every member; visit, when not nil, too,
// before its value is read, which visit may do itself (Value).
func object(b []byte, i, depth int, fn func(key, val []byte), visit func(key []byte, v *Value)) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	var v *Value // one per walk, not per member: the callback keeps no Value
	if visit != nil {
		v = new(Value)
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, false
		}
		keyEnd, ok := str(b, i)
		if !ok {
			return i, false
		}
		key := b[i:keyEnd]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return i, false
		}
		i = skipSpace(b, i+1)
		if visit == nil {
			start := i
			if i, ok = value(b, i, depth); !ok {
				return i, false
			}
			if fn != nil {
				fn(key, b[start:i])
			}
		} else {
			*v = Value{b: b, start: i, depth: depth}
			visit(key, v)
			if v.Raw() == nil {
				return v.end, false
			}
			i = v.end
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// array walks the array that opens at b[i], the depth-th container open.
func array(b []byte, i, depth int, fn func(val []byte)) (int, bool) {
	if depth > maxDepth {
		return i, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		start := i
		var ok bool
		if i, ok = value(b, i, depth); !ok {
			return i, false
		}
		if fn != nil {
			fn(b[start:i])
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// str returns the index just past the string that opens at b[i].
func str(b []byte, i int) (int, bool) {
	i++
	for {
		// Pass over the bytes that stand for themselves, eight at a time
		// while eight remain, then one at a time.
		for i+8 <= len(b) {
			if m := special8(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if i >= len(b) {
			return i, false
		}
		switch b[i] {
		case '"':
			return i + 1, true
		case '\\':
			if i+1 >= len(b) {
				return i, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !hex(b[i+2]) || !hex(b[i+3]) || !hex(b[i+4]) || !hex(b[i+5]) {
					return i, false
				}
				i += 6
			default:
				return i, false
			}
		default: // a control byte
			return i, false
		}
	}
}

// special8 marks the bytes of x (eight, little-endian) that are a quote, a
// backslash or a control byte (below 0x20) with their high bit. These are
// the usual "has a zero byte" bit tricks: a lane can be marked wrongly only
// above a lane marked rightly, so the lowest mark is always the first such
// byte.
func special8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	less := (x - 0x20*ones) & ^x & highs // a byte below 0x20
	return less | zero(x^('"'*ones)) | zero(x^('\\'*ones))
}

func hex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number returns the index just past the number that starts at b[i]:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return j, false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return j, false
		}
		i = j
	}
	return i, true
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

func literal(b []byte, i int, word string) (int, bool) {
	if !bytes.HasPrefix(b[i:], []byte(word)) {
		return i, false
	}
	return i + len(word), true
}
