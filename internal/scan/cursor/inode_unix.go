//go:build unix

package cursor

import (
	"io/fs"
	"syscall"
)

// inode returns a file's inode number: with size and mtime it tells a file
// replaced by rename from the one that was there.
func inode(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
