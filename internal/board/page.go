package board

import (
	"cmp"
	"errors"
	"strconv"
	"strings"
	"time"

	"paddock/internal/session"
)

// ErrBadCursor is a cursor Page did not make.
var ErrBadCursor = errors.New("board: not a cursor of this list")

// Select narrows a Page beyond Filter: by whether the session runs (its
// agent is not done with it) and by its state class (State). Zero values
// mean "any".
type Select struct {
	Filter
	Live  *bool
	State string
}

func (s Select) keeps(e Entry) bool {
	if s.Live != nil && e.Over() == *s.Live {
		return false
	}
	if s.State != "" {
		if cls, _ := e.State(); cls != s.State {
			return false
		}
	}
	return true
}

// Page is at most limit entries of the board's list, newest activity
// first, starting after cursor ("" for the first page), and the cursor of
// the page after it ("" when this one is the last). A cursor names the
// position of the last entry it was given (its time and key), not an
// index, so a page neither skips nor repeats an entry when sessions ahead
// of it move to the top meanwhile; an entry whose activity moved it past
// the cursor is on an earlier page by then.
func (b *Board) Page(s Select, cursor string, limit int) ([]Entry, string, error) {
	var after position
	if cursor != "" {
		var ok bool
		if after, ok = parseCursor(cursor); !ok {
			return nil, "", ErrBadCursor
		}
	}
	var out []Entry
	es := b.List(s.Filter)
	for i := range es {
		e := &es[i]
		if cursor != "" && !after.before(positionOf(e)) {
			continue
		}
		if !s.keeps(*e) {
			continue
		}
		if limit > 0 && len(out) == limit {
			return out, cursorOf(positionOf(&out[len(out)-1])), nil
		}
		out = append(out, *e)
	}
	return out, "", nil
}

// position is where an entry stands in the list: newest time first, then
// by key.
type position struct {
	t   int64 // SortTime, Unix nanoseconds
	key session.Key
}

func positionOf(e *Entry) position { return position{t: e.SortTime().UnixNano(), key: e.Key()} }

// before reports whether p comes before q in the list.
func (p position) before(q position) bool {
	if p.t != q.t {
		return p.t > q.t
	}
	return p.key.Compare(q.key) < 0
}

func comparePositions(a, b position) int {
	if a.t != b.t {
		return cmp.Compare(b.t, a.t)
	}
	return a.key.Compare(b.key)
}

// cursorOf is p as text: "<nanos>.<runtime>.<id>", the runtime and id
// escaped so that no dot of theirs is taken for the separator.
func cursorOf(p position) string {
	return strconv.FormatInt(p.t, 36) + "." + escape(p.key.Runtime) + "." + escape(p.key.ID)
}

func parseCursor(s string) (position, bool) {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return position{}, false
	}
	t, err := strconv.ParseInt(parts[0], 36, 64)
	rt, ok1 := unescape(parts[1])
	id, ok2 := unescape(parts[2])
	if err != nil || !ok1 || !ok2 || rt == "" || id == "" || t > time.Now().Add(100*365*24*time.Hour).UnixNano() {
		return position{}, false
	}
	return position{t: t, key: session.Key{Runtime: rt, ID: id}}, true
}

// escape writes '%' and '.' as %25 and %2E; everything else stays.
func escape(s string) string {
	return strings.NewReplacer("%", "%25", ".", "%2E").Replace(s)
}

func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		switch s[i+1 : i+3] {
		case "25":
			b.WriteByte('%')
		case "2E":
			b.WriteByte('.')
		default:
			return "", false
		}
		i += 2
	}
	return b.String(), true
}
