// Package jsonedit edits a JSON config file the user owns at the byte
// level: it parses the text into nodes that remember their offsets, and
// every edit is one splice of the original bytes. Members and elements it
// does not touch keep their exact bytes, order and whitespace; what it
// inserts copies the indentation of its neighbours. Re-encoding the whole
// file (encoding/json or any ordered map) would reorder keys or reflow
// whitespace in a file the user owns. Hooks is the editor of the agents'
// hook files built on it.
//
// It works on bytes only: reading and writing files is the caller's.
package jsonedit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Node is one JSON value and where it sits in the source.
type Node struct {
	kind     byte // '{' object, '[' array, '"' string, '0' number/true/false/null
	start    int  // offset of the first byte of the value
	end      int  // offset just past the value
	keys     []string
	keyStart []int // objects: offset of each member's key (its opening quote)
	kids     []*Node
	str      string // decoded string value (kind '"')
}

// SyntaxError is a config that does not parse, with the place it fails.
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

func lineCol(src []byte, off int) (int, int) {
	if off > len(src) {
		off = len(src)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(src[:off], []byte{'\n'})
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return line, col
}

// Parse validates src with encoding/json (so "parses" means what Go and
// the agents mean by it) and returns the offset tree of its top-level value.
func Parse(src []byte) (*Node, error) {
	if !json.Valid(src) {
		var v any
		err := json.Unmarshal(src, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read up to and including the bad
			// one; point at that byte.
			off := int(se.Offset) - 1
			if off < 0 {
				off = 0
			}
			l, c := lineCol(src, off)
			return nil, &SyntaxError{Line: l, Col: c, Msg: se.Error()}
		}
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, &SyntaxError{Line: 1, Col: 1, Msg: err.Error()}
	}
	p := &jparser{src: src}
	p.ws()
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	return n, nil
}

type jparser struct {
	src []byte
	pos int
}

func (p *jparser) errf(format string, a ...any) error {
	l, c := lineCol(p.src, p.pos)
	return &SyntaxError{Line: l, Col: c, Msg: fmt.Sprintf(format, a...)}
}

func (p *jparser) ws() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value() (*Node, error) {
	if p.pos >= len(p.src) {
		return nil, p.errf("unexpected end of input")
	}
	switch p.src[p.pos] {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return p.stringNode()
	}
	start := p.pos
	for p.pos < len(p.src) && strings.IndexByte("0123456789+-.eEtruefalsn", p.src[p.pos]) >= 0 {
		p.pos++
	}
	if p.pos == start {
		return nil, p.errf("unexpected %q", p.src[p.pos])
	}
	return &Node{kind: '0', start: start, end: p.pos}, nil
}

func (p *jparser) stringNode() (*Node, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			n := &Node{kind: '"', start: start, end: p.pos}
			if err := json.Unmarshal(p.src[start:p.pos], &n.str); err != nil {
				return nil, p.errf("bad string: %v", err)
			}
			return n, nil
		}
		p.pos++
	}
	return nil, p.errf("unterminated string")
}

func (p *jparser) object() (*Node, error) {
	n := &Node{kind: '{', start: p.pos}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		p.ws()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errf("expected a member name")
		}
		k, err := p.stringNode()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errf("expected ':'")
		}
		p.pos++
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, k.str)
		n.keyStart = append(n.keyStart, k.start)
		n.kids = append(n.kids, v)
		p.ws()
		if p.pos >= len(p.src) {
			return nil, p.errf("unterminated object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errf("expected ',' or '}'")
		}
	}
}

func (p *jparser) array() (*Node, error) {
	n := &Node{kind: '[', start: p.pos}
	p.pos++
	p.ws()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		n.end = p.pos
		return n, nil
	}
	for {
		p.ws()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.kids = append(n.kids, v)
		p.ws()
		if p.pos >= len(p.src) {
			return nil, p.errf("unterminated array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			n.end = p.pos
			return n, nil
		default:
			return nil, p.errf("expected ',' or ']'")
		}
	}
}

// member returns the index of key in object n, or -1. It also reports
// whether the key occurs more than once: JSON.parse keeps the last one and
// Go the first, so an edit could land on a copy the agent ignores.
func (n *Node) member(key string) (idx int, dup bool) {
	idx = -1
	for i, k := range n.keys {
		if k == key {
			if idx >= 0 {
				return idx, true
			}
			idx = i
		}
	}
	return idx, false
}

// Get returns the value of member key, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.kind != '{' {
		return nil
	}
	if i, _ := n.member(key); i >= 0 {
		return n.kids[i]
	}
	return nil
}

// Raw is the source text of n (nil for a missing node).
func Raw(src []byte, n *Node) []byte {
	if n == nil {
		return nil
	}
	return src[n.start:n.end]
}

// GetString returns the string value of member key.
func (n *Node) GetString(key string) (string, bool) {
	v := n.Get(key)
	if v == nil || v.kind != '"' {
		return "", false
	}
	return v.str, true
}

// Strings is an array of strings' values; ok is false for anything else
// (nil included).
func (n *Node) Strings() (vals []string, ok bool) {
	if n == nil || n.kind != '[' {
		return nil, false
	}
	for _, k := range n.kids {
		if k.kind != '"' {
			return nil, false
		}
		vals = append(vals, k.str)
	}
	return vals, true
}

// Kind is '{' for an object, '[' an array, '"' a string, '0' a number,
// true, false or null.
func (n *Node) Kind() byte { return n.kind }

// Keys are an object's member names, in order.
func (n *Node) Keys() []string { return n.keys }

func kindName(k byte) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	default:
		return "a number, boolean or null"
	}
}

