//go:build unix

package opencode

import (
	"os"
	"syscall"
)

// fileID returns the device and inode of fi: a database replaced by rename
// keeps its size and may keep its mtime, but not its inode.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
