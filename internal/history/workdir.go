// These are the listing rules about a session's working
// directory that every runtime shares: sessions of a
// throw-away directory are never listed, and sessions whose directory is
// gone cannot be resumed where they ran.
//
// It only stats directories; it never creates or changes one.

package history

import "strings"

// EphemeralDir reports a working directory under a throw-away tree (a path
// segment starting "oc-manager-": OpenConductor's manager deletes and
// re-creates such directories), whose sessions would vanish and come back
// in bulk. Both '/' and '\' separate segments: a session recorded on
// Windows names "C:\…".
func EphemeralDir(cwd string) bool {
	for seg := range strings.FieldsFuncSeq(cwd, func(r rune) bool { return r == '/' || r == '\\' }) {
		if strings.HasPrefix(seg, "oc-manager-") {
			return true
		}
	}
	return false
}

// DirMemo answers whether working directories exist, asking once per
// directory: many sessions share one, and a scan must not stat it for
// each. Use one DirMemo per scan, so a directory deleted since the last scan
// is seen to be gone. It is not safe for concurrent use.
type DirMemo struct {
	exists  func(dir string) bool
	checked map[string]bool
}

// NewDirMemo returns an empty Memo that asks exists (a scanner's stat, or a
// test's stand-in) about each new directory.
func NewDirMemo(exists func(dir string) bool) *DirMemo {
	return &DirMemo{exists: exists, checked: make(map[string]bool)}
}

// Exists reports whether dir exists, from the first answer for dir. An
// unknown directory ("") is never held against a session: it counts as
// existing and is not asked about.
func (m *DirMemo) Exists(dir string) bool {
	if dir == "" {
		return true
	}
	ok, seen := m.checked[dir]
	if !seen {
		ok = m.exists(dir)
		m.checked[dir] = ok
	}
	return ok
}

// Checked returns every directory asked about and its answer: what a
// scanner keeps to tell, next time, whether any of them changed. The map
// is the Memo's own; the caller owns it once the scan is done.
func (m *DirMemo) Checked() map[string]bool { return m.checked }

// Listable is the listing rule every runtime applies to a session's
// working directory: never an ephemeral one; otherwise a session still
// running (live) or a scanner told to keep them (keepMissing, for
// recordings whose directories are elsewhere) is listed, and any other
// only while its directory exists.
func (m *DirMemo) Listable(cwd string, live, keepMissing bool) bool {
	if EphemeralDir(cwd) {
		return false
	}
	return live || keepMissing || m.Exists(cwd)
}
