package historytest

import (
	"io/fs"
	"syscall"
)

// ctime is the time st's inode last changed (content, owner, mode, links):
// what a chown or chmod changes even when it leaves everything else as it
// was.
func ctime(st fs.FileInfo) (int64, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return sys.Ctimespec.Nano(), true
}
