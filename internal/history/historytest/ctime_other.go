//go:build !linux && !darwin

package historytest

import "io/fs"

// ctime is not read on this platform: states record no change time.
func ctime(fs.FileInfo) (int64, bool) { return 0, false }
