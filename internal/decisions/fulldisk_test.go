package decisions_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"paddock/internal/decisions"
	"paddock/internal/testkit/fulldisk"
)

// A decision is recorded before it is delivered: on a disk that cannot
// take its record it is refused, the hook hears nothing and the item
// still waits, so the user may answer at the desk or, once there is room,
// from the phone again — and then it is stored and audited.
func TestDecisionOnAFullDiskIsRefused(t *testing.T) {
	dir := fulldisk.Mount(t, 4<<20)
	s := openStore(t, filepath.Join(dir, "paddock.db"))
	b := decisions.New(decisions.Options{Persist: s})
	it, ch := open(t, b, approval(sessA, "t1"))

	free := fulldisk.Fill(t, dir)
	got, err := b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "allow", By: "device:d1"})
	if !errors.Is(err, decisions.ErrNotRecorded) {
		t.Fatalf("a decision the store could not record: %s %v, want ErrNotRecorded", got.Resolution, err)
	}
	noOutcome(t, ch)
	if now, ok := b.Get(it.ID); !ok || !now.Waiting() {
		t.Fatalf("after the refused decision the item is %q, want it still waiting", now.Resolution)
	}

	free()
	got, err = b.Decide(context.Background(), it.ID, decisions.Decision{Verb: "deny", Message: "not now", By: "device:d1"})
	if err != nil || got.Resolution != decisions.Denied {
		t.Fatalf("deciding once there is room: %s %v", got.Resolution, err)
	}
	if o := outcome(t, ch); o.Item.Resolution != decisions.Denied || o.Decision.Message != "not now" {
		t.Fatalf("the hook heard %+v", o)
	}
	if r := storedRow(t, s, it.ID); r.Resolution != "denied" || r.ResolvedBy != "device:d1" {
		t.Fatalf("stored %+v", r)
	}
	if a := auditFor(t, s, it.ID); len(a) != 1 || a[0].Action != "approval.denied" {
		t.Fatalf("audit %+v, want the one denial", a)
	}
}

// A prompt arriving while the disk is full is not held: its item could
// be decided by nobody (no answer could be recorded), so the agent's own
// prompt takes it at once.
func TestOpenOnAFullDiskHoldsNothing(t *testing.T) {
	dir := fulldisk.Mount(t, 4<<20)
	s := openStore(t, filepath.Join(dir, "paddock.db"))
	b := decisions.New(decisions.Options{Persist: s})
	fulldisk.Fill(t, dir)
	if it, _, err := b.Open(context.Background(), approval(sessA, "t1")); !errors.Is(err, decisions.ErrNotRecorded) {
		t.Fatalf("an item the store could not keep: %s %v, want ErrNotRecorded", it.ID, err)
	}
	if l := b.List(decisions.Filter{}); len(l) != 0 {
		t.Fatalf("listed %+v", l)
	}
}
