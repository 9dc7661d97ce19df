package decisions

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"paddock/internal/store"
)

// Run owns the expiry timer until ctx ends, then returns nil: an item past
// its Expires becomes Expired and its hook gets that Outcome, so the
// agent's own prompt takes over (never a silent deny). It also forgets
// items resolved more than Keep ago. Call it once.
func (b *Broker) Run(ctx context.Context) error {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-b.wake:
		}
		timer.Reset(b.sweep(ctx))
	}
}

// sweep expires the items due, prunes old resolved ones and returns how
// long Run may sleep before the next is due.
func (b *Broker) sweep(ctx context.Context) time.Duration {
	now := b.now()
	next := maxSleep
	var due []*entry
	b.mu.Lock()
	for id, e := range b.items {
		switch {
		case e.item.Waiting() && e.recording != nil:
			// A decision is being recorded; if it is refused, Decide
			// pokes Run to look again.
		case e.item.Waiting() && !e.item.Expires.IsZero():
			if d := e.item.Expires.Sub(now); d <= 0 {
				due = append(due, e)
			} else {
				next = min(next, d)
			}
		case !e.item.Waiting() && now.Sub(e.item.ResolvedAt) >= b.keep:
			delete(b.items, id)
		}
	}
	slices.SortFunc(due, func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
	expired := make([]Item, 0, len(due))
	for _, e := range due {
		expired = append(expired, b.settleLocked(e, resolve(e.item, Expired, byPaddock, Decision{}, now), Decision{}))
	}
	prune := now.Sub(b.lastPrune) >= pruneEvery
	if prune {
		b.lastPrune = now
	}
	b.mu.Unlock()

	for _, it := range expired {
		b.logger.Info("expired", "item", it.ID, "kind", it.Kind, "session", it.Key.String())
		b.record(ctx, it)
	}
	if p, ok := b.persist.(pruner); ok && prune {
		wctx, cancel := writeCtx(ctx, writeTimeout)
		if _, err := p.PrunePendingItems(wctx, now.Add(-b.keep)); err != nil {
			b.logger.Error("prune stored items", "err", err)
		}
		cancel()
	}
	return next
}

// Restore loads the items of a previous run: those it left pending become
// Expired (their hooks are gone; the agents' own prompts took over) and,
// like those resolved within Keep, stay listed. Call it at start-up,
// before serving.
func (b *Broker) Restore(ctx context.Context) error {
	if b.persist == nil {
		return nil
	}
	now := b.now()
	rows, err := b.persist.PendingItems(ctx, now.Add(-b.keep))
	if err != nil {
		return fmt.Errorf("pending: restore: %w", err)
	}
	var expired []Item
	var unreadable []store.PendingItem
	b.mu.Lock()
	for _, r := range rows {
		if b.items[r.ID] != nil || b.opening[r.ID] {
			continue // this run's own
		}
		it, err := fromRow(r)
		if err != nil {
			b.logger.Warn("unreadable stored item", "item", r.ID, "err", err)
			if r.Resolution == "" {
				unreadable = append(unreadable, r)
			}
			continue
		}
		if it.Waiting() {
			it.Resolution, it.ResolvedBy, it.ResolvedAt = Expired, byPaddock, now
			it.Message, it.Answers = "", nil
			expired = append(expired, it)
			b.bc.Publish(it)
		}
		b.seq++
		b.items[it.ID] = &entry{item: it, seq: b.seq}
	}
	b.mu.Unlock()

	for _, it := range expired {
		b.record(ctx, it)
	}
	// An unreadable row still must not stay pending for ever.
	for _, r := range unreadable {
		wctx, cancel := writeCtx(ctx, writeTimeout)
		if _, err := b.persist.ResolvePendingItem(wctx, r.ID, string(Expired), byPaddock, now, r.Data); err != nil {
			b.logger.Error("expire unreadable stored item", "item", r.ID, "err", err)
		}
		cancel()
	}
	if len(expired) > 0 {
		b.logger.Info("expired items a previous run left pending", "count", len(expired))
	}
	return nil
}
