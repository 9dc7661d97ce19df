package broadcast

import (
	"slices"
	"testing"
)

func TestPublishReachesEverySubscriber(t *testing.T) {
	b := New(func() []int { return nil }, slices.Clone[[]int])
	a, stopA := b.Subscribe()
	c, stopC := b.Subscribe()
	defer stopA()
	defer stopC()
	b.Publish([]int{1, 2})
	ga, gc := <-a, <-c
	ga[0] = 99 // a reader altering its value must not change another's
	if gc[0] != 1 || len(gc) != 2 {
		t.Fatalf("second subscriber got %v", gc)
	}
}

func TestSlowSubscriberGetsOverflowNotBlocking(t *testing.T) {
	b := New(func() int { return -1 }, nil)
	ch, stop := b.Subscribe()
	defer stop()
	for i := range Buffer + 5 {
		b.Publish(i) // must never block
	}
	got := []int{}
	for len(ch) > 0 {
		got = append(got, <-ch)
	}
	if !slices.Contains(got, -1) {
		t.Fatalf("no overflow value after falling behind: %v", got)
	}
	if len(got) > Buffer {
		t.Fatalf("queue grew past its buffer: %d", len(got))
	}
}

func TestUnsubscribeClosesOnceAndStopsDelivery(t *testing.T) {
	b := New(func() int { return 0 }, nil)
	ch, stop := b.Subscribe()
	stop()
	stop()
	if _, ok := <-ch; ok {
		t.Fatal("channel not closed")
	}
	b.Publish(1) // no panic on a closed channel
	if b.Len() != 0 {
		t.Fatalf("Len = %d after unsubscribe", b.Len())
	}
}
