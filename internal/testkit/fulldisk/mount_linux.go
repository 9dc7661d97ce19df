package fulldisk

import (
	"strconv"
	"syscall"
)

func mount(dir string, size int64) error {
	return syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "size="+strconv.FormatInt(size, 10)+",mode=0700")
}

// unmount detaches at once: a database a test left open must not keep
// the clean-up waiting.
func unmount(dir string) error { return syscall.Unmount(dir, syscall.MNT_DETACH) }
