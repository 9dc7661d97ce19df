//go:build unix

package history

import (
	"io/fs"
	"syscall"
)

// FileID returns the device and inode number of the file st describes: a file
// replaced by rename keeps its size and perhaps its mtime, but not these.
func FileID(st fs.FileInfo) (dev, ino uint64) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Dev), uint64(sys.Ino)
	}
	return 0, 0
}
