// A summary cache keeps what a scanner read of each history file (its
// summary for the listing, a header id) together with the signature of
// the file at the time, so a rescan reads again only the files whose
// signature changed, and forgets the files it no longer lists, so the
// cache stays the size of one listing however long the history grows.
//
// It only keeps values: what counts as a file's signature (a Sig, a Sig
// with its side files', several files' stats), what a failed read leaves
// behind and which files a scan saw are the scanner's decisions.

package history

import (
	"iter"
	"maps"
	"sync"
)

// SummaryCache maps a file's path to a value read from the file at
// signature S. Its zero value is an empty cache, and it is safe for
// concurrent use; the lock is never held while a file is read, so two
// scans reading one changed file may both read it, and the later Put
// wins.
type SummaryCache[S comparable, T any] struct {
	mu sync.Mutex
	m  map[string]cached[S, T]
}

type cached[S comparable, T any] struct {
	sig S
	val T
}

// Get returns the value kept for path when it was put at sig. Any other
// signature misses: a file that grew, was touched, or was replaced by
// another file (a new inode, even with the old size and mtime) must be
// read again.
func (c *SummaryCache[S, T]) Get(path string, sig S) (T, bool) {
	c.mu.Lock()
	e, ok := c.m[path]
	c.mu.Unlock()
	if !ok || e.sig != sig {
		var zero T
		return zero, false
	}
	return e.val, true
}

// Last returns the value kept for path and the signature it was put at,
// whatever the file's signature is now: for a reader that can read a
// grown file on from where its last read ended.
func (c *SummaryCache[S, T]) Last(path string) (T, S, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[path]
	return e.val, e.sig, ok
}

// Put keeps v as what the file at path held at sig, replacing what was
// kept for path before.
func (c *SummaryCache[S, T]) Put(path string, sig S, v T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]cached[S, T])
	}
	c.m[path] = cached[S, T]{sig: sig, val: v}
}

// Forget drops what is kept for paths (files a scanner deleted), so the
// next read of any of them goes to the disk.
func (c *SummaryCache[S, T]) Forget(paths ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range paths {
		delete(c.m, p)
	}
}

// Prune forgets every path that seen does not hold (as true): call it
// with the files a scan used, so what the cache keeps is what the next
// scan is likely to ask for.
func (c *SummaryCache[S, T]) Prune(seen map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.m {
		if !seen[p] {
			delete(c.m, p)
		}
	}
}

// Paths returns the paths whose value match reports, in no order. match
// runs with the cache locked and must not use it.
func (c *SummaryCache[S, T]) Paths(match func(T) bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for p, e := range c.m {
		if match(e.val) {
			out = append(out, p)
		}
	}
	return out
}

// Len is the number of paths kept.
func (c *SummaryCache[S, T]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// All yields every path and its value as they were when All was called
// (a copy, so the caller may use the cache meanwhile), in no order.
func (c *SummaryCache[S, T]) All() iter.Seq2[string, T] {
	c.mu.Lock()
	snap := maps.Clone(c.m)
	c.mu.Unlock()
	return func(yield func(string, T) bool) {
		for p, e := range snap {
			if !yield(p, e.val) {
				return
			}
		}
	}
}
