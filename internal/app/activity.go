package app

import (
	"context"
	"paddock/internal/store"
	"sync"
	"time"
)

// activeWithin is how recently a paired device (or an API token) must
// have been used for paddock to hold a Codex prompt for it (Codex shows its
// own prompt only once the hook answered).
const activeWithin = 15 * time.Minute

// recentlyActive reports whether a paired device or an API token was used
// lately, read at most every few seconds.
func recentlyActive(st *store.Store) func() bool {
	var mu sync.Mutex
	var at time.Time
	var active bool
	return func() bool {
		mu.Lock()
		defer mu.Unlock()
		if time.Since(at) < 5*time.Second {
			return active
		}
		at = time.Now()
		devs, err := st.ListDevices(context.Background())
		if err != nil {
			return true // unsure: hold, the hold is bounded
		}
		active = false
		for _, d := range devs {
			if !d.Revoked() && time.Since(d.LastSeenAt) < activeWithin {
				active = true
			}
		}
		if toks, err := st.ListAPITokens(context.Background()); err == nil {
			for _, t := range toks {
				if !t.Revoked() && time.Since(t.LastUsedAt) < activeWithin {
					active = true
				}
			}
		}
		return active
	}
}
