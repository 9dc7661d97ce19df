// Package tomlscan lets paddock edit a TOML config the user owns (Codex's
// config.toml, Kimi Code's) statement by statement instead of decoding and
// re-encoding it: a re-encoder drops the user's comments and layout, and no
// Go TOML library keeps them. Scan splits a document into statements with
// their byte ranges and checks the syntax closely enough to refuse a file
// that does not parse: table headers, keys, strings of all four kinds,
// arrays and inline tables (across lines), and scalar literals. It does not
// check semantic rules such as duplicate keys or redefined tables; an
// editor built on it checks what its own edit could break.
//
// It works on bytes only: reading and writing files is the caller's.
package tomlscan

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is what a statement is.
type Kind int

// Statement kinds.
const (
	Blank Kind = iota
	Comment
	Header      // [a.b]
	ArrayHeader // [[a.b]]
	KeyValue
)

// Stmt is one statement: a blank or comment line, a header, or a
// key/value pair, which can span lines.
type Stmt struct {
	Kind       Kind
	Start, End int    // bytes of its lines, End just past its newline (or EOF)
	Line       int    // first line, 1-based
	Key        string // key/value: the dotted key, decoded; headers: the table name
	Table      string // the table a key/value belongs to ("" for the root)
	ValStart   int    // key/value: the raw value's bytes
	ValEnd     int
}

type scanner struct {
	src []byte
	pos int
}

func (s *scanner) errf(format string, a ...any) error {
	l, c := lineCol(s.src, s.pos)
	return &SyntaxError{Line: l, Col: c, Msg: fmt.Sprintf(format, a...)}
}

func (s *scanner) peek(n int) byte {
	if s.pos+n < len(s.src) {
		return s.src[s.pos+n]
	}
	return 0
}

func (s *scanner) spaces() {
	for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
		s.pos++
	}
}

// eol accepts optional spaces, an optional comment and the end of the line.
func (s *scanner) eol() error {
	s.spaces()
	if s.pos < len(s.src) && s.src[s.pos] == '#' {
		if err := s.comment(); err != nil {
			return err
		}
	}
	switch {
	case s.pos >= len(s.src):
		return nil
	case s.src[s.pos] == '\n':
		s.pos++
		return nil
	case s.src[s.pos] == '\r' && s.peek(1) == '\n':
		s.pos += 2
		return nil
	}
	return s.errf("expected the end of the line, found %q", s.src[s.pos])
}

func (s *scanner) comment() error {
	for s.pos < len(s.src) && s.src[s.pos] != '\n' {
		c := s.src[s.pos]
		if c == '\r' && s.peek(1) == '\n' {
			return nil
		}
		if c < 0x20 && c != '\t' || c == 0x7f {
			return s.errf("control character in a comment")
		}
		s.pos++
	}
	return nil
}

// skipNewlinesAndComments is the filler allowed inside arrays.
func (s *scanner) skipFill() error {
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == ' ' || c == '\t' || c == '\n':
			s.pos++
		case c == '\r' && s.peek(1) == '\n':
			s.pos += 2
		case c == '#':
			if err := s.comment(); err != nil {
				return err
			}
		default:
			return nil
		}
	}
	return nil
}

func isBareKey(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a dotted key and returns it decoded, parts joined with ".".
func (s *scanner) key() (string, error) {
	var parts []string
	for {
		s.spaces()
		switch c := s.peek(0); {
		case c == '"':
			if s.peek(1) == '"' && s.peek(2) == '"' {
				return "", s.errf("a multi-line string cannot be a key")
			}
			v, err := s.basicString()
			if err != nil {
				return "", err
			}
			parts = append(parts, v)
		case c == '\'':
			if s.peek(1) == '\'' && s.peek(2) == '\'' {
				return "", s.errf("a multi-line string cannot be a key")
			}
			v, err := s.literalString()
			if err != nil {
				return "", err
			}
			parts = append(parts, v)
		case isBareKey(c):
			st := s.pos
			for s.pos < len(s.src) && isBareKey(s.src[s.pos]) {
				s.pos++
			}
			parts = append(parts, string(s.src[st:s.pos]))
		default:
			return "", s.errf("expected a key")
		}
		s.spaces()
		if s.peek(0) != '.' {
			return strings.Join(parts, "."), nil
		}
		s.pos++
	}
}

func (s *scanner) basicString() (string, error) {
	st := s.pos
	s.pos++
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == '\\':
			s.pos += 2
		case c == '"':
			s.pos++
			v, err := decodeBasic(string(s.src[st+1 : s.pos-1]))
			if err != nil {
				s.pos = st
				return "", s.errf("%v", err)
			}
			return v, nil
		case c == '\n' || c == '\r':
			return "", s.errf("unterminated string")
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", s.errf("control character in a string")
		default:
			s.pos++
		}
	}
	return "", s.errf("unterminated string")
}

