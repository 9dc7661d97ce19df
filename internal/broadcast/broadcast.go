// Package broadcast fans values out to subscribers without ever waiting for
// one: the catalog and the live-state owner both tell many websocket
// clients what changed, and a slow reader must not hold up the producer or
// the other readers.
package broadcast

import "sync"

// Buffer is how many values a subscriber may fall behind before its queue
// collapses into the single value Overflow returns.
const Buffer = 16

// Broadcaster delivers each Publish to every subscriber. The zero value is
// not usable; create one with New.
type Broadcaster[T any] struct {
	overflow func() T
	clone    func(T) T

	mu   sync.Mutex
	subs map[chan T]struct{}
}

// New returns a Broadcaster. overflow is what a subscriber that fell
// behind gets in place of its queued values ("re-read everything"); clone,
// when not nil, copies a value for each subscriber so one reader cannot
// alter what another sees (values holding slices).
func New[T any](overflow func() T, clone func(T) T) *Broadcaster[T] {
	return &Broadcaster[T]{overflow: overflow, clone: clone, subs: map[chan T]struct{}{}}
}

// Subscribe returns a channel of values and a func that unsubscribes and
// closes the channel (safe to call more than once).
func (b *Broadcaster[T]) Subscribe() (<-chan T, func()) {
	ch := make(chan T, Buffer)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	b.mu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			// Under mu so Publish never sends on the closed channel.
			b.mu.Lock()
			delete(b.subs, ch)
			close(ch)
			b.mu.Unlock()
		})
	}
}

// Publish hands v to every subscriber without blocking. Only Publish sends
// on subscriber channels and it holds mu, so after draining a full channel
// there is room for the overflow value even while the reader takes items
// concurrently.
func (b *Broadcaster[T]) Publish(v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for ch := range b.subs {
		own := v
		if b.clone != nil {
			own = b.clone(v)
		}
		select {
		case ch <- own:
			continue
		default:
		}
	drain:
		for {
			select {
			case <-ch:
			default:
				break drain
			}
		}
		select {
		case ch <- b.overflow():
		default: // unreachable (see above); never block regardless
		}
	}
}

// Len is the number of subscribers.
func (b *Broadcaster[T]) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}
