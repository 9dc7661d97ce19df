//go:build !unix

package opencode

import "os"

// fileID is unknown here; size and mtime still identify a version.
func fileID(os.FileInfo) (dev, ino uint64) { return 0, 0 }
