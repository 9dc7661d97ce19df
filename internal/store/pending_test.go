package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestPendingItemsRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	open := PendingItem{ID: "itm_a", Runtime: "claude", SessionID: "s1", Kind: "approval",
		Created: t0, Expires: t0.Add(2 * time.Minute), Data: []byte(`{"v":1}`)}
	noExpiry := PendingItem{ID: "itm_b", Runtime: "codex", SessionID: "s2", Kind: "question",
		Created: t0.Add(time.Second), Data: []byte(`{}`)}
	for _, it := range []PendingItem{open, noExpiry} {
		if err := s.SavePendingItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.PendingItems(ctx, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "itm_a" || got[1].ID != "itm_b" {
		t.Fatalf("items %+v", got)
	}
	a := got[0]
	if a.Runtime != "claude" || a.SessionID != "s1" || a.Kind != "approval" || !a.Created.Equal(t0) ||
		!a.Expires.Equal(t0.Add(2*time.Minute)) || a.Resolution != "" || !a.ResolvedAt.IsZero() || string(a.Data) != `{"v":1}` {
		t.Fatalf("item a %+v", a)
	}
	if !got[1].Expires.IsZero() {
		t.Fatalf("no expiry came back as %v", got[1].Expires)
	}
}

func TestResolvePendingItemOnlyOnce(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SavePendingItem(ctx, PendingItem{ID: "itm_a", Runtime: "claude", SessionID: "s1", Kind: "approval", Created: t0, Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		id, res string
		want    bool
		wantErr error
	}{
		{"first wins", "itm_a", "allowed", true, nil},
		{"second loses", "itm_a", "denied", false, nil},
		{"unknown id", "itm_zz", "denied", false, ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ok, err := s.ResolvePendingItem(ctx, tc.id, tc.res, "device:d1", t0.Add(time.Second), []byte(`{"r":"`+tc.res+`"}`))
			if ok != tc.want || !errors.Is(err, tc.wantErr) {
				t.Fatalf("ok=%v err=%v, want %v %v", ok, err, tc.want, tc.wantErr)
			}
		})
	}
	got, err := s.PendingItems(ctx, t0)
	if err != nil || len(got) != 1 {
		t.Fatalf("items %+v %v", got, err)
	}
	if g := got[0]; g.Resolution != "allowed" || g.ResolvedBy != "device:d1" || !g.ResolvedAt.Equal(t0.Add(time.Second)) || string(g.Data) != `{"r":"allowed"}` {
		t.Fatalf("resolved item %+v", g)
	}
	// Saving again must not reopen a resolved item.
	if err := s.SavePendingItem(ctx, PendingItem{ID: "itm_a", Runtime: "claude", SessionID: "s1", Kind: "approval", Created: t0, Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.PendingItems(ctx, t0); got[0].Resolution != "allowed" {
		t.Fatalf("save reopened a resolved item: %+v", got[0])
	}
	if _, err := s.ResolvePendingItem(ctx, "itm_a", "", "x", t0, nil); err == nil {
		t.Fatal("empty resolution accepted")
	}
}

// Many writers on their own connections: the UPDATE's guard lets exactly
// one through.
func TestResolvePendingItemConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	if err := s.SavePendingItem(ctx, PendingItem{ID: "itm_a", Runtime: "claude", SessionID: "s1", Kind: "approval", Created: t0, Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ok, err := s.ResolvePendingItem(ctx, "itm_a", "allowed", fmt.Sprintf("device:%d", i), t0, []byte(`{}`))
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d resolutions won, want 1", wins.Load())
	}
}

func TestPendingItemsSinceAndPrune(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	old := t0.Add(-48 * time.Hour)
	for _, it := range []PendingItem{
		{ID: "old_open", Created: old},
		{ID: "old_done", Created: old},
		{ID: "new_done", Created: t0},
	} {
		it.Runtime, it.SessionID, it.Kind, it.Data = "claude", "s", "approval", []byte(`{}`)
		if err := s.SavePendingItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"old_done", "new_done"} {
		if _, err := s.ResolvePendingItem(ctx, id, "denied", "desk", old.Add(time.Minute), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	ids := func() []string {
		got, err := s.PendingItems(ctx, t0.Add(-24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range got {
			out = append(out, it.ID)
		}
		return out
	}
	// An old pending item is returned however old; an old resolved one not.
	if got := fmt.Sprint(ids()); got != "[old_open new_done]" {
		t.Fatalf("since: %s", got)
	}
	n, err := s.PrunePendingItems(ctx, t0)
	if err != nil || n != 2 {
		t.Fatalf("pruned %d %v, want 2", n, err)
	}
	if got := fmt.Sprint(ids()); got != "[old_open]" {
		t.Fatalf("after prune: %s", got)
	}
}
