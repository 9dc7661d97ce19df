//go:build !linux

package procscan

// StartTicks needs /proc; elsewhere it reports ErrUnsupported, so a caller
// that insists on a start-time match treats the process as not verifiable.
func StartTicks(pid int) (string, error) {
	return "", ErrUnsupported
}

// Alive reports whether pid names a running process (null signal where the
// platform has one).
func Alive(pid int) bool {
	return signalZero(pid)
}
