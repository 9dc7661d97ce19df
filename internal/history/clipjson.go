// A history line longer than MaxLine is clipped while it is read: the
// JSON it holds is rewritten, a fragment at a time, into JSON of the same
// shape that is at most about a megabyte, so every agent's own record
// parser reads it unchanged and the person reading sees what was left out
// and how long it was. The line is never held whole: a 600 MB paste costs
// the reader what a 1 MB one does.
//
// What is kept: every object, array, key, number and literal, in order,
// until the output has clipBudget bytes; after that, the elements still
// to come of each open array or object are left out (the containers are
// closed). A string keeps its first clipString bytes (clipSmall once the
// budget is spent: enough for a key, an id or a type), cut on a character
// and never inside an escape, and ends in a note that says how long it
// was. A line that is not valid JSON stays invalid, so its parser rejects
// it as it would the whole line.

package history

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"unicode/utf8"
)

const (
	// MaxLine is the longest history line a LineReader hands on as it is;
	// a longer one is clipped (clipJSON). Four readers at once each hold
	// at most about this much twice.
	MaxLine = 4 << 20
	// clipBudget is the output after which a clipped line's open arrays
	// and objects get no more elements.
	clipBudget = 1 << 20
	// clipString is how much of one string a clipped line keeps.
	clipString = 256 << 10
	// clipSmall is how much of a string a clipped line keeps once the
	// budget is spent.
	clipSmall = 64
	// clipDepth is how deep a clipped line's containers may nest; a
	// deeper value becomes null.
	clipDepth = 128
	// clipNumber is the longest number a clipped line keeps; a longer one
	// becomes 0.
	clipNumber = 64
	// clipLongText is the length from which a string value reads as text
	// (not a key, an id or a type): the one a note about left-out
	// elements goes into.
	clipLongText = 64
)

// clipState is what a clipped line's JSON expects next.
type clipState uint8

const (
	expectValue        clipState = iota // a value
	expectValueOrClose                  // a value or "]" (after "[")
	expectKeyOrClose                    // a key or "}" (after "{")
	expectKey                           // a key (after "," in an object)
	expectColon                         // ":" after a key
	expectNext                          // "," or the closer; the end at the top
)

// skipKind is what a clipper passes over without output.
type skipKind uint8

const (
	skipNone  skipKind = iota
	skipRest           // the rest of the open container's elements, to its closer
	skipValue          // a container nested too deep, to its end
)

// jsonClipper rewrites one over-long line (Write its bytes, then Finish).
// The zero value is ready; reset makes it ready again, keeping its
// buffers.
type jsonClipper struct {
	out   []byte
	stack []byte // the open containers written: '{' or '['
	st    clipState
	err   bool // the line is not JSON: what follows is not written

	// The string being read.
	inStr   bool
	isKey   bool
	esc     int   // escape bytes still to come: -1 just after '\\', 4…1 in \uXXXX
	strLen  int64 // its content's length as written in the line
	strKeep int   // how much of its content it may keep
	strOut  int   // how much it kept
	strCut  bool  // it keeps less than it has

	// The number or literal being read.
	inNum, inLit   bool
	numStart, tokN int

	// Passing over without output.
	skip             skipKind
	skipDepth        int
	skipStr, skipEsc bool
	dropped          bool // elements were left out
	markAt           int  // in out, the closing quote of the last long string value; -1 none
}

// reset readies c for another line.
func (c *jsonClipper) reset() {
	*c = jsonClipper{out: c.out[:0], stack: c.stack[:0], markAt: -1}
}

// Write feeds the next bytes of the line (its ending may be included: it
// is white space to JSON).
func (c *jsonClipper) Write(p []byte) {
	for i := 0; i < len(p) && !c.err; {
		switch {
		case c.skip != skipNone:
			i = c.skipping(p, i)
		case c.inStr:
			i = c.str(p, i)
		case c.inNum || c.inLit:
			i = c.token(p, i)
		default:
			c.structural(p[i])
			i++
		}
	}
}

