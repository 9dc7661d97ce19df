// Skimming: walks that check less than encoding/json. Some readers have
// always told a good history line from a broken one by a looser walk, and
// must keep doing so: a line they read must stay readable, and a line
// they count as bad must stay bad. A Skim says how loose a walk is — how
// nested values are checked on the way past, what a number or a literal
// may look like, how deep containers may nest, whether anything may
// follow the top-level value — and its walks hand back raw bytes, never
// decoding what they pass over. Strings are passed over by finding their
// closing quote; what is inside (escapes, control bytes) is not checked.

package jsonpeek

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// ErrSyntax is what a Skim's walk returns for input it cannot walk, and
// ErrNotObject what Members and WalkMembers return for a document that
// is not an object at all.
var (
	ErrSyntax    = errors.New("malformed JSON")
	ErrNotObject = errors.New("not a JSON object")
)

// Nesting says how a Skim checks the nested objects and arrays it passes.
type Nesting uint8

const (
	// NestedWalked walks every nested object and array as the top-level
	// one: members are "key": value pairs separated by commas, elements
	// values separated by commas, every value checked as Scalars says.
	NestedWalked Nesting = iota
	// NestedPaired passes over a nested object or array checking only
	// that its brackets pair up and its strings close.
	NestedPaired
	// NestedCounted passes over a nested object or array checking only
	// that its strings close and that as many brackets, of either kind,
	// close as opened.
	NestedCounted
)

// Scalars says what a Skim accepts as a number, true, false or null.
type Scalars uint8

const (
	// ScalarsSpelled: true, false and null must begin as spelled (what
	// follows them is the enclosing container's to judge), and a number
	// is '-' or a digit followed by any run of digits, '.', 'e', 'E', '+'
	// and '-'.
	ScalarsSpelled Scalars = iota
	// ScalarsDelimited: the run of bytes up to the next delimiter
	// (, } ] : " { [ or white space) must be true, false, null or a
	// non-empty run of digits, '.', 'e', 'E', '+' and '-'.
	ScalarsDelimited
	// ScalarsAny: any non-empty run of bytes up to , } ] or white space.
	ScalarsAny
)

// A Skim is a set of rules for walking JSON loosely. Its zero value walks
// every level, spells literals out and bounds nothing.
type Skim struct {
	Nested  Nesting
	Scalars Scalars
	// MaxDepth bounds the containers open at once, the top-level one
	// included, so a hostile line cannot make a walk unbounded; 0 bounds
	// nothing (NestedCounted keeps no stack to bound).
	MaxDepth int
	// Rest lets anything follow the top-level object or array of Members,
	// Elements and WalkMembers: it is not looked at.
	Rest bool
}

// Members calls fn with the key (between its quotes, escapes left as they
// are) and the raw value of every member of the object that data holds,
// white space around it allowed, and then checks that only white space
// follows the object (unless s.Rest). fn may already have run for the
// leading members of an object found broken later on: a caller drops
// what it gathered when an error comes back. Anything but an object is
// ErrNotObject.
func (s *Skim) Members(data []byte, fn func(key, val []byte)) error {
	return s.top(data, nil, fn, nil)
}

// MembersUntil is Members with a fn that may stop the walk by returning
// false; then MembersUntil returns nil at once, looking at nothing more.
func (s *Skim) MembersUntil(data []byte, fn func(key, val []byte) bool) error {
	return s.top(data, nil, nil, fn)
}

// WalkMembers walks the object that data holds as WalkObject does, at
// depth 1, and then checks what follows it as Members does.
func (s *Skim) WalkMembers(data []byte, visit func(key []byte, at int) (int, error)) error {
	return s.top(data, visit, nil, nil)
}

func (s *Skim) top(data []byte, visit func(key []byte, at int) (int, error), each func(key, val []byte), until func(key, val []byte) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return ErrNotObject
	}
	end, err := s.object(data, i, 1, visit, each, until)
	if err == errStop {
		return nil
	}
	return s.rest(data, end, err)
}

