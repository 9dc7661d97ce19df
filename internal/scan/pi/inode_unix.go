//go:build unix

package pi

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number: a file replaced by another of the
// same size and mtime (a rewrite by rename) still gets a new signature.
func inode(st fs.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
