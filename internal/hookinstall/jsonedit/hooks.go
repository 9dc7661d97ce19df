package jsonedit

import (
	"fmt"
	"reflect"
)

// Hooks edits a hook file shaped like Claude Code's settings.json:
//
//	{"hooks": {"<Event>": [{"matcher": "*", "hooks": [<handler>, ...]}, ...]}}
//
// (nested; Codex's hooks.json too) or like Cursor's hooks.json, where each
// event lists handlers directly: {"version": 1, "hooks": {"<event>": [<handler>]}}.
type Hooks struct {
	Nested bool
	Events []Event            // what paddock wants installed, in order
	Ours   func(h *Node) bool // recognises paddock's own handler objects
}

// Event is one handler paddock wants for an event.
type Event struct {
	Name    string
	Matcher string // nested only; "" writes no matcher
	Handler Object
}

// group is the array item paddock adds for one event.
func (s *Hooks) group(e Event) any {
	if !s.Nested {
		return e.Handler
	}
	g := Object{}
	if e.Matcher != "" {
		g = append(g, Field{"matcher", e.Matcher})
	}
	return append(g, Field{"hooks", []any{e.Handler}})
}

// foundHandler is one paddock handler in the file.
type foundHandler struct {
	event   string
	matcher string
	value   any
}

// scan walks the hooks object: it counts paddock's and foreign handlers and
// returns paddock's. It only reports structure it cannot read as foreign;
// refusing to edit is left to add, which needs the structure.
func (s *Hooks) scan(src []byte) (root, hooks *Node, ours []foundHandler, foreign int, err error) {
	root, err = Parse(src)
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
			if !s.Nested {
				if s.Ours(g) {
					ours = append(ours, foundHandler{event: name, value: canonical(src[g.start:g.end])})
				} else {
					foreign++
				}
				continue
			}
			hs := g.Get("hooks")
			if hs == nil || hs.kind != '[' {
				foreign++
				continue
			}
			m, _ := g.GetString("matcher")
			for _, h := range hs.kids {
				if s.Ours(h) {
					ours = append(ours, foundHandler{event: name, matcher: m, value: canonical(src[h.start:h.end])})
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
func (s *Hooks) installed(ours []foundHandler) bool {
	if len(ours) != len(s.Events) {
		return false
	}
	used := make([]bool, len(ours))
	for _, e := range s.Events {
		want := canonicalOf(e.Handler)
		hit := false
		for i, f := range ours {
			if !used[i] && f.event == e.Name && f.matcher == e.Matcher && reflect.DeepEqual(f.value, want) {
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
func (s *Hooks) removeOne(src []byte) (out []byte, ok bool, err error) {
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
			if !s.Nested {
				if s.Ours(g) {
					return drop(gi), true, nil
				}
				continue
			}
			hs := g.Get("hooks")
			if hs == nil || hs.kind != '[' {
				continue
			}
			mine, other := -1, 0
			for hi2, h := range hs.kids {
				if s.Ours(h) {
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
func (s *Hooks) remove(src []byte) ([]byte, error) {
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
func (s *Hooks) add(src []byte) ([]byte, error) {
	root, hooks, _, _, err := s.scan(src)
	if err != nil {
		return nil, err
	}
	if hooks == nil {
		all := Object{}
		for _, e := range s.Events {
			all = append(all, Field{e.Name, []any{s.group(e)}})
		}
		return appendItem(src, root, root, func(l layout) string { return render(Field{"hooks", all}, l) }), nil
	}
	for _, e := range s.Events {
		root, hooks, _, _, err = s.scan(src)
		if err != nil {
			return nil, err
		}
		if ev := hooks.Get(e.Name); ev != nil {
			if ev.kind != '[' {
				return nil, fmt.Errorf(`"hooks.%s" is %s, expected an array`, e.Name, kindName(ev.kind))
			}
			src = appendItem(src, root, ev, func(l layout) string { return render(s.group(e), l) })
			continue
		}
		f := Field{e.Name, []any{s.group(e)}}
		src = appendItem(src, root, hooks, func(l layout) string { return render(f, l) })
	}
	return src, nil
}

// Result is an edited hook file and what was foundHandler in the old one.
type Result struct {
	Out     []byte
	Ours    int // paddock handlers foundHandler
	Foreign int // other handlers foundHandler (kept)
}

// Edit installs paddock's handlers in src (install), or removes them:
// every paddock handler is taken out, with the group, event list and
// "hooks" object it leaves empty, and install then appends the wanted
// ones. A file already holding exactly the wanted handlers is returned
// as it is.
func (s *Hooks) Edit(src []byte, install bool) (Result, error) {
	_, _, ours, foreign, err := s.scan(src)
	if err != nil {
		return Result{}, err
	}
	res := Result{Out: src, Ours: len(ours), Foreign: foreign}
	if install && s.installed(ours) {
		return res, nil
	}
	out, err := s.remove(src)
	if err != nil {
		return Result{}, err
	}
	if install {
		if out, err = s.add(out); err != nil {
			return Result{}, err
		}
	}
	res.Out = out
	return res, nil
}
