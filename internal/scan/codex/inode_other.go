//go:build !unix

package codex

import "io/fs"

// inode is unknown here; size and mtime still tell most changes.
func inode(fs.FileInfo) uint64 { return 0 }
