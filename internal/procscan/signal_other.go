//go:build !unix

package procscan

// signalZero has no portable equivalent here; liveness is unknown, reported
// as not alive so nothing is shown as running that cannot be checked.
func signalZero(pid int) bool {
	return false
}
