//go:build unix

package kimi

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number: a file replaced by a rename keeps
// its size and perhaps its mtime, but not its inode.
func inode(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
