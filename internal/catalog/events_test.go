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

// streamScanner is a fullScanner that also streams its events.
type streamScanner struct {
	*fullScanner
	streamed int
}

func (s *streamScanner) EachEvent(_ context.Context, id string, fn func(session.Event) error) error {
	s.streamed++
	for _, text := range []string{"one " + id, "two " + id} {
		if err := fn(session.Event{Kind: session.EventMessage, Role: session.RoleUser, Text: text}); err != nil {
			return err
		}
	}
	return nil
}

// TestEachEvent: a session's record handed over one event at a time, as
// its scanner streams it, or from Events where it cannot; fn's error
// stops it; the unsupported and unknown fail as Events does.
func TestEachEvent(t *testing.T) {
	ctx := context.Background()
	stream := &streamScanner{fullScanner: &fullScanner{listScanner: newListScanner("claude", info("claude", "c1", t0))}}
	whole := &fullScanner{listScanner: newListScanner("pi", info("pi", "p1", t0))}
	plain := newListScanner("codex", info("codex", "x1", t0))
	c := New(Options{}, stream, whole, plain)
	c.Rescan(ctx)
	texts := func(k session.Key) ([]string, error) {
		var out []string
		err := c.EachEvent(ctx, k, func(e session.Event) error { out = append(out, e.Text); return nil })
		return out, err
	}
	if got, err := texts(key("claude", "c1")); err != nil || !slices.Equal(got, []string{"one c1", "two c1"}) || stream.streamed != 1 {
		t.Errorf("streamed: %q %v (%d streams)", got, err, stream.streamed)
	}
	if got, err := texts(key("pi", "p1")); err != nil || !slices.Equal(got, []string{"hi p1"}) {
		t.Errorf("from Events: %q %v", got, err)
	}
	stop := errors.New("stop")
	n := 0
	if err := c.EachEvent(ctx, key("claude", "c1"), func(session.Event) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("stopped: %v after %d", err, n)
	}
	if _, err := texts(key("codex", "x1")); !errors.Is(err, ErrUnsupported) {
		t.Errorf("a runtime without events: %v", err)
	}
	if _, err := texts(key("claude", "nope")); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("an unknown session: %v", err)
	}
}
