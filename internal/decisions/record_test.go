package decisions_test

import (
	"context"
	"errors"
	"testing"

	"paddock/internal/decisions"
	"paddock/internal/store"
)

// gatedStore is the real store whose SettlePendingItem waits for the test
// to let it go, and then fails if the test says so: a decision's record
// caught in flight.
type gatedStore struct {
	*store.Store
	entered chan struct{}
	proceed chan error // nil: write; an error: fail with it, writing nothing
}

func newGatedStore(t *testing.T) *gatedStore {
	return &gatedStore{Store: openStore(t, ""), entered: make(chan struct{}, 1), proceed: make(chan error)}
}

func (g *gatedStore) SettlePendingItem(ctx context.Context, it store.PendingItem, a store.AuditEntry) (bool, error) {
	g.entered <- struct{}{}
	if err := <-g.proceed; err != nil {
		return false, err
	}
	return g.Store.SettlePendingItem(ctx, it, a)
}

// decideAsync starts a Decide and returns where its result arrives.
func decideAsync(b *decisions.Broker, id string, d decisions.Decision) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := b.Decide(context.Background(), id, d)
		done <- err
	}()
	return done
}

// While a decision's record is being written the hook hears nothing, a
// second decision waits for the first and loses, and a release (the hold
// ran out) yields to it; once written, the hook hears the decision.
func TestDecisionRecordedBeforeDelivered(t *testing.T) {
	g := newGatedStore(t)
	b := decisions.New(decisions.Options{Persist: g})
	it, ch := open(t, b, approval(sessA, "t1"))

	first := decideAsync(b, it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	<-g.entered
	noOutcome(t, ch)
	second := decideAsync(b, it.ID, decisions.Decision{Verb: "deny", By: "device:d2"})
	if _, ok := b.Release(context.Background(), it.ID, decisions.Expired, ""); ok {
		t.Fatal("a release took an item whose decision was being recorded")
	}
	noOutcome(t, ch)
	if now, _ := b.Get(it.ID); !now.Waiting() {
		t.Fatalf("while its decision is recorded the item is %q", now.Resolution)
	}

	g.proceed <- nil
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if err := <-second; !errors.As(err, new(*decisions.ResolvedError)) {
		t.Fatalf("the second decision: %v, want *ResolvedError", err)
	}
	if o := outcome(t, ch); o.Item.Resolution != decisions.Allowed || o.Decision.By != "device:d1" {
		t.Fatalf("the hook heard %s by %s", o.Item.Resolution, o.Decision.By)
	}
	if r := storedRow(t, g.Store, it.ID); r.Resolution != "allowed" {
		t.Fatalf("stored %q", r.Resolution)
	}
	if a := auditFor(t, g.Store, it.ID); len(a) != 1 {
		t.Fatalf("%d audit entries, want 1", len(a))
	}
}

// A decision whose record fails is refused; a release asked meanwhile
// then applies, and the hook hears no decision.
func TestRefusedDecisionYieldsToRelease(t *testing.T) {
	g := newGatedStore(t)
	b := decisions.New(decisions.Options{Persist: g})
	it, ch := open(t, b, approval(sessA, "t1"))

	first := decideAsync(b, it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	<-g.entered
	if got := b.ReleaseSession(context.Background(), sessA, "", decisions.Desk, ""); len(got) != 0 {
		t.Fatalf("released %d items whose decision was being recorded", len(got))
	}
	g.proceed <- errors.New("disk full")
	<-g.entered // the desk's own record, which writes
	g.proceed <- nil
	if err := <-first; !errors.Is(err, decisions.ErrNotRecorded) {
		t.Fatalf("the decision: %v, want ErrNotRecorded", err)
	}
	if o := outcome(t, ch); o.Item.Resolution != decisions.Desk || o.Decision.Verb != "" {
		t.Fatalf("the hook heard %s %q, want the desk with no decision", o.Item.Resolution, o.Decision.Verb)
	}
	if r := storedRow(t, g.Store, it.ID); r.Resolution != "desk" {
		t.Fatalf("stored %q", r.Resolution)
	}
}
