package jsonedit

import (
	"bytes"
	"fmt"
	"reflect"
)

// Member is one named entry of an object at the top level of a config
// (an MCP server under "mcpServers"): set to Value on install, taken out
// on uninstall, every other byte kept. An entry of that name that Ours
// does not recognise is someone else's and is never changed.
type Member struct {
	Container string // the top-level key holding the entries ("mcpServers")
	Name      string // the entry's key ("paddock")
	Value     Object
	Ours      func(n *Node) bool
}

// MemberResult is an edited file and what was found in the old one.
type MemberResult struct {
	Out     []byte
	Ours    int  // 1 when paddock's entry was there
	Foreign int  // the container's other entries (kept)
	Taken   bool // Name holds an entry that is not paddock's (left as it is)
}

func (m *Member) scan(src []byte) (root, c *Node, idx int, err error) {
	root, err = Parse(src)
	if err != nil {
		return nil, nil, -1, err
	}
	if root.kind != '{' {
		return nil, nil, -1, fmt.Errorf("the top level is %s, expected an object", kindName(root.kind))
	}
	i, dup := root.member(m.Container)
	if dup {
		return nil, nil, -1, fmt.Errorf("%q appears more than once", m.Container)
	}
	if i < 0 {
		return root, nil, -1, nil
	}
	c = root.kids[i]
	if c.kind != '{' {
		return nil, nil, -1, fmt.Errorf("%q is %s, expected an object", m.Container, kindName(c.kind))
	}
	idx, dup = c.member(m.Name)
	if dup {
		return nil, nil, -1, fmt.Errorf("%q appears more than once in %q", m.Name, m.Container)
	}
	return root, c, idx, nil
}

// Edit sets paddock's entry (install) or takes it out, and with it the
// container when that leaves it empty. A file already holding exactly the
// entry is returned as it is.
func (m *Member) Edit(src []byte, install bool) (MemberResult, error) {
	root, c, idx, err := m.scan(src)
	if err != nil {
		return MemberResult{}, err
	}
	res := MemberResult{Out: src}
	if c != nil {
		res.Foreign = len(c.kids)
	}
	if idx >= 0 {
		if !m.Ours(c.kids[idx]) {
			res.Taken = true
			return res, nil
		}
		res.Ours, res.Foreign = 1, res.Foreign-1
	}
	switch {
	case install && idx >= 0:
		e := c.kids[idx]
		if reflect.DeepEqual(canonical(src[e.start:e.end]), canonicalOf(m.Value)) {
			return res, nil
		}
		l := layout{multiline: bytes.ContainsRune(src[c.start:c.end], '\n'), indent: lineIndent(src, c.keyStart[idx]), unit: docUnit(src, root)}
		res.Out = splice(src, e.start, e.end, render(m.Value, l))
	case install && c == nil:
		res.Out = appendItem(src, root, root, func(l layout) string {
			return render(Field{m.Container, Object{{m.Name, m.Value}}}, l)
		})
	case install:
		res.Out = appendItem(src, root, c, func(l layout) string { return render(Field{m.Name, m.Value}, l) })
	case idx >= 0 && len(c.kids) == 1:
		// paddock's was the only entry: the container goes too
		ci, _ := root.member(m.Container)
		res.Out = deleteItem(src, root, ci)
	case idx >= 0:
		res.Out = deleteItem(src, c, idx)
	}
	return res, nil
}