// Finish returns the clipped line, valid until the next reset, given the
// whole line's length (without its ending).
func (c *jsonClipper) Finish(lineLen int64) []byte {
	if !c.err && (c.inNum || c.inLit) {
		c.endToken()
	}
	if c.dropped && !c.err && c.markAt >= 0 {
		note := fmt.Sprintf(`\n\n[paddock left out the rest of this record: it is %s]`, sizeText(lineLen))
		c.out = slices.Insert(c.out, c.markAt, []byte(note)...)
	}
	return c.out
}

// fail ends the line as not JSON: a byte no JSON has outside a string is
// written, so the output is no JSON either.
func (c *jsonClipper) fail() {
	c.out = append(c.out, '!')
	c.err = true
}

// structural reads one byte outside strings, numbers and literals.
func (c *jsonClipper) structural(b byte) {
	if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
		return
	}
	switch c.st {
	case expectValue, expectValueOrClose:
		switch {
		case b == '"':
			c.startString(false)
		case b == '{' || b == '[':
			c.open(b)
		case b == '-' || '0' <= b && b <= '9':
			c.inNum, c.numStart, c.tokN = true, len(c.out), 1
			c.out = append(c.out, b)
		case 'a' <= b && b <= 'z':
			c.inLit, c.numStart, c.tokN = true, len(c.out), 1
			c.out = append(c.out, b)
		case b == ']' && c.st == expectValueOrClose:
			c.close()
		default:
			c.fail()
		}
	case expectKeyOrClose, expectKey:
		switch {
		case b == '"':
			c.startString(true)
		case b == '}' && c.st == expectKeyOrClose:
			c.close()
		default:
			c.fail()
		}
	case expectColon:
		if b != ':' {
			c.fail()
			return
		}
		c.out = append(c.out, b)
		c.st = expectValue
	case expectNext:
		top := c.top()
		switch {
		case top == 0:
			c.fail() // something after the line's value
		case b == ',':
			if len(c.out) >= clipBudget {
				c.skip, c.skipDepth, c.dropped = skipRest, 0, true
				return
			}
			c.out = append(c.out, b)
			c.st = expectValue
			if top == '{' {
				c.st = expectKey
			}
		case b == '}' && top == '{', b == ']' && top == '[':
			c.close()
		default:
			c.fail()
		}
	}
}

func (c *jsonClipper) top() byte {
	if len(c.stack) == 0 {
		return 0
	}
	return c.stack[len(c.stack)-1]
}

func (c *jsonClipper) open(b byte) {
	if len(c.stack) >= clipDepth {
		c.out = append(c.out, "null"...)
		c.skip, c.skipDepth, c.dropped = skipValue, 1, true
		return
	}
	c.out = append(c.out, b)
	c.stack = append(c.stack, b)
	c.st = expectValueOrClose
	if b == '{' {
		c.st = expectKeyOrClose
	}
}

// close writes the closer of the open container.
func (c *jsonClipper) close() {
	closer := byte(']')
	if c.top() == '{' {
		closer = '}'
	}
	c.out = append(c.out, closer)
	c.stack = c.stack[:len(c.stack)-1]
	c.st = expectNext
}

// token reads on in a number or a literal from p[i], returning where it
// stopped: at the byte after the token, which is read as structure.
func (c *jsonClipper) token(p []byte, i int) int {
	for ; i < len(p); i++ {
		b := p[i]
		in := c.inLit && 'a' <= b && b <= 'z' ||
			c.inNum && ('0' <= b && b <= '9' || b == '.' || b == '-' || b == '+' || b == 'e' || b == 'E')
		if !in {
			c.endToken()
			return i
		}
		c.tokN++
		switch {
		case c.inLit && c.tokN > len("false"):
			c.inLit = false
			c.fail()
			return len(p)
		case c.inNum && c.tokN > clipNumber:
			// Kept short below; its digits are not worth the budget.
		default:
			c.out = append(c.out, b)
		}
	}
	return i
}

// endToken ends the number or literal being read.
func (c *jsonClipper) endToken() {
	word := c.out[c.numStart:]
	switch {
	case c.inNum && c.tokN > clipNumber:
		c.out = append(c.out[:c.numStart], '0')
	case c.inLit && !(bytes.Equal(word, []byte("true")) || bytes.Equal(word, []byte("false")) || bytes.Equal(word, []byte("null"))):
		c.inLit = false
		c.fail()
		return
	}
	c.inNum, c.inLit = false, false
	c.st = expectNext
}

