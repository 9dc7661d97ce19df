package catalog

import (
	"context"
	"errors"
	"slices"
	"testing"

	"paddock/internal/session"
)

// fullScanner is a fakeScanner that also reads events and deletes.
type fullScanner struct {
	*listScanner
	deleted []string
}

func (f *fullScanner) Events(_ context.Context, id string) ([]session.Event, error) {
	return []session.Event{{Kind: session.EventMessage, Role: session.RoleUser, Text: "hi " + id}}, nil
}

func (f *fullScanner) Delete(_ context.Context, id string) error {
	if id == "live-one" {
		return session.ErrLive
	}
	f.deleted = append(f.deleted, id)
	f.set() // gone from its history
	return nil
}

func TestEventsAndDelete(t *testing.T) {
	ctx := context.Background()
	full := &fullScanner{listScanner: newListScanner("claude", info("claude", "c1", t0), info("claude", "live-one", t0))}
	plain := newListScanner("codex", info("codex", "x1", t0))
	c := New(Options{}, full, plain)
	c.Rescan(ctx)

	if ev, err := c.Events(ctx, key("claude", "c1")); err != nil || len(ev) != 1 || ev[0].Text != "hi c1" {
		t.Fatalf("events %+v %v", ev, err)
	}
	if _, err := c.Events(ctx, key("codex", "x1")); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("events of a runtime without them: %v", err)
	}
	if _, err := c.Events(ctx, key("claude", "nope")); !errors.Is(err, session.ErrNotFound) {
		t.Fatalf("events of an unknown session: %v", err)
	}
	if err := c.Delete(ctx, key("claude", "live-one")); !errors.Is(err, session.ErrLive) {
		t.Fatalf("delete of a live session: %v", err)
	}
	if err := c.Delete(ctx, key("codex", "x1")); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("delete where unsupported: %v", err)
	}
	if err := c.Delete(ctx, key("claude", "c1")); err != nil || !slices.Equal(full.deleted, []string{"c1"}) {
		t.Fatalf("delete: %v %v", err, full.deleted)
	}
	if _, err := c.Get(ctx, key("claude", "c1")); err == nil {
		t.Fatal("a deleted session is still listed")
	}
}
