// A file signature tells one version of a file from another by its stat
// alone (size, mtime, inode), so a scanner can keep what it read of a file
// until the file changes without reading it again to find out.
//
// It only stats: it never opens, reads or writes the files it signs.

package history

import (
	"io/fs"
	"os"
	"time"
)

// Sig identifies one version of a file: an append changes the size and
// mtime, a rewrite by rename the inode (which may keep both).
type Sig struct {
	Size    int64
	MtimeNs int64
	Ino     uint64 // 0 where the platform has none (see ID)
}

// SigOf is the signature of the file st describes.
func SigOf(st fs.FileInfo) Sig {
	_, ino := FileID(st)
	return Sig{Size: st.Size(), MtimeNs: st.ModTime().UnixNano(), Ino: ino}
}

// StatSig is the signature of the file at path (following links); the zero
// Sig when it cannot be stat'ed, so a missing file signs as one state.
func StatSig(path string) Sig {
	st, err := os.Stat(path)
	if err != nil {
		return Sig{}
	}
	return SigOf(st)
}

// Mtime is the modification time the signature holds.
func (s Sig) Mtime() time.Time { return time.Unix(0, s.MtimeNs) }
