//go:build linux

package procscan

// SplitCmdline is splitCmdline, for the external tests.
var SplitCmdline = splitCmdline
