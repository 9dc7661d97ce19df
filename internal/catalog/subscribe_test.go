package catalog

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"paddock/internal/broadcast"
	"paddock/internal/session"
)

func TestSlowSubscriberNeverBlocksRescan(t *testing.T) {
	ls := newListScanner("claude")
	c := New(Options{}, ls)
	slow, unsubscribe := c.Subscribe() // never read until the end
	defer unsubscribe()

	rounds := 3 * broadcast.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range rounds {
			ls.set(info("claude", fmt.Sprint(i), t0))
			c.Rescan(context.Background())
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Rescan blocked on a subscriber that does not read")
	}

	got := drain(slow)
	if len(got) == 0 || len(got) > broadcast.Buffer {
		t.Fatalf("slow subscriber holds %d changes, want 1..%d", len(got), broadcast.Buffer)
	}
	// The overflow replaced what was queued with one Full change; later
	// changes may queue behind it (harmless: the reader re-reads anyway).
	if !got[0].Full {
		t.Errorf("oldest queued change = %+v, want Full in place of the dropped ones", got[0])
	}

	// Once it has caught up, it gets ordinary changes again.
	ls.set(info("claude", "fresh", t0))
	c.Rescan(context.Background())
	got = drain(slow)
	if len(got) != 1 || got[0].Full || !slices.Equal(got[0].Updated, []session.Key{key("claude", "fresh")}) {
		t.Fatalf("after catching up: %+v, want one ordinary change", got)
	}
}

func TestUnsubscribeCloses(t *testing.T) {
	ls := newListScanner("claude")
	c := New(Options{}, ls)
	ch, unsubscribe := c.Subscribe()
	other, unsubscribeOther := c.Subscribe()
	defer unsubscribeOther()
	unsubscribe()
	unsubscribe() // a second call is harmless

	select {
	case _, ok := <-ch:
		if ok {
			t.Fatal("received a change after unsubscribing")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("channel not closed by unsubscribe")
	}
	ls.set(info("claude", "a", t0))
	c.Rescan(context.Background()) // must not send on the closed channel
	if got := drain(other); len(got) != 1 {
		t.Fatalf("remaining subscriber got %+v, want one change", got)
	}
}

func TestSubscribersGetTheirOwnSlices(t *testing.T) {
	ls := newListScanner("claude", info("claude", "a", t0))
	c := New(Options{}, ls)
	one, u1 := c.Subscribe()
	defer u1()
	two, u2 := c.Subscribe()
	defer u2()
	c.Rescan(context.Background())
	a, b := drain(one), drain(two)
	if len(a) != 1 || len(b) != 1 {
		t.Fatalf("got %d and %d changes, want 1 each", len(a), len(b))
	}
	a[0].Updated[0].ID = "scribbled"
	if b[0].Updated[0].ID != "a" {
		t.Fatal("one subscriber's edit reached another")
	}
}
