//go:build unix

package hookchannel

import (
	"syscall"
	"time"
)

// ProcessStart estimates when this process started, for a budget that
// counts the time before main too: the runtime and the linked packages'
// initialisation take most of a relay's life (about 20 ms, mostly CPU).
// The CPU time used so far stands in for it — one syscall, no /proc — and
// is capped so that a wrong estimate can only shorten the budget a little.
func ProcessStart(now time.Time) time.Time {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return now
	}
	used := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return now.Add(-min(max(used, 0), maxPreMain))
}
