package pi

import (
	"strings"
)

const (
	// maxTitleRunes keeps a title to one line on a phone.
	maxTitleRunes = 120
	// maxPromptRunes bounds FirstPrompt and LastPrompt: a prompt with a
	// pasted file (@file) must not make every list entry huge.
	maxPromptRunes = 2000
	// maxIDBytes bounds a header id. Pi writes UUIDs; anything much longer
	// is not an id paddock can put in a URL.
	maxIDBytes = 128
)

// validID reports whether a header id can name a session in paddock: it
// ends up in URLs (/s/pi/{id}) and session keys, so it must be short,
// printable ASCII without separators or white space. Pi writes UUIDs
// (v7 since 0.7x); custom ids of newer versions fit the same rule.
func validID(id string) bool {
	if id == "" || len(id) > maxIDBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == ':'
		if !ok {
			return false
		}
	}
	return id != "." && id != ".."
}

// Legacy isolation folders: corral (an earlier session host for Pi) once gave
// each hosted Pi session its own folder under sessions/ (corral-<ident>/,
// pickup-<ident>/). Their files are newer than the per-cwd folders' and
// would push those out of a single limit, so they get their own quota
// until they are gone.
var isolationPrefixes = []string{"corral-", "pickup-"}

// isolated reports whether rel (a path relative to sessions/) lies in a
// legacy isolation folder.
func isolated(rel string) bool {
	segs := strings.Split(rel, "/")
	for _, seg := range segs[:len(segs)-1] { // directories only, not the file
		for _, p := range isolationPrefixes {
			if strings.HasPrefix(seg, p) {
				return true
			}
		}
	}
	return false
}