func (s *scanner) literalString() (string, error) {
	st := s.pos
	s.pos++
	for s.pos < len(s.src) {
		switch c := s.src[s.pos]; {
		case c == '\'':
			s.pos++
			return string(s.src[st+1 : s.pos-1]), nil
		case c == '\n' || c == '\r':
			return "", s.errf("unterminated string")
		default:
			s.pos++
		}
	}
	return "", s.errf("unterminated string")
}

// multiline skips a multi-line string, basic (three double quotes) or literal (three single quotes).
func (s *scanner) multiline(q byte) error {
	s.pos += 3
	for s.pos < len(s.src) {
		c := s.src[s.pos]
		if c == '\\' && q == '"' {
			s.pos += 2
			continue
		}
		if c == q && s.peek(1) == q && s.peek(2) == q {
			s.pos += 3
			// up to two more quotes belong to the content
			for i := 0; i < 2 && s.peek(0) == q; i++ {
				s.pos++
			}
			return nil
		}
		s.pos++
	}
	return s.errf("unterminated multi-line string")
}

var tomlScalar = regexp.MustCompile(`^(true|false|[+-]?(inf|nan)|` +
	`[+-]?(0|[1-9](_?[0-9])*)(\.[0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?|` +
	`0x[0-9A-Fa-f](_?[0-9A-Fa-f])*|0o[0-7](_?[0-7])*|0b[01](_?[01])*|` +
	`[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?([Zz]|[+-][0-9]{2}:[0-9]{2})?)?|` +
	`[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?)$`)

var tomlDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

