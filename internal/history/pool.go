// The stat pass of a scan — listing every history directory and stat-ing
// each file in it — is the only part of a scan that grows with the size
// of the history. Each runs it on a few goroutines, so the kernel work of
// different directories overlaps, and lets a cancelled scan stop between
// directories.

package history

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// StatWorkers is how many goroutines a stat pass runs at the most: a few
// overlap the syscalls of different directories; more add nothing on a
// small machine.
const StatWorkers = 4

// Each calls fn(i) for every i from 0 to n-1, on at most workers
// goroutines and never more than GOMAXPROCS or n, and returns once every
// call it started has returned. The calls take the indexes in order, each
// on whichever goroutine is free. Once ctx is done no further call starts
// and Each returns ctx.Err(): the caller must not trust results that some
// calls never wrote.
func Each(ctx context.Context, workers, n int, fn func(i int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// Gather calls fn for every item as Each does and joins what the calls
// return in the order of items, whatever order they ran in (a stat pass
// over directories, each giving its files). It returns ctx.Err() and no
// results when ctx ended before every call was made.
func Gather[T, R any](ctx context.Context, workers int, items []T, fn func(T) []R) ([]R, error) {
	per := make([][]R, len(items))
	if err := Each(ctx, workers, len(items), func(i int) { per[i] = fn(items[i]) }); err != nil {
		return nil, err
	}
	return slices.Concat(per...), nil
}
