//go:build unix

package catalog

import (
	"os"
	"syscall"
)

// fileID returns the device and inode of a stat result.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // types differ by platform
	}
	return 0, 0
}
