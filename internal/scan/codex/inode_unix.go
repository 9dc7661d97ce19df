//go:build unix

package codex

import (
	"io/fs"
	"syscall"
)

// inode returns the file's inode number, so a file replaced by another of
// the same size and mtime still counts as changed.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
