//go:build unix

package hookinstall

import (
	"os"
	"syscall"
)

// keepOwner gives the temp file the original's owner and group, so that
// running paddock as root on a user's config does not hand it to root.
func keepOwner(tmp *os.File, orig string) error {
	st, err := os.Stat(orig)
	if err != nil {
		return err
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(sys.Uid) == os.Geteuid() {
		return nil // our own file; a non-root user could not chown anyway
	}
	return tmp.Chown(int(sys.Uid), int(sys.Gid))
}
