package catalog

import (
	"cmp"
	"slices"
	"strings"

	"paddock/internal/session"
)

// Filter narrows List. Zero values mean "any".
type Filter struct {
	Runtime string
	Live    *bool  // only live (true) or only not live (false) sessions
	Query   string // case-insensitive substring of title, project, cwd or first prompt
	Limit   int    // at most this many; <= 0 is no limit
}

// entry is a listed session with its search text lowered once per change,
// so a query typed on the phone costs no allocation per session.
type entry struct {
	info   session.Info
	search string
}

func newEntry(info session.Info) entry {
	// NUL between fields keeps a query from matching across two of them.
	s := strings.ToLower(info.Title + "\x00" + info.Project + "\x00" + info.Cwd + "\x00" + info.FirstPrompt)
	return entry{info: info, search: s}
}

// List returns copies of the matching sessions, newest effective time first
// (Updated descending, ties by key so the order is total and repeatable).
//
// A rule some session lists follow — an already-seen session keeps its
// position — is deliberately not applied: it exists
// so a TUI sidebar does not jump under the cursor, while paddock's board is
// sorted by activity on purpose — the session that just moved belongs on top.
func (c *Catalog) List(f Filter) []session.Info {
	q := strings.ToLower(strings.TrimSpace(f.Query))
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []session.Info
	if f.Limit > 0 {
		out = make([]session.Info, 0, min(f.Limit, len(c.sorted)))
	}
	for i := range c.sorted {
		e := &c.sorted[i]
		if f.Runtime != "" && e.info.Runtime != f.Runtime {
			continue
		}
		if f.Live != nil && e.info.Live != *f.Live {
			continue
		}
		if q != "" && !strings.Contains(e.search, q) {
			continue
		}
		out = append(out, e.info) // Info holds no references: appending copies it
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
	}
	return out
}

// compareEntries orders newest first, then by runtime and ID.
func compareEntries(a, b entry) int {
	if c := b.info.Updated.Compare(a.info.Updated); c != 0 {
		return c
	}
	if c := cmp.Compare(a.info.Runtime, b.info.Runtime); c != 0 {
		return c
	}
	return cmp.Compare(a.info.ID, b.info.ID)
}

// rebuildSorted recomputes the sorted view; the caller holds c.mu for writing.
// A full rebuild is fine: it runs after a rescan, not per board frame, and
// sorts 10,000 sessions in a few milliseconds.
func (c *Catalog) rebuildSorted() {
	n := 0
	for _, m := range c.byRuntime {
		n += len(m)
	}
	sorted := make([]entry, 0, n)
	for _, m := range c.byRuntime {
		for _, info := range m {
			sorted = append(sorted, newEntry(info))
		}
	}
	slices.SortFunc(sorted, compareEntries)
	all := make([]session.Info, len(sorted))
	for i := range sorted {
		all[i] = sorted[i].info
	}
	c.sorted, c.all = sorted, all
}

// All is every listed session, newest first (List's order), as one shared
// snapshot: the caller must not change it. It costs nothing per call, for
// a board that reads the whole list at every change; a rescan replaces
// the snapshot rather than changing it.
func (c *Catalog) All() []session.Info {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.all
}
