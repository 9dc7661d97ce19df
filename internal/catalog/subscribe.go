package catalog

import (
	"slices"
	"sync"

	"paddock/internal/session"
)

// Change tells a subscriber which sessions to re-read with Get or List.
// Full means "re-read everything": sent after the first scan, and in place
// of the changes a subscriber was too slow to take.
type Change struct {
	Updated []session.Key // added or changed
	Removed []session.Key
	Full    bool
}

// subscriberBuffer is how many Changes a subscriber may fall behind before
// its queue collapses into one Full change.
const subscriberBuffer = 16

type subscriber struct {
	ch chan Change
}

// Subscribe returns a channel of Changes and a func that unsubscribes and
// closes the channel (safe to call more than once). The catalog never waits
// for a subscriber: when its buffer is full, the queued changes are replaced
// by a single Full change, which is what a reader that fell behind needs.
func (c *Catalog) Subscribe() (<-chan Change, func()) {
	s := &subscriber{ch: make(chan Change, subscriberBuffer)}
	c.subMu.Lock()
	c.subs[s] = struct{}{}
	c.subMu.Unlock()
	var once sync.Once
	return s.ch, func() {
		once.Do(func() {
			// Under subMu so publish never sends on the closed channel.
			c.subMu.Lock()
			delete(c.subs, s)
			close(s.ch)
			c.subMu.Unlock()
		})
	}
}

// publish hands ch to every subscriber without blocking. Only publish sends
// on subscriber channels and it holds subMu, so after draining a full
// channel there is room for the Full change even while the reader takes
// items concurrently.
func (c *Catalog) publish(ch Change) {
	c.subMu.Lock()
	defer c.subMu.Unlock()
	for s := range c.subs {
		// Each subscriber gets its own slices: one may not alter another's.
		own := Change{Updated: slices.Clone(ch.Updated), Removed: slices.Clone(ch.Removed), Full: ch.Full}
		select {
		case s.ch <- own:
			continue
		default:
		}
	drain:
		for {
			select {
			case <-s.ch:
			default:
				break drain
			}
		}
		select {
		case s.ch <- Change{Full: true}:
		default: // unreachable (see above); never block regardless
		}
	}
}