func (s *scanner) value(depth int) error {
	if depth > 100 {
		return s.errf("values nested too deeply")
	}
	switch c := s.peek(0); {
	case c == '"' && s.peek(1) == '"' && s.peek(2) == '"':
		return s.multiline('"')
	case c == '\'' && s.peek(1) == '\'' && s.peek(2) == '\'':
		return s.multiline('\'')
	case c == '"':
		_, err := s.basicString()
		return err
	case c == '\'':
		_, err := s.literalString()
		return err
	case c == '[':
		s.pos++
		for {
			if err := s.skipFill(); err != nil {
				return err
			}
			if s.peek(0) == ']' {
				s.pos++
				return nil
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			if err := s.skipFill(); err != nil {
				return err
			}
			switch s.peek(0) {
			case ',':
				s.pos++
			case ']':
				s.pos++
				return nil
			default:
				return s.errf("expected ',' or ']' in an array")
			}
		}
	case c == '{':
		s.pos++
		if err := s.skipFill(); err != nil {
			return err
		}
		if s.peek(0) == '}' {
			s.pos++
			return nil
		}
		for {
			if err := s.skipFill(); err != nil {
				return err
			}
			if _, err := s.key(); err != nil {
				return err
			}
			s.spaces()
			if s.peek(0) != '=' {
				return s.errf("expected '=' after a key")
			}
			s.pos++
			if err := s.skipFill(); err != nil {
				return err
			}
			if err := s.value(depth + 1); err != nil {
				return err
			}
			if err := s.skipFill(); err != nil {
				return err
			}
			switch s.peek(0) {
			case ',':
				s.pos++
			case '}':
				s.pos++
				return nil
			default:
				return s.errf("expected ',' or '}' in an inline table")
			}
		}
	}
	st := s.pos
	for s.pos < len(s.src) && strings.IndexByte(" \t\r\n#,]}", s.src[s.pos]) < 0 {
		s.pos++
	}
	tok := string(s.src[st:s.pos])
	// "1979-05-27 07:32:00" is one value with a space in it
	if tomlDate.MatchString(tok) && s.peek(0) == ' ' && s.peek(1) >= '0' && s.peek(1) <= '9' {
		s.pos++
		for s.pos < len(s.src) && strings.IndexByte(" \t\r\n#,]}", s.src[s.pos]) < 0 {
			s.pos++
		}
		tok = string(s.src[st:s.pos])
	}
	if tok == "" {
		s.pos = st
		return s.errf("expected a value")
	}
	if !tomlScalar.MatchString(tok) {
		s.pos = st
		return s.errf("invalid value %q", tok)
	}
	return nil
}

// Scan splits src into statements, or says where it stops parsing.
func Scan(src []byte) ([]Stmt, error) {
	if !utf8.Valid(src) {
		i := 0
		for i < len(src) {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		l, c := lineCol(src, i)
		return nil, &SyntaxError{Line: l, Col: c, Msg: "invalid UTF-8"}
	}
	s := &scanner{src: src}
	var out []Stmt
	table := ""
	for s.pos < len(src) {
		st := Stmt{Start: s.pos}
		st.Line, _ = lineCol(src, s.pos)
		s.spaces()
		switch c := s.peek(0); {
		case s.pos >= len(src) || c == '\n' || c == '\r':
			st.Kind = Blank
		case c == '#':
			st.Kind = Comment
		case c == '[':
			st.Kind = Header
			s.pos++
			if s.peek(0) == '[' {
				st.Kind = ArrayHeader
				s.pos++
			}
			k, err := s.key()
			if err != nil {
				return nil, err
			}
			for i := 0; i <= int(st.Kind-Header); i++ {
				s.spaces()
				if s.peek(0) != ']' {
					return nil, s.errf("expected ']' to close the table header")
				}
				s.pos++
			}
			st.Key, table = k, k
		default:
			k, err := s.key()
			if err != nil {
				return nil, err
			}
			if s.peek(0) != '=' {
				return nil, s.errf("expected '=' after the key %q", k)
			}
			s.pos++
			s.spaces()
			st.ValStart = s.pos
			if err := s.value(0); err != nil {
				return nil, err
			}
			st.ValEnd = s.pos
			st.Kind, st.Key, st.Table = KeyValue, k, table
		}
		if err := s.eol(); err != nil {
			return nil, err
		}
		st.End = s.pos
		out = append(out, st)
	}
	return out, nil
}

// decodeBasic decodes the escapes of a TOML basic string's content.
func decodeBasic(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i >= len(s) {
			return "", fmt.Errorf("bad escape")
		}
		switch s[i] {
		case 'b':
			b.WriteByte('\b')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'f':
			b.WriteByte('\f')
		case 'r':
			b.WriteByte('\r')
		case 'e':
			b.WriteByte(0x1b)
		case '"':
			b.WriteByte('"')
		case '\\':
			b.WriteByte('\\')
		case 'u', 'U':
			n := 4
			if s[i] == 'U' {
				n = 8
			}
			if i+1+n > len(s) {
				return "", fmt.Errorf("bad escape")
			}
			v, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			if err != nil || !utf8.ValidRune(rune(v)) {
				return "", fmt.Errorf("bad escape")
			}
			b.WriteRune(rune(v))
			i += n
		default:
			return "", fmt.Errorf("bad escape \\%c", s[i])
		}
	}
	return b.String(), nil
}

// Quote writes s as a TOML basic string.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Strings reads a value that is a string or an array of strings (single
// line or not). ok is false for anything else.
func Strings(raw []byte) (vals []string, ok bool) {
	s := &scanner{src: raw}
	readOne := func() bool {
		switch {
		case s.peek(0) == '"' && !(s.peek(1) == '"' && s.peek(2) == '"'):
			v, err := s.basicString()
			if err != nil {
				return false
			}
			vals = append(vals, v)
		case s.peek(0) == '\'' && !(s.peek(1) == '\'' && s.peek(2) == '\''):
			v, err := s.literalString()
			if err != nil {
				return false
			}
			vals = append(vals, v)
		default:
			return false
		}
		return true
	}
	if s.peek(0) != '[' {
		return vals, readOne() && s.pos == len(raw)
	}
	s.pos++
	for {
		if s.skipFill() != nil {
			return nil, false
		}
		if s.peek(0) == ']' {
			s.pos++
			return vals, s.pos == len(raw)
		}
		if !readOne() || s.skipFill() != nil {
			return nil, false
		}
		switch s.peek(0) {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return vals, s.pos == len(raw)
		default:
			return nil, false
		}
	}
}

// Remove deletes the given statements' bytes (sorted, non-overlapping).
func Remove(src []byte, ranges [][2]int) []byte {
	var b bytes.Buffer
	last := 0
	for _, r := range ranges {
		b.Write(src[last:r[0]])
		last = r[1]
	}
	b.Write(src[last:])
	return b.Bytes()
}

// SyntaxError is a document that does not parse, with the place it fails.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// Position is where the document stops parsing (1-based).
func (e *SyntaxError) Position() (line, col int) { return e.Line, e.Col }

// Reason says why it stops there.
func (e *SyntaxError) Reason() string { return e.Msg }

func lineCol(src []byte, off int) (line, col int) {
	off = min(max(off, 0), len(src))
	return 1 + bytes.Count(src[:off], []byte{'\n'}), off - bytes.LastIndexByte(src[:off], '\n')
}

// Splice returns src with src[from:to] replaced by repl.
func Splice(src []byte, from, to int, repl string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(repl))
	out = append(out, src[:from]...)
	out = append(out, repl...)
	return append(out, src[to:]...)
}
