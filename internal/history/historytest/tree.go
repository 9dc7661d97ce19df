// Package historytest holds test helpers the runtime scanners share. It is
// imported only from _test.go files.
package historytest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Tree says how TreeState records a tree. The zero Tree records every
// entry in full.
type Tree struct {
	// Omit, when set, leaves the paths it reports out of the state: files a
	// reader may legitimately create and remove (SQLite's -shm), so not even
	// their creation counts as a change.
	Omit func(path string) bool
	// PresenceOnly, when set, records the paths it reports as present
	// only: their content and stat may change (SQLite's shared-memory index
	// in -shm), but their creation or removal still shows.
	PresenceOnly func(path string) bool
}

// State records every entry under root: mode, size, mtime, ctime (where
// the platform has one, see HasCtime) and a sha256 of a regular file's
// contents. Directories are included, so a created or removed file also
// shows as a changed directory mtime. The ctime catches what leaves bytes
// and mtime alone: a chown to the same owner, a chmod, a new link.
// Comparing the states before and after (SameTree) proves a scanner left
// an agent's files exactly as they were.
func (tr Tree) State(tb testing.TB, root string) map[string]string {
	tb.Helper()
	state := make(map[string]string)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if tr.Omit != nil && tr.Omit(path) {
			return nil
		}
		if tr.PresenceOnly != nil && tr.PresenceOnly(path) {
			state[path] = "present"
			return nil
		}
		st, err := os.Lstat(path)
		if err != nil {
			return err
		}
		sum := ""
		if st.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			sum = hex.EncodeToString(h[:])
		}
		ct, _ := ctime(st)
		state[path] = fmt.Sprintf("%v size=%d mtime=%d ctime=%d %s", st.Mode(), st.Size(), st.ModTime().UnixNano(), ct, sum)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return state
}

// HasCtime reports whether this platform's stat gives a change time, so
// that State records it.
func HasCtime() bool {
	st, err := os.Stat(".")
	if err != nil {
		return false
	}
	_, ok := ctime(st)
	return ok
}

// TreeState is Tree{}.State: every entry under root, in full.
func TreeState(tb testing.TB, root string) map[string]string {
	tb.Helper()
	return Tree{}.State(tb, root)
}

// SameTree reports, as test errors, every entry that changed between two
// states and every entry created since.
func SameTree(tb testing.TB, before, after map[string]string) {
	tb.Helper()
	for _, p := range slices.Sorted(maps.Keys(before)) {
		if after[p] != before[p] {
			tb.Errorf("%s changed:\n  before %s\n  after  %s", p, before[p], after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			tb.Errorf("%s created", p)
		}
	}
}
