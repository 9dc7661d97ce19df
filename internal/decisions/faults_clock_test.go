package decisions

import (
	"context"
	"testing"
	"time"
)

// TestFaultClockStepsExpiry: the broker's clock is set back, then forward,
// by hours. Set back, nothing expires early, and Run never sleeps longer
// than maxSleep (it looks again, however far away the clock says the next
// expiry is). Set forward past an expiry, the item expires at that sweep
// and its hook is told (no decision: the agent's own prompt takes over);
// past Keep, resolved items are forgotten; an item opened afterwards
// keeps its own schedule.
func TestFaultClockStepsExpiry(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	b := New(Options{Now: clock.Now, Keep: time.Hour})
	ctx := context.Background()

	held := testItem()
	held.Expires = clock.Now().Add(570 * time.Second)
	held, heldCh, err := b.Open(ctx, held)
	if err != nil {
		t.Fatal(err)
	}
	answered, _, err := b.Open(ctx, testItem())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Decide(ctx, answered.ID, Decision{Verb: VerbAllow, By: "device:d1"}); err != nil {
		t.Fatal(err)
	}

	for _, back := range []time.Duration{-3 * time.Hour, -30 * 24 * time.Hour} {
		clock.Add(back)
		if d := b.sweep(ctx); d <= 0 || d > maxSleep {
			t.Fatalf("after setting the clock %v: Run sleeps %v, want (0, %v]", back, d, maxSleep)
		}
		select {
		case o := <-heldCh:
			t.Fatalf("after setting the clock %v: the held item resolved: %+v", back, o.Item)
		default:
		}
		if it, ok := b.Get(held.ID); !ok || !it.Waiting() {
			t.Fatalf("after setting the clock %v: held item %+v", back, it)
		}
		if _, ok := b.Get(answered.ID); !ok {
			t.Fatalf("after setting the clock %v: the answered item was forgotten", back)
		}
		clock.Add(-back)
	}

	clock.Add(3 * time.Hour)
	b.sweep(ctx)
	select {
	case o := <-heldCh:
		if o.Item.Resolution != Expired || o.Decision.Verb != "" {
			t.Fatalf("outcome after the clock went past the expiry: %+v", o)
		}
	default:
		t.Fatal("the held item did not expire when the clock went past its expiry")
	}

	clock.Add(25 * time.Hour)
	b.sweep(ctx)
	for _, id := range []string{held.ID, answered.ID} {
		if _, ok := b.Get(id); ok {
			t.Fatalf("item %s kept a day past Keep", id)
		}
	}

	later := testItem()
	later.Expires = clock.Now().Add(30 * time.Second)
	later, laterCh, err := b.Open(ctx, later)
	if err != nil {
		t.Fatal(err)
	}
	if d := b.sweep(ctx); d != 30*time.Second {
		t.Fatalf("an item opened after the steps: Run sleeps %v, want 30s", d)
	}
	clock.Add(30 * time.Second)
	b.sweep(ctx)
	if o := <-laterCh; o.Item.Resolution != Expired || o.Item.ID != later.ID {
		t.Fatalf("outcome %+v", o)
	}
}