// errStop ends a walk early without an error (MembersUntil's fn said so).
var errStop = errors.New("stop")

// Elements calls fn with the raw value of every element of the array that
// data holds, white space around it allowed; then it checks what follows
// as Members does.
func (s *Skim) Elements(data []byte, fn func(val []byte)) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return ErrSyntax
	}
	end, err := s.array(data, i, 1, nil, fn)
	return s.rest(data, end, err)
}

func (s *Skim) rest(data []byte, end int, err error) error {
	if err != nil {
		return err
	}
	if !s.Rest && skipSpace(data, end) != len(data) {
		return ErrSyntax
	}
	return nil
}

// ObjectEnd walks the object that opens at b[i], the depth-th container
// open, calling fn (when not nil) with each member's key and raw value,
// and returns the index just past it.
func (s *Skim) ObjectEnd(b []byte, i, depth int, fn func(key, val []byte)) (int, error) {
	return s.object(b, i, depth, nil, fn, nil)
}

// WalkObject walks the object that opens at b[i], the depth-th container
// open, and returns the index just past it. visit is called with each
// key (between its quotes) and the index where its value starts, and
// returns the index just past the value, having walked it: with
// ValueEnd at depth, or with a walk of its own that reads the value as
// it checks it. A nil visit only checks the object. The object's own
// members are always checked as NestedWalked says, whatever s.Nested.
func (s *Skim) WalkObject(b []byte, i, depth int, visit func(key []byte, at int) (int, error)) (int, error) {
	return s.object(b, i, depth, visit, nil, nil)
}

// object walks the object that opens at b[i]: each value is walked by
// visit when it is set, else by ValueEnd and handed to each or until
// (when set).
func (s *Skim) object(b []byte, i, depth int, visit func(key []byte, at int) (int, error), each func(key, val []byte), until func(key, val []byte) bool) (int, error) {
	if s.MaxDepth > 0 && depth > s.MaxDepth {
		return i, ErrSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, ErrSyntax
		}
		keyEnd, err := stringEnd(b, i)
		if err != nil {
			return i, err
		}
		key := b[i+1 : keyEnd-1]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return i, ErrSyntax
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return i, ErrSyntax // visit may look at b[i]
		}
		var end int
		if visit != nil {
			end, err = visit(key, i)
		} else {
			end, err = s.ValueEnd(b, i, depth)
			switch {
			case err != nil:
			case each != nil:
				each(key, b[i:end])
			case until != nil && !until(key, b[i:end]):
				return end, errStop
			}
		}
		if err != nil {
			return end, err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return i, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, ErrSyntax
		}
	}
}

// ArrayEnd walks the array that opens at b[i], the depth-th container
// open, calling fn (when not nil) with each raw element.
func (s *Skim) ArrayEnd(b []byte, i, depth int, fn func(val []byte)) (int, error) {
	return s.array(b, i, depth, nil, fn)
}

// WalkArray walks the array that opens at b[i] as WalkObject walks an
// object: visit (when not nil) walks each element from where it starts.
func (s *Skim) WalkArray(b []byte, i, depth int, visit func(at int) (int, error)) (int, error) {
	return s.array(b, i, depth, visit, nil)
}

func (s *Skim) array(b []byte, i, depth int, visit func(at int) (int, error), each func(val []byte)) (int, error) {
	if s.MaxDepth > 0 && depth > s.MaxDepth {
		return i, ErrSyntax
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		if i >= len(b) {
			return i, ErrSyntax // visit may look at b[i]
		}
		var end int
		var err error
		if visit != nil {
			end, err = visit(i)
		} else {
			end, err = s.ValueEnd(b, i, depth)
			if err == nil && each != nil {
				each(b[i:end])
			}
		}
		if err != nil {
			return end, err
		}
		i = skipSpace(b, end)
		if i >= len(b) {
			return i, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1, nil
		default:
			return i, ErrSyntax
		}
	}
}

