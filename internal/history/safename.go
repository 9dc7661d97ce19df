// SafeName checks a name that arrives from outside (a URL, a
// command line, a file an agent wrote) before a path or a glob pattern is
// built from it.

package history

// SafeName reports whether name is 1 to max ASCII letters, digits, '-' or
// '_': nothing that could climb out of a directory (separators, dots) or
// act as a glob character.
func SafeName(name string, max int) bool {
	if name == "" || len(name) > max {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
