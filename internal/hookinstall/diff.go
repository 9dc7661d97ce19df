package hookinstall

import udiff "github.com/aymanbagabas/go-udiff"

// unifiedDiff renders the change from old to new as a unified diff with
// three lines of context, for the user to read before a change and for
// patch(1). A side that does not exist is /dev/null.
func unifiedDiff(path string, old, new []byte, oldExists, newExists bool) string {
	oldName, newName := path, path
	if !oldExists {
		oldName = "/dev/null"
	}
	if !newExists {
		newName = "/dev/null"
	}
	return udiff.Unified(oldName, newName, string(old), string(new))
}