// itemStart is where item i of a container begins (its key for objects).
func (n *Node) itemStart(i int) int {
	if n.kind == '{' {
		return n.keyStart[i]
	}
	return n.kids[i].start
}

// splice returns src with src[from:to] replaced by repl.
func splice(src []byte, from, to int, repl string) []byte {
	out := make([]byte, 0, len(src)-(to-from)+len(repl))
	out = append(out, src[:from]...)
	out = append(out, repl...)
	return append(out, src[to:]...)
}

// deleteItem removes item i of container n with the separator it owns, so
// that deleting what appendItem added gives back the original bytes.
func deleteItem(src []byte, n *Node, i int) []byte {
	switch {
	case len(n.kids) == 1:
		return splice(src, n.start+1, n.end-1, "")
	case i == len(n.kids)-1:
		return splice(src, n.kids[i-1].end, n.kids[i].end, "")
	default:
		return splice(src, n.itemStart(i), n.itemStart(i+1), "")
	}
}

// layout is how to write a new item into a container.
type layout struct {
	multiline bool
	indent    string // indentation of the new item's first line
	unit      string // one level of indentation
}

// lineIndent is the run of spaces and tabs that starts the line holding off.
func lineIndent(src []byte, off int) string {
	ls := bytes.LastIndexByte(src[:off], '\n') + 1
	e := ls
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[ls:e])
}

// docUnit guesses the document's indentation step from its top-level value:
// the first member's indentation beyond the line of the opening brace.
func docUnit(src []byte, root *Node) string {
	if root != nil && (root.kind == '{' || root.kind == '[') && len(root.kids) > 0 {
		gap := src[root.start+1 : root.itemStart(0)]
		if j := bytes.LastIndexByte(gap, '\n'); j >= 0 {
			ind := string(gap[j+1:])
			base := lineIndent(src, root.start)
			if strings.HasPrefix(ind, base) && len(ind) > len(base) {
				return ind[len(base):]
			}
		}
	}
	return "  "
}

// appendItem adds text (rendered by render for the layout it is given) as
// the last item of container n.
func appendItem(src []byte, root, n *Node, render func(layout) string) []byte {
	nl := "\n"
	if bytes.Contains(src, []byte("\r\n")) {
		// a CRLF document gets CRLF lines
		nl = "\r\n"
		lf := render
		render = func(l layout) string { return strings.ReplaceAll(lf(l), "\n", nl) }
	}
	unit := docUnit(src, root)
	if k := len(n.kids); k > 0 {
		last := n.itemStart(k - 1)
		prevEnd := n.start + 1
		if k > 1 {
			prevEnd = n.kids[k-2].end
		}
		gap := src[prevEnd:last]
		if k > 1 {
			// the gap is "<ws>,<ws>"; keep what follows the comma
			if c := bytes.IndexByte(gap, ','); c >= 0 {
				gap = gap[c+1:]
			}
		}
		l := layout{unit: unit}
		if j := bytes.LastIndexByte(gap, '\n'); j >= 0 {
			l.multiline = true
			l.indent = string(gap[j+1:])
		}
		return splice(src, n.kids[k-1].end, n.kids[k-1].end, ","+string(gap)+render(l))
	}
	// empty container: open it up in the document's style
	if !bytes.ContainsRune(src, '\n') {
		return splice(src, n.start+1, n.end-1, render(layout{unit: unit}))
	}
	base := lineIndent(src, n.start)
	l := layout{multiline: true, indent: base + unit, unit: unit}
	return splice(src, n.start+1, n.end-1, nl+l.indent+render(l)+nl+base)
}

// Object is an ordered JSON object for what paddock writes.
type Object []Field

type Field struct {
	Key   string
	Value any // string, int, bool, Object, []any, []string
}

// Obj builds an Object from alternating keys and values.
func Obj(kv ...any) Object {
	if len(kv)%2 != 0 {
		panic("jsonedit: Obj needs keys and values in pairs")
	}
	o := make(Object, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		o = append(o, Field{Key: kv[i].(string), Value: kv[i+1]})
	}
	return o
}

// render writes v in the container's layout: multi-line values indent their
// inner lines from l.indent by l.unit, like json.MarshalIndent.
func render(v any, l layout) string {
	var b strings.Builder
	writeJSON(&b, v, l, l.indent)
	return b.String()
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

func writeJSON(b *strings.Builder, v any, l layout, indent string) {
	open := func(c byte, n int, item func(i int, ind string)) {
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		b.WriteByte(c)
		if n == 0 {
			b.WriteByte(end)
			return
		}
		inner := indent + l.unit
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
				if !l.multiline {
					b.WriteByte(' ')
				}
			}
			if l.multiline {
				b.WriteString("\n" + inner)
			}
			item(i, inner)
		}
		if l.multiline {
			b.WriteString("\n" + indent)
		}
		b.WriteByte(end)
	}
	switch x := v.(type) {
	case string:
		b.WriteString(jsonString(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case Field:
		b.WriteString(jsonString(x.Key) + ": ")
		writeJSON(b, x.Value, l, indent)
	case Object:
		open('{', len(x), func(i int, ind string) {
			b.WriteString(jsonString(x[i].Key) + ": ")
			writeJSON(b, x[i].Value, l, ind)
		})
	case []any:
		open('[', len(x), func(i int, ind string) { writeJSON(b, x[i], l, ind) })
	case []string:
		open('[', len(x), func(i int, ind string) { writeJSON(b, x[i], l, ind) })
	default:
		panic(fmt.Sprintf("jsonedit: cannot render %T", v))
	}
}

// canonical decodes raw JSON into plain Go values for comparing meaning
// rather than bytes.
func canonical(raw []byte) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return v
}

func canonicalOf(v any) any {
	return canonical([]byte(render(v, layout{})))
}
