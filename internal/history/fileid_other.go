//go:build !unix

package history

import "io/fs"

// ID is unknown off Unix (0, 0); size and mtime still tell most changes.
func FileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
