package hookinstall

import (
	"fmt"
	"reflect"
)

// jsonHooks edits a hook file shaped like Claude Code's settings.json:
//
//	{"hooks": {"<Event>": [{"matcher": "*", "hooks": [<handler>, ...]}, ...]}}
//
// (nested; Codex's hooks.json too) or like Cursor's hooks.json, where each
// event lists handlers directly: {"version": 1, "hooks": {"<event>": [<handler>]}}.
type jsonHooks struct {
	nested bool
	events []jsonEvent // what paddock wants installed, in order
	ours   func(h *jnode) bool
}

type jsonEvent struct {
	name    string
	matcher string // nested only; "" writes no matcher
	handler jobj
}

// group is the array item paddock adds for one event.
func (s *jsonHooks) group(e jsonEvent) any {
	if !s.nested {
		return e.handler
	}
	g := jobj{}
	if e.matcher != "" {
		g = append(g, jfield{"matcher", e.matcher})
	}
	return append(g, jfield{"hooks", []any{e.handler}})
}

// found is one paddock handler in the file.
type found struct {
	event   string
	matcher string
	value   any
}

// scan walks the hooks object: it counts paddock's and foreign handlers and
// returns paddock's. It only reports structure it cannot read as foreign;
// refusing to edit is left to add, which needs the structure.
func (s *jsonHooks) scan(src []byte) (root, hooks *jnode, ours []found, foreign int, err error) {
	root, err = parseJSON(src)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	if root.kind != '{' {
		return nil, nil, nil, 0, fmt.Errorf("the top level is %s, expected an object", kindName(root.kind))
	}
	i, dup := root.member("hooks")
	if dup {
		return nil, nil, nil, 0, fmt.Errorf(`"hooks" appears more than once`)
	}
	if i < 0 {
		return root, nil, nil, 0, nil
	}
	hooks = root.kids[i]
	if hooks.kind != '{' {
		return nil, nil, nil, 0, fmt.Errorf(`"hooks" is %s, expected an object`, kindName(hooks.kind))
	}
	for ei, ev := range hooks.kids {
		name := hooks.keys[ei]
		if _, dup := hooks.member(name); dup {
			return nil, nil, nil, 0, fmt.Errorf(`"hooks.%s" appears more than once`, name)
		}
		if ev.kind != '[' {
			foreign++
			continue
		}
		for _, g := range ev.kids {
			if !s.nested {
				if s.ours(g) {
					ours = append(ours, found{event: name, value: canonical(src[g.start:g.end])})
				} else {
					foreign++
				}
				continue
			}
			hs := g.get("hooks")
			if hs == nil || hs.kind != '[' {
				foreign++
				continue
			}
			m, _ := g.getString("matcher")
			for _, h := range hs.kids {
				if s.ours(h) {
					ours = append(ours, found{event: name, matcher: m, value: canonical(src[h.start:h.end])})
				} else {
					foreign++
				}
			}
		}
	}
	return root, hooks, ours, foreign, nil
}

// installed says whether the file holds exactly the wanted entries, each
// once, and no other paddock entry.
func (s *jsonHooks) installed(ours []found) bool {
	if len(ours) != len(s.events) {
		return false
	}
	used := make([]bool, len(ours))
	for _, e := range s.events {
		want := canonicalOf(e.handler)
		hit := false
		for i, f := range ours {
			if !used[i] && f.event == e.name && f.matcher == e.matcher && reflect.DeepEqual(f.value, want) {
				used[i], hit = true, true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// removeOne deletes the first paddock handler, together with the group,
// event list and "hooks" object it leaves empty. ok is false when there was
// none.
func (s *jsonHooks) removeOne(src []byte) (out []byte, ok bool, err error) {
	root, hooks, _, _, err := s.scan(src)
	if err != nil || hooks == nil {
		return src, false, err
	}
	hi, _ := root.member("hooks")
	for ei, ev := range hooks.kids {
		if ev.kind != '[' {
			continue
		}
		// drop drops item gi of the event list, or the list, or "hooks".
		drop := func(gi int) []byte {
			switch {
			case len(ev.kids) > 1:
				return deleteItem(src, ev, gi)
			case len(hooks.kids) > 1:
				return deleteItem(src, hooks, ei)
			default:
				return deleteItem(src, root, hi)
			}
		}
		for gi, g := range ev.kids {
			if !s.nested {
				if s.ours(g) {
					return drop(gi), true, nil
				}
				continue
			}
			hs := g.get("hooks")
			if hs == nil || hs.kind != '[' {
				continue
			}
			mine, other := -1, 0
			for hi2, h := range hs.kids {
				if s.ours(h) {
					if mine < 0 {
						mine = hi2
					}
				} else {
					other++
				}
			}
			switch {
			case mine < 0:
				continue
			case other > 0:
				// a user put paddock's handler beside their own: take
				// out only paddock's
				return deleteItem(src, hs, mine), true, nil
			default:
				return drop(gi), true, nil
			}
		}
	}
	return src, false, nil
}

// remove deletes every paddock handler.
func (s *jsonHooks) remove(src []byte) ([]byte, error) {
	for {
		out, ok, err := s.removeOne(src)
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		// each pass removes at least one handler, so this ends
		src = out
	}
}

// add appends paddock's group to each wanted event, creating the event list
// and the "hooks" object where missing.
func (s *jsonHooks) add(src []byte) ([]byte, error) {
	root, hooks, _, _, err := s.scan(src)
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		all := jobj{}
		for _, e := range s.events {
			all = append(all, jfield{e.name, []any{s.group(e)}})
		}
		return appendItem(src, root, root, func(l layout) string { return render(jfield{"hooks", all}, l) }), nil
	}
	for _, e := range s.events {
		root, hooks, _, _, err = s.scan(src)
		if err != nil {
			return nil, err
		}
		if ev := hooks.get(e.name); ev != nil {
			if ev.kind != '[' {
				return nil, fmt.Errorf(`"hooks.%s" is %s, expected an array`, e.name, kindName(ev.kind))
			}
			src = appendItem(src, root, ev, func(l layout) string { return render(s.group(e), l) })
			continue
		}
		f := jfield{e.name, []any{s.group(e)}}
		src = appendItem(src, root, hooks, func(l layout) string { return render(f, l) })
	}
	return src, nil
}

// edit is the fileEdit of a JSON hook file.
func (s *jsonHooks) edit(src []byte, install bool) (editOut, error) {
	_, _, ours, foreign, err := s.scan(src)
	if err != nil {
		return editOut{}, err
	}
	res := editOut{out: src, ours: len(ours), foreign: foreign}
	if install && s.installed(ours) {
		return res, nil
	}
	out, err := s.remove(src)
	if err != nil {
		return editOut{}, err
	}
	if install {
		if out, err = s.add(out); err != nil {
			return editOut{}, err
		}
	}
	res.out = out
	return res, nil
}