func (c *jsonClipper) startString(key bool) {
	c.out = append(c.out, '"')
	c.inStr, c.isKey, c.esc = true, key, 0
	c.strLen, c.strOut, c.strCut = 0, 0, false
	c.strKeep = max(clipSmall, min(clipString, clipBudget-len(c.out)))
}

// str reads on in a string from p[i] and returns where it stopped: past
// its closing quote, or at the end of p.
func (c *jsonClipper) str(p []byte, i int) int {
	for i < len(p) {
		if c.esc != 0 {
			b := p[i]
			switch {
			case c.esc == -1 && b == 'u':
				c.esc = 4
			case c.esc == -1:
				c.esc = 0
			default:
				c.esc--
			}
			if !c.strCut {
				c.out = append(c.out, b)
				c.strOut++
			}
			c.strLen++
			i++
			continue
		}
		j := indexQuoteOrEscape(p[i:])
		if j < 0 {
			j = len(p) - i
		}
		c.keep(p[i : i+j])
		i += j
		if i == len(p) {
			return i
		}
		if p[i] == '"' {
			c.endString()
			return i + 1
		}
		// A backslash: its escape is kept whole or not at all.
		c.strLen++
		c.esc = -1
		if !c.strCut && c.strOut+6 > c.strKeep {
			c.strCut = true
		}
		if !c.strCut {
			c.out = append(c.out, '\\')
			c.strOut++
		}
		i++
	}
	return i
}

// keep adds plain string content, up to what the string may keep, cut
// before a character that would not fit whole.
func (c *jsonClipper) keep(b []byte) {
	c.strLen += int64(len(b))
	if c.strCut {
		return
	}
	room := c.strKeep - c.strOut
	if len(b) > room {
		for room > 0 && !utf8.RuneStart(b[room]) {
			room--
		}
		b = b[:room]
		c.strCut = true
	}
	c.out = append(c.out, b...)
	c.strOut += len(b)
}

func (c *jsonClipper) endString() {
	if c.strCut {
		c.out = fmt.Appendf(c.out, `…\n\n[paddock clipped this text: it is %s, the first %s are shown]`,
			sizeText(c.strLen), sizeText(int64(c.strOut)))
	}
	c.out = append(c.out, '"')
	c.inStr = false
	if c.isKey {
		c.st = expectColon
		return
	}
	if c.strCut || c.strLen >= clipLongText {
		c.markAt = len(c.out) - 1
	}
	c.st = expectNext
}

// skipping passes over p from i, without output, until the skip ends.
func (c *jsonClipper) skipping(p []byte, i int) int {
	for i < len(p) {
		if c.skipStr {
			if c.skipEsc {
				c.skipEsc = false
				i++
				continue
			}
			j := indexQuoteOrEscape(p[i:])
			if j < 0 {
				return len(p)
			}
			i += j
			if p[i] == '"' {
				c.skipStr = false
			} else {
				c.skipEsc = true
			}
			i++
			continue
		}
		j := bytes.IndexAny(p[i:], `"{}[]`)
		if j < 0 {
			return len(p)
		}
		i += j
		switch p[i] {
		case '"':
			c.skipStr = true
		case '{', '[':
			c.skipDepth++
		default:
			if c.skip == skipRest && c.skipDepth == 0 {
				c.skip = skipNone
				c.close()
				return i + 1
			}
			if c.skipDepth--; c.skip == skipValue && c.skipDepth == 0 {
				c.skip = skipNone
				c.st = expectNext
				return i + 1
			}
		}
		i++
	}
	return i
}

// indexQuoteOrEscape is the index of the first '"' or '\\' in b, or -1;
// eight bytes at a time, with the usual "has a zero byte" bit tricks (the
// lowest lane marked is always the first such byte).
func indexQuoteOrEscape(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := zero(x^('"'*ones)) | zero(x^('\\'*ones)); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if b[i] == '"' || b[i] == '\\' {
			return i
		}
	}
	return -1
}

// sizeText is a byte count for a person: "812 bytes", "256 KB", "209.7 MB".
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
