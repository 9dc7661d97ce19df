package catalog

import (
	"slices"

	"paddock/internal/broadcast"
	"paddock/internal/session"
)

// Change is session.Change: which sessions to re-read with Get or List.
type Change = session.Change

func newBroadcaster() *broadcast.Broadcaster[Change] {
	return broadcast.New(func() Change { return Change{Full: true} }, func(c Change) Change {
		return Change{Updated: slices.Clone(c.Updated), Removed: slices.Clone(c.Removed), Full: c.Full}
	})
}

// Subscribe returns a channel of Changes and a func that unsubscribes and
// closes the channel (safe to call more than once). The catalog never waits
// for a subscriber: when its buffer is full, the queued changes are replaced
// by a single Full change, which is what a reader that fell behind needs.
func (c *Catalog) Subscribe() (<-chan Change, func()) { return c.changes.Subscribe() }

func (c *Catalog) publish(ch Change) { c.changes.Publish(ch) }