// ValueEnd returns the index just past the value that starts at b[i],
// depth containers being open around it, checked as s says.
func (s *Skim) ValueEnd(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return i, ErrSyntax
	}
	switch c := b[i]; c {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		switch s.Nested {
		case NestedPaired:
			return s.pairedEnd(b, i, depth)
		case NestedCounted:
			return countedEnd(b, i)
		}
		if c == '{' {
			return s.object(b, i, depth+1, nil, nil, nil)
		}
		return s.array(b, i, depth+1, nil, nil)
	}
	switch s.Scalars {
	case ScalarsDelimited:
		j := i
		for j < len(b) && !delimiter(b[j]) {
			j++
		}
		if !literalOrNumber(b[i:j]) {
			return i, ErrSyntax
		}
		return j, nil
	case ScalarsAny:
		j := i
		for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
			j++
		}
		if j == i {
			return i, ErrSyntax
		}
		return j, nil
	}
	switch c := b[i]; {
	case c == 't':
		return spelled(b, i, "true")
	case c == 'f':
		return spelled(b, i, "false")
	case c == 'n':
		return spelled(b, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		j := i + 1
		for j < len(b) && numberByte(b[j]) {
			j++
		}
		return j, nil
	}
	return i, ErrSyntax
}

// stringEnd returns the index just past the string that opens at b[i]:
// past the first quote that an even number of backslashes precede.
func stringEnd(b []byte, i int) (int, error) {
	i++
	for {
		if i >= len(b) {
			return i, ErrSyntax
		}
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b), ErrSyntax
		}
		i += q
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

// pairedEnd passes over the object or array that opens at b[i], depth
// containers being open around it, checking that its brackets pair up
// and its strings close.
func (s *Skim) pairedEnd(b []byte, i, depth int) (int, error) {
	room := -1 // containers that may still open; -1: any number
	if s.MaxDepth > 0 {
		room = s.MaxDepth - depth
	}
	var small [16]byte
	stack := small[:0] // the closers awaited
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			end, err := stringEnd(b, i)
			if err != nil {
				return end, err
			}
			i = end
			continue
		case '{', '[':
			if len(stack) == room {
				return i, ErrSyntax
			}
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			stack = append(stack, closer)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return i, ErrSyntax
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return i, ErrSyntax
}

// countedEnd passes over the object or array that opens at b[i], checking
// that its strings close and as many brackets close as opened.
func countedEnd(b []byte, i int) (int, error) {
	open := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			end, err := stringEnd(b, i)
			if err != nil {
				return end, err
			}
			i = end
			continue
		case '{', '[':
			open++
		case '}', ']':
			open--
			if open == 0 {
				return i + 1, nil
			}
		}
		i++
	}
	return i, ErrSyntax
}

func delimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ':', ' ', '\t', '\n', '\r', '"', '{', '[':
		return true
	}
	return false
}

func numberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// literalOrNumber reports true, false, null or a non-empty run of number
// bytes.
func literalOrNumber(v []byte) bool {
	switch string(v) {
	case "true", "false", "null":
		return true
	case "":
		return false
	}
	for _, c := range v {
		if !numberByte(c) {
			return false
		}
	}
	return true
}

func spelled(b []byte, i int, word string) (int, error) {
	if !bytes.HasPrefix(b[i:], []byte(word)) {
		return i, ErrSyntax
	}
	return i + len(word), nil
}

// SkimString decodes a string value that a Skim walk handed back. A
// string without escapes whose bytes are valid UTF-8 is those bytes, as
// they are (control bytes included, which a Skim never checks); any other
// is decoded by encoding/json, which resolves escapes and replaces each
// invalid byte with U+FFFD. ok is false for anything but a string (null
// included) and for a string encoding/json refuses.
func SkimString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
