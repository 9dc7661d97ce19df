//go:build !unix

package pi

import "io/fs"

// inode is unknown here; size and mtime alone sign a file.
func inode(fs.FileInfo) uint64 { return 0 }
