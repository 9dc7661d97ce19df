package decisions

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"paddock/internal/session"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func testItem() Item {
	return Item{Kind: KindApproval, Key: session.Key{Runtime: "claude", ID: "s"}, Tool: "Bash",
		Input: json.RawMessage(`{"command":"ls"}`), Can: []string{VerbAllow, VerbDeny}}
}

// Expiry and pruning follow the broker's clock, not the wall's.
func TestSweepExpiresAndPrunesWithFakeClock(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	b := New(Options{Now: clock.Now, Keep: time.Hour})
	ctx := context.Background()

	soon := testItem()
	soon.Expires = clock.Now().Add(45 * time.Second)
	later := testItem()
	later.Expires = clock.Now().Add(30 * time.Second)
	never := testItem()
	soon, soonCh, _ := b.Open(ctx, soon)
	later, laterCh, _ := b.Open(ctx, later)
	never, _, _ = b.Open(ctx, never)

	if d := b.sweep(ctx); d != 30*time.Second {
		t.Fatalf("sleep %v, want until the first expiry (30s)", d)
	}
	clock.Add(35 * time.Second)
	if d := b.sweep(ctx); d != 10*time.Second {
		t.Fatalf("sleep %v, want 10s", d)
	}
	if o := <-laterCh; o.Item.Resolution != Expired || !o.Item.ResolvedAt.Equal(clock.Now()) {
		t.Fatalf("outcome %+v", o)
	}
	select {
	case o := <-soonCh:
		t.Fatalf("expired early: %+v", o)
	default:
	}
	clock.Add(10 * time.Second)
	if d := b.sweep(ctx); d != maxSleep {
		t.Fatalf("sleep %v with nothing due, want %v", d, maxSleep)
	}
	if o := <-soonCh; o.Item.Resolution != Expired {
		t.Fatalf("outcome %+v", o)
	}

	clock.Add(time.Hour - 5*time.Second) // "later" resolved an hour ago, "soon" not quite
	b.sweep(ctx)
	if _, ok := b.Get(later.ID); ok {
		t.Fatal("resolved item kept past Keep")
	}
	if _, ok := b.Get(soon.ID); !ok {
		t.Fatal("resolved item pruned before Keep")
	}
	if _, ok := b.Get(never.ID); !ok {
		t.Fatal("pending item pruned")
	}
}

func TestTooManyWaiting(t *testing.T) {
	b := New(Options{})
	for range maxPending {
		if _, _, err := b.Open(context.Background(), testItem()); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := b.Open(context.Background(), testItem()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("open past the limit: %v", err)
	}
	first := b.List(Filter{Limit: 1})[0]
	b.Release(context.Background(), first.ID, Withdrawn, "")
	if _, _, err := b.Open(context.Background(), testItem()); err != nil {
		t.Fatalf("open after one was released: %v", err)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	it := Item{
		ID: "itm_x", Kind: KindQuestion, Key: session.Key{Runtime: "claude", ID: "s"},
		Tool: "AskUserQuestion", ToolUseID: "toolu_1",
		Input:       json.RawMessage(`{"a":"<b> & c"}`),
		Suggestions: json.RawMessage(`[1,2]`),
		Questions:   []Question{{Question: "Q?", Header: "H", MultiSelect: true, Options: []Option{{Label: "A", Description: "d"}}}},
		Reason:      "why", Cwd: "/p", Can: []string{VerbAnswer}, FreeText: true,
		Created: at, Expires: at.Add(time.Minute),
		Resolution: Answered, ResolvedBy: "device:d", ResolvedAt: at.Add(time.Second),
		Message: "m", Answers: map[string]string{"Q?": "A"},
	}
	data, err := encode(it)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, it) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, it)
	}
}
